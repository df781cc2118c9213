import FoundationEssentials
import TextSupport

/// The one mapping from ``AuthError`` to user text (docs/ARCHITECTURE.md, "Errors"). Equatable so that it can live
/// in app state. Never contains a token; server-supplied text must still be escaped for display.
public struct PresentableError: Sendable, Equatable {
    /// Short headline, e.g. "Issuer mismatch".
    public var title: String
    /// One or two sentences naming the field, the expected and the actual value, and a likely fix.
    public var detail: String
    /// The clause, e.g. "OpenID Connect Discovery 1.0 §4.3".
    public var specReference: String?

    public init(title: String, detail: String, specReference: String? = nil) {
        self.title = title
        self.detail = detail
        self.specReference = specReference
    }

    public init(from error: AuthError) {
        switch error {
        case .errorResponse(let response):
            var detail = "The server answered `\(response.code.rawValue)` (HTTP \(response.status))"
            if let text = response.errorDescription { detail += ": \(text)" }
            if let uri = response.uri { detail += " (see \(uri))" }
            // invalid_grant: the grant is gone; the front end says to sign in again (the error's disposition).
            // A resource server's answer (`WWW-Authenticate: Bearer error=…`: userinfo, an API) has
            // its codes in RFC 6750 §3.1, not the token endpoint's §5.2.
            let resourceServerCode = response.code == .invalidToken || response.code == .insufficientScope
            var title = "The server refused the request"
            var more: [String] = []
            if error.requiresInteraction {
                title = "The provider wants the user to sign in interactively (\(response.code.rawValue))"
                more.append("A refresh cannot answer it (multi-factor authentication, consent or a login page)")
            } else if response.status == 429 {
                title = "The provider is rate-limiting requests (HTTP 429)"
            }
            if let delay = response.retryAfter { more.append("Retry in \(Int(delay.rounded(.up))) s") }
            if !more.isEmpty { detail += ". " + more.joined(separator: ". ") + "." }
            self.init(title: title, detail: detail,
                      specReference: resourceServerCode ? "RFC 6750 §3.1" : (response.status == 429 ? "RFC 6585 §4" : "RFC 6749 §5.2"))
        case .authorizationDenied(let parameters):
            let title = parameters.code == .accessDenied ? "Access denied" : "Authorization failed"
            var detail = "The authorization server returned `\(parameters.code.rawValue)`"
            if let text = parameters.errorDescription { detail += ": \(text)" }
            self.init(title: title, detail: detail, specReference: "RFC 6749 §4.1.2.1")
        case .transport(let transport):
            self.init(title: "Network error", detail: Self.describe(transport), specReference: nil)
        case .httpStatus(let failure):
            var detail = "\(failure.url) answered HTTP \(failure.status) without an OAuth error body."
            if let delay = failure.retryAfter { detail += " Retry after \(Int(delay)) s." }
            self.init(title: "Unexpected HTTP status", detail: detail, specReference: nil)
        case .unsupported(let reason):
            let (detail, reference) = Self.describe(reason)
            self.init(title: "Not supported", detail: detail, specReference: reference)
        case .protocolViolation(let violation):
            let (title, detail, reference) = Self.describe(violation)
            self.init(title: title, detail: detail, specReference: reference)
        case .resourceStep(let step, let url, let cause):
            let inner = PresentableError(from: cause)
            self.init(title: "Signing in to the resource stopped at \(step.rawValue): \(inner.title)",
                      detail: "\(url): \(inner.detail) \(Self.nextStep(step))", specReference: inner.specReference ?? Self.reference(step))
        }
    }

    /// What the person can do when `step` fails.
    static func nextStep(_ step: ResourceSignInStep) -> String {
        switch step {
        case .resourceChallenge:
            "Check the URL (the resource's own, e.g. https://host/mcp) and that the server answers."
        case .protectedResourceMetadata:
            "The resource publishes no usable protected resource metadata; ask its operator, or add its authorization server by hand:"
                + " authdeck provider add NAME --issuer URL --client-id ID --resource URL."
        case .authorizationServerMetadata:
            "The authorization server the resource names publishes no usable metadata (RFC 8414 or OpenID discovery); ask its operator, or"
                + " add the provider by hand: authdeck provider add NAME --issuer URL --client-id ID --resource URL."
        case .clientRegistration:
            "The server did not register authdeck; register a client there by hand and add it (authdeck provider add NAME --issuer URL"
                + " --client-id ID --resource URL), or give a client metadata document with --client-metadata-url."
        case .clientDeletion:
            "The registration may remain at the server; delete it there, or run the command again."
        }
    }

