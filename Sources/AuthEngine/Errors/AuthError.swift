import FoundationEssentials

/// The engine's one error type (`throws(AuthError)` at every public boundary), docs/ARCHITECTURE.md "Errors".
/// No payload ever holds a token, code, verifier or secret.
public enum AuthError: Error, Sendable, Equatable {
    /// The server said no: an OAuth error body (RFC 6749 §5.2), whatever the HTTP status.
    case errorResponse(OAuthErrorResponse)
    /// Error parameters arrived on the redirect (RFC 6749 §4.1.2.1), e.g. `access_denied`.
    case authorizationDenied(AuthorizationErrorParameters)
    /// Our validation failed; one case per spec rule.
    case protocolViolation(ProtocolViolation)
    /// Network-level failure: nothing came back.
    case transport(TransportError)
    /// A non-2xx answer without an OAuth error body (e.g. 503 from a proxy).
    case httpStatus(HTTPStatusFailure)
    /// We refuse to do this (insecure URL, `alg: none`, encrypted ID token, …).
    case unsupported(UnsupportedReason)
    /// A step of signing in to a resource by its URL (RFC 9728, RFC 8414, RFC 7591) failed at
    /// `url` with `cause`: the text names the step, the URL and what to do.
    indirect case resourceStep(ResourceSignInStep, url: String, cause: AuthError)

    /// The error under any ``resourceStep(_:url:cause:)`` wrapping.
    public var underlying: AuthError {
        if case .resourceStep(_, _, let cause) = self { return cause.underlying }
        return self
    }
}

/// The steps of signing in to a resource by its URL, in order.
public enum ResourceSignInStep: String, Sendable, Equatable, CaseIterable {
    /// 1. An unauthenticated request to the resource, for its challenge (RFC 9728 §5.1).
    case resourceChallenge = "the resource's challenge"
    /// 2. Its protected-resource metadata (RFC 9728 §3).
    case protectedResourceMetadata = "the protected resource metadata"
    /// 3. The authorization server's metadata (RFC 8414 §3, OpenID Discovery §4).
    case authorizationServerMetadata = "the authorization server metadata"
    /// 4. Dynamic client registration (RFC 7591 §3).
    case clientRegistration = "client registration"
    /// Deleting the registration (RFC 7592 §2.3).
    case clientDeletion = "deleting the client registration"
}

/// A failed validation rule, named after its clause, with expected and actual values where
/// the rule compares something. Values shown here are never tokens.
public enum ProtocolViolation: Sendable, Equatable {
    // MARK: Discovery (OIDC Discovery 1.0 §4.3, RFC 8414 §3.3)
    /// Discovery §4.3 / RFC 8414 §3.3: the document's `issuer` must be identical to the configured one.
    case issuerMismatch(expected: String, actual: String)
    /// Discovery §3 / RFC 8414 §2: an issuer is an https URL without query or fragment.
    case invalidIssuerIdentifier(String)
    /// Discovery §3: `response_types_supported` must contain `code` for this client.
    case responseTypeCodeNotSupported
    /// RFC 9728 §3.3: the metadata's `resource` must be identical to the resource asked for.
    case protectedResourceMismatch(expected: String, actual: String, metadataURL: String)

    // MARK: Any response
    /// A REQUIRED member is absent (wire name), e.g. `jwks_uri`, `access_token`, `id_token`.
    case missingField(String)
    /// A member has the wrong JSON type or an unusable value (`expected` names the type/shape).
    case invalidField(name: String, expected: String)
    /// The body is not the JSON (or form) document expected; `context` names the response.
    case malformedJSON(context: String)
    /// A JSON object (or form body) repeats a member name (`name`, possibly ""): rejected in JOSE
    /// headers and JWT claims (RFC 7515 §4, RFC 7519 §4) and, as hardening, in every other
    /// document (RFC 8259 §4, PARSE-09). `context` names the document.
    case duplicateMember(name: String, context: String)
    /// The Content-Type is not one the endpoint may answer with.
    case unexpectedContentType(expected: String, actual: String?)

    // MARK: Authorization response (RFC 6749 §4.1.2, RFC 9207, RFC 8252 §8.10)
    /// RFC 6749 §4.1.2, §3.1: missing `code`, `code` with `error`, or a repeated parameter.
    case malformedAuthorizationResponse(MalformedAuthorizationResponse)
    /// RFC 8252 §8.10: the response arrived on another path than the pending `redirect_uri`.
    case redirectPathMismatch(expected: String, actual: String)
    /// RFC 6749 §10.12: `state` must equal the sent one (possible forgery, or a stale tab).
    /// `unverifiedError` is the `error` code the mismatched response carried, if any: it may be
    /// forged, so it is shown only as unverified, and its `error_description` is not kept.
    case stateMismatch(expected: String, actual: String?, unverifiedError: OAuthErrorCode? = nil)
    /// RFC 9207 §2.4: `iss` must equal the issuer (`unverifiedError` as for ``stateMismatch(expected:actual:unverifiedError:)``).
    case authorizationResponseIssuerMismatch(expected: String, actual: String, unverifiedError: OAuthErrorCode? = nil)
    /// RFC 9207 §2.4: `iss` is absent although the server advertises it (`unverifiedError` as above).
    case missingAuthorizationResponseIssuer(expected: String, unverifiedError: OAuthErrorCode? = nil)