    static func reference(_ step: ResourceSignInStep) -> String {
        switch step {
        case .resourceChallenge: "RFC 9728 §5.1"
        case .protectedResourceMetadata: "RFC 9728 §3"
        case .authorizationServerMetadata: "RFC 8414 §3"
        case .clientRegistration: "RFC 7591 §3"
        case .clientDeletion: "RFC 7592 §2.3"
        }
    }

    /// A guess at why two issuer strings differ ("trailing slash differs" …), or nil.
    public static func issuerHint(expected: String, actual: String) -> String? {
        if expected + "/" == actual || actual + "/" == expected {
            return "The trailing slash differs; configure the issuer exactly as the server spells it."
        }
        if expected.lowercased() == actual.lowercased() { return "Only letter case differs; issuers compare byte for byte." }
        if expected.replacing("http://", with: "https://") == actual.replacing("http://", with: "https://") {
            return "The scheme differs (http vs https)."
        }
        if expected.replacing(":443", with: "") == actual.replacing(":443", with: "") { return "An explicit :443 port differs." }
        if expected.percentDecoded == actual.percentDecoded { return "Percent-encoding differs." }
        if expected.contains("{tenantid}") || actual.contains("{tenantid}") { return "A {tenantid} template was not replaced." }
        if expected.unicodeScalars.allSatisfy(\.isASCII) != actual.unicodeScalars.allSatisfy(\.isASCII) {
            return "One holds non-ASCII characters (a look-alike?); identifiers compare code unit for code unit."
        }
        return nil
    }

    private static func describe(_ error: TransportError) -> String {
        switch error {
        case .timeout(let url, let seconds): "No answer from \(url) within \(seconds) s."
        case .connection(let url, let detail): "Could not connect to \(url): \(detail)."
        case .interrupted(let url, let detail): "The connection to \(url) broke before a whole answer came: \(detail)."
        case .tls(let url, let detail): "TLS failure with \(url): \(detail). Configure the provider's CA bundle if it uses a private CA."
        case .responseTooLarge(let url, let limit): "The response from \(url) exceeded \(limit) bytes."
        case .insecureURL(let url): "Refusing plain-HTTP URL \(url): only loopback addresses may use http."
        case .cancelled: "The request was cancelled."
        }
    }

    private static func describe(_ reason: UnsupportedReason) -> (String, String?) {
        switch reason {
        case .insecureURL(let url): ("Refusing plain-HTTP URL \(url): only loopback addresses (127.0.0.0/8, [::1]) may use http.",
                                     "RFC 6749 §3.1, OIDC Discovery 1.0 §3")
        case .encryptedIDToken: ("The ID token is encrypted (JWE); only signed ID tokens are supported.", "RFC 7516")
        case .signedUserInfo: ("The UserInfo response is a signed JWT and no provider keys were at hand to verify it.", "OIDC Core §5.3.2")
        case .tokenType(let type): ("The token type `\(type)` is not supported here (Bearer, or DPoP after a DPoP proof).",
                                    "RFC 6749 §7.1, RFC 9449 §5")
        case .contradictoryPromptAndMaxAge: ("`prompt=none` with `max_age=0` contradict each other.", "OIDC Core §3.1.2.1")
        case .invalidResourceIndicator(let value): ("The resource `\(value)` must be an absolute URI without a fragment.", "RFC 8707 §2")
        case .credentialsInResourceIndicator(let value):
            ("The resource \(value) was given with a user name or password; a resource is a URI without credentials: give it without"
                + " `user:password@` (authdeck sends tokens, never a password).", "RFC 9728 §1.2, RFC 8707 §2, RFC 3986 §3.2.1")
        case .invalidRedirectURI(let value): ("The redirect URI `\(value)` is not acceptable (fragment, `localhost` or http off loopback).",
                                              "RFC 8252 §7.3, §8.3")
        case .repeatedParameter(let name): ("The parameter `\(name)` would be sent twice.", "RFC 6749 §3.1")
        case .noSupportedSigningAlgorithm(let advertised):
            ("The server signs ID tokens only with \(advertised.joined(separator: ", ")); none of them is allowed.", "OIDC Core §3.1.3.7 step 7")
        case .missingEndpoint(let name): ("The provider has no `\(name)`.", "RFC 8414 §2")
        case .dpopAlgorithmNotSupported(let advertised):
            ("The provider takes DPoP proofs only with \(advertised.joined(separator: ", ")); authdeck signs ES256 and EdDSA. Set the"
                + " provider's dpop setting to auto or never.", "RFC 9449 §5.1")
        case .dpopSigningFailed(let reason): ("The account's DPoP key could not sign a proof (\(reason)); sign in again to make a new key.",
                                              "RFC 9449 §4.2")
        case .clientAssertionSigningFailed(let reason):
            ("The client's key could not sign a client assertion (\(reason)); add the provider again with --generate-key or"
                + " --private-key-file.", "RFC 7523 §2.2")
        case .pkceS256NotAdvertised(let advertised):
            ("The authorization server does not advertise PKCE with S256 (code_challenge_methods_supported:"
                + " \(advertised.isEmpty ? "absent" : advertised.joined(separator: ", "))); authdeck signs in only with S256.",
             "RFC 7636 §4.2, RFC 8414 §2")
        case .redirectToOtherOrigin(let from, let to):
            ("\(from) redirected to \(to), another origin; discovery follows no redirect to another host.", "RFC 9728 §3.2, RFC 8414 §3")
        case .pushedAuthorizationRequestsRequired:
            ("The provider requires pushed authorization requests (PAR), but its `par` setting is `never` or it has no"
                + " pushed_authorization_request_endpoint; set par to auto.", "RFC 9126 §5")
        }
    }

    private static func describe(_ violation: ProtocolViolation) -> (String, String, String?) {
        switch violation {
        case .issuerMismatch(let expected, let actual):
            ("Issuer mismatch",
             "Discovery `issuer` is \"\(actual)\", expected \"\(expected)\"." + hint(expected, actual),
             "OpenID Connect Discovery 1.0 §4.3; RFC 8414 §3.3")
        case .invalidIssuerIdentifier(let issuer):
            ("Invalid issuer", "The issuer \"\(issuer)\" must be an https URL without query or fragment.", "OpenID Connect Discovery 1.0 §3")
        case .protectedResourceMismatch(let expected, let actual, let metadataURL):
            ("Protected resource mismatch",
             "The metadata at \(metadataURL) is for \"\(actual)\", not the resource asked for, \"\(expected)\"; nothing was signed in."
                + hint(expected, actual) + " Use the resource's exact URL.",
             "RFC 9728 §3.3")
        case .responseTypeCodeNotSupported:
            ("Code flow not supported", "The server's `response_types_supported` does not contain `code`.", "OpenID Connect Discovery 1.0 §3")
        case .missingField(let name):
            ("Missing field", "The response has no `\(name)`.", nil)
        case .invalidField(let name, let expected):
            ("Invalid field", "`\(name)` is not \(expected).", nil)
        case .malformedJSON(let context):
            ("Malformed response", "The \(context) is not valid JSON of the expected shape.", nil)
        case .duplicateMember(let name, let context):
            ("Duplicate member",
             "The \(context) has the member `\(name)` more than once; it is ambiguous and refused.",
             "RFC 7515 §4, RFC 7519 §4, RFC 8259 §4")
        case .unexpectedContentType(let expected, let actual):
            ("Unexpected content type", "Expected \(expected), got \(actual ?? "none").", nil)
        case .malformedAuthorizationResponse(let reason):
            ("Malformed authorization response", {
                switch reason {
                case .missingCode: "The redirect carried no `code`."
                case .codeAndError: "The redirect carried both `code` and `error`."
                case .repeatedParameter(let name): "The redirect repeated the parameter `\(name)`."
                }
            }(), "RFC 6749 §4.1.2")
        case .redirectPathMismatch(let expected, let actual):
            ("Wrong redirect path", "The response arrived on \(actual), expected \(expected).", "RFC 8252 §8.10")
        case .stateMismatch(_, _, let unverifiedError):
            ("State mismatch", "The `state` returned does not match the request (possible CSRF or a stale browser tab); nothing was"
                + " exchanged or stored." + unverified(unverifiedError) + " Start the sign-in again.", "RFC 6749 §10.12")
        case .authorizationResponseIssuerMismatch(let expected, let actual, let unverifiedError):
            ("Issuer mismatch on redirect",
             "`iss` is \"\(actual)\", expected \"\(expected)\"." + hint(expected, actual) + unverified(unverifiedError),
             "RFC 9207 §2.4")
        case .missingAuthorizationResponseIssuer(let expected, let unverifiedError):
            ("Missing issuer on redirect",
             "The redirect carried no `iss` (expected \"\(expected)\"), which the server advertises, or which authdeck requires of a"
                 + " protected resource's server; nothing was exchanged." + unverified(unverifiedError),
             "RFC 9207 §2.4")
        case .malformedJWT(let reason):
            ("Malformed JWT", "The token is not a compact JWS: \(reason).", "RFC 7515 §7.1")
        case .unsupportedCriticalHeader(let names):
            ("Unsupported critical header", "`crit` lists \(names.joined(separator: ", ")).", "RFC 7515 §4.1.11")
        case .unexpectedJWTType(let typ):
            ("Wrong token type", "The JWT `typ` is \"\(typ)\", not an ID token.", "RFC 8725 §3.11")
        case .nestedJWT(let contentType):
            ("Nested JWT refused", "The JWS header's `cty` is \"\(contentType)\", announcing a nested JWT; authdeck reads only tokens whose"
                + " payload is their claims, so the token is refused.", "RFC 7519 §5.2")
        case .algorithmNotAllowed(let alg, let allowed):
            ("Algorithm not allowed",
             "ID token `alg` is \"\(alg)\"; allowed: \(allowed.joined(separator: ", ")).",
             "OIDC Core §3.1.3.7 step 7; RFC 8725 §3.1")
        case .noMatchingKey(let kid):
            ("No matching key", "No key in the provider's JWKS fits the token" + (kid.map { " (kid \"\($0)\")" } ?? "") + ".", "OIDC Core §10.1")
        case .multipleMatchingKeys(let kid, let count):
            ("Ambiguous key",
             "\(count) keys in the JWKS fit the token" + (kid.map { " (kid \"\($0)\")" } ?? " and it has no kid") + ".",
             "OIDC Core §10.1")
        case .unsupportedKey(let kid, let reason):
            ("Unusable key", "The key" + (kid.map { " \"\($0)\"" } ?? "") + " cannot be used: \(reason).", "RFC 7518 §3")
        case .signatureInvalid(let kid):
            ("Invalid signature",
             "The ID token signature does not verify" + (kid.map { " with key \"\($0)\"" } ?? "") + ".",
             "OIDC Core §3.1.3.7 step 6")
        case .malformedJWKSet(let reason):
            ("Malformed JWKS", "The JWK Set is invalid: \(reason).", "RFC 7517 §5")
        case .missingClaim(let name):
            ("Missing claim", "The ID token has no `\(name)` claim.", "OIDC Core §2")
        case .invalidClaim(let name, let expected):
            ("Invalid claim", "The ID token claim `\(name)` is not \(expected).", "RFC 7519 §4.1")
        case .idTokenIssuerMismatch(let expected, let actual):
            ("ID token issuer mismatch",
             "ID token `iss` is \"\(actual)\", expected \"\(expected)\"." + hint(expected, actual),
             "OIDC Core §3.1.3.7 step 2")
        case .audienceMismatch(let expected, let actual):
            ("Audience mismatch",
             "ID token `aud` is [\(actual.joined(separator: ", "))], expected it to contain \"\(expected)\" and no untrusted audience.",
             "OIDC Core §3.1.3.7 step 3")
        case .azpMismatch(let expected, let actual):
            ("Authorized party mismatch",
             "ID token `azp` is \(actual.map { "\"\($0)\"" } ?? "absent"), expected \"\(expected)\".",
             "OIDC Core §3.1.3.7 steps 4–5")
        case .expired(let exp, let now):
            ("ID token expired", "`exp` is \(iso(exp)), now is \(iso(now)). Check the system clock if this persists.", "OIDC Core §3.1.3.7 step 9")
        case .notYetValid(let nbf, let now):
            ("ID token not yet valid", "`nbf` is \(iso(nbf)), now is \(iso(now)).", "RFC 7519 §4.1.5")
        case .issuedInFuture(let iat, let now):
            ("ID token issued in the future", "`iat` is \(iso(iat)), now is \(iso(now)). Check the system clock.", "OIDC Core §3.1.3.7 step 10")
        case .issuedTooLongAgo(let iat, let now, let maximumAge):
            ("ID token issued too long ago", "`iat` is \(iso(iat)), now is \(iso(now)): more than \(Int(maximumAge / 60)) minutes before,"
                + " so it is not a token minted for this answer (replayed or cached). Check the system clock; if it is right, the provider"
                + " sent an old ID token.", "OIDC Core §3.1.3.7 step 10")
        case .authenticationTooOld(let authTime, let maxAge, let now):
            ("Authentication too old",
             "`auth_time` is \(iso(authTime)), older than max_age \(maxAge) s at \(iso(now)).",
             "OIDC Core §3.1.3.7 step 12")
        case .acrNotSatisfied(let requested, let actual):
            ("Authentication not strong enough",
             "The sign-in asked for `acr` \(requested.joined(separator: " or ")); the ID token's `acr` is "
                + (actual.map { "\($0)" } ?? "absent") + ". Nothing was stored; the provider may not offer that level for this client.",
             "OIDC Core §3.1.2.1, RFC 9470 §3")
        case .nonceMismatch:
            ("Nonce mismatch", "The ID token `nonce` does not match the request (replayed or foreign token).", "OIDC Core §3.1.3.7 step 11")
        case .dpopTokenWithoutProof:
            ("DPoP token without a proof",
             "The provider issued a `DPoP` token to a request that carried no DPoP proof; it is refused (never used as Bearer).",
             "RFC 9449 §5, §7.1")
        case .atHashMismatch:
            ("Access token hash mismatch", "The ID token `at_hash` does not match the access token.", "OIDC Core §3.1.3.8")
        case .refreshedIDTokenSubjectMismatch(let expected, let actual):
            ("Refreshed ID token for another user", "`sub` is \"\(actual)\", expected \"\(expected)\". Sign in again.", "OIDC Core §12.2")
        case .refreshedIDTokenIssuerMismatch(let expected, let actual):
            ("Refreshed ID token from another issuer", "`iss` is \"\(actual)\", expected \"\(expected)\".", "OIDC Core §12.2")
        case .refreshedIDTokenAudienceMismatch(let expected, let actual):
            ("Refreshed ID token for another audience",
             "`aud` is [\(actual.joined(separator: ", "))], the original's was [\(expected.joined(separator: ", "))]. Sign in again.",
             "OIDC Core §12.2")
        case .refreshedIDTokenAuthorizedPartyMismatch(let expected, let actual):
            ("Refreshed ID token for another party",
             "`azp` is \(actual.map { "\"\($0)\"" } ?? "absent"), the original's was \(expected.map { "\"\($0)\"" } ?? "absent"). Sign in again.",
             "OIDC Core §12.2")
        case .refreshedIDTokenAuthTimeMismatch(let expected, let actual):
            ("Refreshed ID token with an earlier authentication time",
             "`auth_time` is \(iso(actual)), before the original authentication at \(iso(expected)). Sign in again.",
             "OIDC Core §12.2")
        case .userInfoSubjectMismatch(let expected, let actual):
            ("UserInfo for another user", "UserInfo `sub` is \"\(actual)\", the ID token's is \"\(expected)\".", "OIDC Core §5.3.2")
        case .userInfoIssuerMismatch(let expected, let actual):
            ("Signed UserInfo from another issuer",
             "The signed UserInfo `iss` is \(actual.map { "\"\($0)\"" } ?? "absent"), expected \"\(expected)\".",
             "OIDC Core §5.3.2")
        case .userInfoAudienceMismatch(let expected, let actual):
            ("Signed UserInfo for another client",
             "The signed UserInfo `aud` is [\(actual.joined(separator: ", "))], expected it to contain \"\(expected)\" and no untrusted audience.",
             "OIDC Core §5.3.2")
        case .endSessionStateMismatch:
            ("Logout not confirmed",
             "The `state` on the post-logout redirect does not match; the provider logout is not confirmed.",
             "OpenID Connect RP-Initiated Logout 1.0 §3")
        }
    }

    /// The `error` code of a response that failed `state`/`iss`, named as unverified (its
    /// description is never shown: it may not be the provider's words).
    private static func unverified(_ code: OAuthErrorCode?) -> String {
        code.map { " The response also carried `error=\($0.rawValue)`, unverified (it may be forged)." } ?? ""
    }

    private static func hint(_ expected: String, _ actual: String) -> String {
        issuerHint(expected: expected, actual: actual).map { " " + $0 } ?? ""
    }

    private static func iso(_ date: Date) -> String {
        Date.ISO8601FormatStyle().format(date)
    }
}