    // MARK: JOSE (RFC 7515, RFC 7517)
    /// RFC 7515 §7.1: not a compact JWS (three base64url parts, JSON header and payload).
    case malformedJWT(reason: String)
    /// RFC 7515 §4.1.11: `crit` lists extensions we do not understand.
    case unsupportedCriticalHeader([String])
    /// RFC 8725 §3.11: the JWT `typ` names another kind of token (`at+jwt`, `logout+jwt` …).
    case unexpectedJWTType(String)
    /// RFC 7519 §5.2, §7.2 step 8: the header's `cty` is `JWT`, announcing a nested JWT, where
    /// the payload must be the claims (an ID token, a signed UserInfo response).
    case nestedJWT(contentType: String)
    /// OIDC Core §3.1.3.7 step 7, RFC 8725 §3.1: the `alg` is not both allowed and advertised.
    case algorithmNotAllowed(alg: String, allowed: [String])
    /// OIDC Core §10.1: no key of the JWKS fits the header (`kid`, `kty`, `alg`, `use`, `crv`).
    case noMatchingKey(kid: String?)
    /// OIDC Core §10.1: several keys fit and the header has no `kid` to choose.
    case multipleMatchingKeys(kid: String?, count: Int)
    /// RFC 7518 §3.3 etc.: the key cannot verify this algorithm (size, curve).
    case unsupportedKey(kid: String?, reason: String)
    /// OIDC Core §3.1.3.7 step 6: the signature does not verify.
    case signatureInvalid(kid: String?)
    /// RFC 7517 §5: the JWK Set has no `keys` array or is not JSON.
    case malformedJWKSet(reason: String)

    // MARK: ID token (OIDC Core §2, §3.1.3.7, §12.2)
    /// OIDC Core §2: a REQUIRED claim is absent (`iss`, `sub`, `aud`, `exp`, `iat`, `auth_time`, `tid`).
    case missingClaim(String)
    /// RFC 7519 §4.1: a claim has the wrong type (`exp` as a string, `aud` as a number …).
    case invalidClaim(name: String, expected: String)
    /// OIDC Core §3.1.3.7 step 2: `iss` must exactly equal the issuer.
    case idTokenIssuerMismatch(expected: String, actual: String)
    /// OIDC Core §3.1.3.7 step 3: `aud` must contain the client_id and no untrusted audience.
    case audienceMismatch(expected: String, actual: [String])
    /// OIDC Core §3.1.3.7 steps 4–5: `azp` must be the client_id (required with several audiences).
    case azpMismatch(expected: String, actual: String?)
    /// OIDC Core §3.1.3.7 step 9: now is after `exp` (+ clock tolerance).
    case expired(exp: Date, now: Date)
    /// RFC 7519 §4.1.5: now is before `nbf` (− clock tolerance).
    case notYetValid(nbf: Date, now: Date)
    /// OIDC Core §3.1.3.7 step 10: `iat` is in the future (beyond the clock tolerance).
    case issuedInFuture(iat: Date, now: Date)
    /// OIDC Core §3.1.3.7 step 10: `iat` is more than `maximumAge` seconds (+ clock tolerance) before
    /// now (``IDTokenValidationOptions/maximumIssuedAtAge``): a replayed or cached token.
    case issuedTooLongAgo(iat: Date, now: Date, maximumAge: TimeInterval)
    /// OIDC Core §3.1.3.7 step 12: `auth_time` is older than the requested `max_age`.
    case authenticationTooOld(authTime: Date, maxAge: Int, now: Date)
    /// OIDC Core §3.1.2.1, RFC 9470 §3: `acr_values` were requested and the ID token's `acr` is absent or none of them.
    case acrNotSatisfied(requested: [String], actual: String?)
    /// OIDC Core §3.1.3.7 step 11: `nonce` must equal the sent one.
    case nonceMismatch(expected: String?, actual: String?)
    /// OIDC Core §3.1.3.8: `at_hash` does not match the access token.
    case atHashMismatch
    /// OIDC Core §12.2: the refreshed ID token's `sub` must equal the original's.
    case refreshedIDTokenSubjectMismatch(expected: String, actual: String)
    /// OIDC Core §12.2: the refreshed ID token's `iss` must equal the original's.
    case refreshedIDTokenIssuerMismatch(expected: String, actual: String)
    /// OIDC Core §12.2: the refreshed ID token's `aud` must be the original's.
    case refreshedIDTokenAudienceMismatch(expected: [String], actual: [String])
    /// OIDC Core §12.2: the refreshed ID token's `azp` must be the original's (absent if it was absent).
    case refreshedIDTokenAuthorizedPartyMismatch(expected: String?, actual: String?)
    /// OIDC Core §12.2: a refreshed `auth_time` must still be the time of the original authentication.
    case refreshedIDTokenAuthTimeMismatch(expected: Date, actual: Date)

    // MARK: DPoP (RFC 9449)
    /// RFC 9449 §5, §7.1: `token_type: DPoP` answered a request that carried no proof.
    case dpopTokenWithoutProof

    // MARK: UserInfo (OIDC Core §5.3.2)
    /// OIDC Core §5.3.2: the UserInfo `sub` must equal the ID token's `sub`.
    case userInfoSubjectMismatch(expected: String, actual: String)
    /// OIDC Core §5.3.2: a signed UserInfo response's `iss` must be the issuer (exactly).
    case userInfoIssuerMismatch(expected: String, actual: String?)
    /// OIDC Core §5.3.2: a signed UserInfo response's `aud` must be or include the client id
    /// (and name no untrusted audience, as for ID tokens).
    case userInfoAudienceMismatch(expected: String, actual: [String])

    // MARK: End session (RP-Initiated Logout 1.0 §3)
    /// RP-Initiated Logout §2/§3: the `state` on the post-logout redirect must equal the sent one.
    case endSessionStateMismatch(expected: String, actual: String?)
}

/// Why an authorization response is malformed (RFC 6749 §4.1.2, §3.1).
public enum MalformedAuthorizationResponse: Sendable, Equatable {
    case missingCode
    case codeAndError
    case repeatedParameter(String)
}

/// Something the engine refuses to do (docs/ARCHITECTURE.md, "Refusals") or a capability the server lacks.
public enum UnsupportedReason: Sendable, Equatable {
    /// A plain-HTTP URL that is not on a loopback address (RFC 6749 §3.1, Discovery §3).
    case insecureURL(String)
    /// RFC 7516: a JWE (5 parts) where a signed ID token was expected.
    case encryptedIDToken
    /// OIDC Core §5.3.2: an `application/jwt` UserInfo response where no keys were given to
    /// verify it (``fetchUserInfo(metadata:client:accessToken:expectedSubject:http:now:verifyingSigned:)``).
    case signedUserInfo
    /// RFC 6749 §7.1: a `token_type` other than Bearer.
    case tokenType(String)
    /// OIDC Core §3.1.2.1: `prompt=none` together with `max_age=0`.
    case contradictoryPromptAndMaxAge
    /// RFC 8707 §2: a `resource` must be an absolute URI without a fragment.
    case invalidResourceIndicator(String)
    /// RFC 9728 §1.2, RFC 3986 §3.2.1: a `resource` with a user name or password; the value is the URI without them.
    case credentialsInResourceIndicator(String)
    /// RFC 8252 §7.3, RFC 6749 §3.1.2: the redirect URI is not acceptable (fragment, `localhost`, http off loopback).
    case invalidRedirectURI(String)
    /// RFC 6749 §3.1: a parameter would be sent twice.
    case repeatedParameter(String)
    /// Discovery §3, OIDC Core §3.1.3.7 step 7: the server advertises no ID-token algorithm we verify.
    case noSupportedSigningAlgorithm(advertised: [String])
    /// The server metadata lacks an endpoint the operation needs (wire name, e.g. `end_session_endpoint`).
    case missingEndpoint(String)
    /// RFC 9126 §5: the provider requires pushed authorization requests, and the request would go
    /// through the browser's URL (the provider's `par` setting is `never`).
    case pushedAuthorizationRequestsRequired
    /// RFC 9449 §5.1: the provider's `dpop` setting is `always`, but it advertises only
    /// `dpop_signing_alg_values_supported` we do not sign with (ES256, EdDSA).
    case dpopAlgorithmNotSupported(advertised: [String])
    /// RFC 9449 §4.2: the account's DPoP key could not sign a proof (reason, never the key).
    case dpopSigningFailed(String)
    /// RFC 7523 §2.2: the client's key could not sign a client assertion (reason, never the key).
    case clientAssertionSigningFailed(String)
    /// RFC 7636 §4.2, MCP authorization: the server does not advertise `S256` in
    /// `code_challenge_methods_supported` (`advertised`: what it lists, empty when absent).
    case pkceS256NotAdvertised(advertised: [String])
    /// A discovery request was answered with a redirect to another origin (scheme, host, port),
    /// which is not followed.
    case redirectToOtherOrigin(from: String, to: String)
}
