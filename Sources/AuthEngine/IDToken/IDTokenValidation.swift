import FoundationEssentials

/// The expected `nonce` (OIDC Core §3.1.3.7 step 11). Skipping takes an explicit case.
public enum ExpectedNonce: Sendable, Equatable {
    /// A nonce was sent: the claim must be present and equal.
    case value(String)
    /// No nonce was sent (device flow): the claim is not compared.
    case none
    /// Refresh (OIDC Core §12.2): absent is fine, present must equal the original's.
    case ifPresent(String)
    /// Deliberately not checked.
    case skipCheck
}

/// Whether `at_hash` is checked (OIDC Core §3.1.3.8, §3.2.2.9).
public enum ExpectedAccessTokenHash: Sendable, Equatable {
    /// Check `at_hash` against this access token when the claim is present.
    case accessToken(AccessToken)
    /// Deliberately not checked.
    case skipCheck
}

/// `auth_time` requirements (OIDC Core §3.1.2.1, §3.1.3.7 step 12).
public enum AuthTimeRequirement: Sendable, Equatable {
    /// No `max_age` was requested.
    case notRequested
    /// `max_age` (seconds) was requested: `auth_time` is required and must be recent enough.
    case maxAge(Int)
}

/// `acr` requirements (OIDC Core §3.1.2.1 `acr_values`, §3.1.3.7 step 11 of the 2023 errata set: "If the acr Claim was
/// requested, the Client SHOULD check that the asserted Claim Value is appropriate"; RFC 9470 §3).
public enum ACRRequirement: Sendable, Equatable {
    /// No `acr_values` were requested.
    case notRequested
    /// `acr_values` were requested: `acr` is required and must be one of them, compared code unit for code unit.
    case oneOf([String])
}

/// How long ago an ID token may have been issued (OIDC Core §3.1.3.7 step 10: `iat` "can be
/// used to reject tokens that were issued too far away from the current time"; the range is
/// the client's). Skipping takes an explicit case.
public enum IssuedAtBound: Sendable, Equatable {
    /// `iat` at most this many seconds before now (plus the clock tolerance).
    case atMost(TimeInterval)
    /// Not bounded: a token checked long after it was issued (`authdeck decode --verify`).
    case skipCheck
}

/// Everything an ID token is checked against.
public struct IDTokenValidationOptions: Sendable, Equatable {
    /// The oldest `iat` accepted for a token just received from the provider (sign-in, refresh):
    /// 10 minutes (600 s) before now, plus the clock tolerance. A token endpoint mints its ID token for
    /// the answer it sends, so an older one is a replayed or cached token; 10 minutes leaves
    /// room for a slow clock (AppAuth's `kOIDAuthorizationSessionIATMaxSkew` is the same 600 s).
    public static let maximumIssuedAtAge: TimeInterval = 600

    /// Algorithms the engine verifies: RSA (PKCS#1 v1.5 and PSS), ECDSA, EdDSA. Never `none` or HS*.
    public static let defaultAllowedAlgorithms: Set<JWSAlgorithm> = [
        .rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .es256, .es384, .es512, .edDSA,
    ]

    /// The expected `iss`: the discovery issuer. A literal `{tenantid}` (Entra `common`) is
    /// replaced by the token's `tid` before comparing, only for ``EntraAuthority/loginHosts`` or
    /// with ``multiTenantEntra``.
    public var issuer: String
    /// Treat ``issuer`` as a multi-tenant Entra authority whatever its host.
    public var multiTenantEntra = false
    /// `client_id`: must be in `aud`.
    public var clientID: String
    /// Public clients never accept HS* (no shared secret).
    public var clientIsPublic: Bool
    public var nonce: ExpectedNonce
    public var accessTokenHash: ExpectedAccessTokenHash
    public var authTime: AuthTimeRequirement
    /// `acr` requirement (``ACRRequirement``): set from the pending request's `acr_values`.
    public var acr: ACRRequirement = .notRequested
    /// Clock skew allowed for `exp`, `iat`, `nbf`, `auth_time`, seconds (oauth4webapi's `clockTolerance`); clamped to 0…300. Default 30.
    public var clockTolerance: TimeInterval
    /// Our allow-list; intersected with ``serverAlgorithms``. `none` and HS* are always removed.
    public var allowedAlgorithms: Set<JWSAlgorithm>
    /// `id_token_signing_alg_values_supported` from metadata; nil when not advertised.
    public var serverAlgorithms: [String]?
    /// Audiences besides `client_id` this client trusts (default none, IDT-06).
    public var additionalTrustedAudiences: Set<String>
    /// How old `iat` may be (default ``maximumIssuedAtAge``).
    public var issuedAt: IssuedAtBound = .atMost(IDTokenValidationOptions.maximumIssuedAtAge)

    public init(issuer: String, clientID: String, clientIsPublic: Bool, nonce: ExpectedNonce,
                accessTokenHash: ExpectedAccessTokenHash, authTime: AuthTimeRequirement = .notRequested,
                clockTolerance: TimeInterval = 30, allowedAlgorithms: Set<JWSAlgorithm> = defaultAllowedAlgorithms,
                serverAlgorithms: [String]? = nil, additionalTrustedAudiences: Set<String> = []) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientIsPublic = clientIsPublic
        self.nonce = nonce
        self.accessTokenHash = accessTokenHash
        self.authTime = authTime
        self.clockTolerance = clockTolerance
        self.allowedAlgorithms = allowedAlgorithms
        self.serverAlgorithms = serverAlgorithms
        self.additionalTrustedAudiences = additionalTrustedAudiences
    }

    /// Options for the ID token of an authorization-code exchange.
    public init(metadata: AuthorizationServerMetadata, client: ClientConfiguration, pending: PendingAuthorization, tokens: TokenSet) {
        self.init(issuer: metadata.issuer, clientID: client.clientID, clientIsPublic: client.isPublic,
                  nonce: pending.nonce.map(ExpectedNonce.value) ?? .none, accessTokenHash: .accessToken(tokens.accessToken),
                  authTime: pending.maxAge.map(AuthTimeRequirement.maxAge) ?? .notRequested,
                  serverAlgorithms: metadata.idTokenSigningAlgValuesSupported)
        if let acrValues = pending.acrValues, !acrValues.isEmpty { acr = .oneOf(acrValues) }
        trust(client)
    }

    /// Options for a signed UserInfo response (OIDC Core §5.3.2): the issuer, the client id and
    /// its trusted audiences, the allow-list of algorithms (no server list: discovery's
    /// `userinfo_signing_alg_values_supported` is not read); nonce and `at_hash` do not apply.
    public init(signedUserInfoFor metadata: AuthorizationServerMetadata, client: ClientConfiguration) {
        self.init(issuer: metadata.issuer, clientID: client.clientID, clientIsPublic: client.isPublic, nonce: .skipCheck, accessTokenHash: .skipCheck)
        trust(client)
    }

    /// Takes the client's trusted audiences and Entra marking (every client-based init does).
    mutating func trust(_ client: ClientConfiguration) {
        additionalTrustedAudiences = client.additionalTrustedAudiences
        multiTenantEntra = client.multiTenantEntra
    }

    /// The algorithms actually accepted: allow-list ∩ advertised, without `none` and HS*.
    public var effectiveAlgorithms: [JWSAlgorithm] {
        let refused: Set<JWSAlgorithm> = [.none, .hs256, .hs384, .hs512]
        var result = allowedAlgorithms.subtracting(refused)
        if let serverAlgorithms { result = result.filter { serverAlgorithms.containsExactly($0.rawValue) } }
        return result.sorted { $0.rawValue < $1.rawValue }
    }

    var clampedClockTolerance: TimeInterval { min(max(clockTolerance, 0), 300) }

    /// The `iss` a token must carry: ``issuer``, with Entra's `{tenantid}` replaced by the
    /// token's `tid` (only on Microsoft login hosts or with ``multiTenantEntra``).
    /// - Throws: `.protocolViolation(.missingClaim("tid"))` when it is needed and absent.
    func expectedIssuer(tenantID: String?) throws(AuthError) -> String {
        guard issuer.contains("{tenantid}"), multiTenantEntra || EntraAuthority.isLoginHost(issuer) else { return issuer }
        guard let tenantID else { throw .protocolViolation(.missingClaim("tid")) }
        return issuer.replacing("{tenantid}", with: tenantID)
    }

    /// OIDC Core §3.1.3.7 step 3 (and §5.3.2): `aud` contains the client id and no audience
    /// besides it and ``additionalTrustedAudiences``.
    func acceptsAudience(_ audience: [String]) -> Bool {
        let trusted = Array(additionalTrustedAudiences) + [clientID]
        return audience.containsExactly(clientID) && audience.allSatisfy { trusted.containsExactly($0) }
    }
}

/// An ID token whose signature and claims passed every check.
public struct VerifiedIDToken: Sendable, Equatable {
    public var raw: RawIDToken
    public var header: JOSEHeader
    public var claims: IDTokenClaims
    /// The JWKS key that verified the signature.
    public var verifiedWith: JWK

    public init(raw: RawIDToken, header: JOSEHeader, claims: IDTokenClaims, verifiedWith: JWK) {
        self.raw = raw
        self.header = header
        self.claims = claims
        self.verifiedWith = verifiedWith
    }
}

/// Steps before the key lookup: compact JWS (a JWE is refused), `typ` (RFC 8725 §3.11: absent
/// or `JWT`), no `cty: "JWT"` (RFC 7519 §5.2: it announces a nested JWT, and an ID token's
/// payload is its claims), and `alg` on the effective allow-list (OIDC Core §3.1.3.7 step 7).
/// - Throws: `.unsupported(.encryptedIDToken)`, `.protocolViolation(.malformedJWT /
///   .unsupportedCriticalHeader / .unexpectedJWTType / .nestedJWT / .algorithmNotAllowed)`.
public func decodeIDToken(_ raw: RawIDToken, options: IDTokenValidationOptions) throws(AuthError) -> (jws: CompactJWS, algorithm: JWSAlgorithm) {
    let jws = try CompactJWS(parsing: raw.exposedValue)
    if let typ = jws.header.type, !["jwt", "application/jwt"].contains(where: { typ.equalsIgnoringASCIICase($0) }) {
        throw .protocolViolation(.unexpectedJWTType(typ))
    }
    if let cty = jws.header.members["cty"], cty != .null {
        // RFC 7515 §4.1.10: a string; "JWT" (RFC 7519 §5.2, compared as a media type) means nested.
        guard let text = cty.stringValue else { throw .protocolViolation(.malformedJWT(reason: "cty is not a string")) }
        if ["jwt", "application/jwt"].contains(where: { text.equalsIgnoringASCIICase($0) }) {
            throw .protocolViolation(.nestedJWT(contentType: text))
        }
    }
    let allowed = options.effectiveAlgorithms
    guard let algorithm = JWSAlgorithm(exactRawValue: jws.header.algorithm), allowed.contains(algorithm) else {
        throw .protocolViolation(.algorithmNotAllowed(alg: jws.header.algorithm, allowed: allowed.map(\.rawValue)))
    }
    return (jws, algorithm)
}

/// Validates an ID token against a key set (OIDC Core §3.1.3.7): JWS shape, `typ`, `alg`,
/// key candidates (``verificationKeyCandidates(in:header:algorithm:)``), the signature
/// (through `crypto`) with each candidate until one verifies (key rollover: two keys under one
/// `kid`), then the claim rules of ``validateIDTokenClaims(_:options:crypto:now:algorithm:)``.
public func validateIDToken(_ raw: RawIDToken, keys: JWKSet, options: IDTokenValidationOptions, crypto: CryptoProvider,
                            now: Date) throws(AuthError) -> VerifiedIDToken {
    let (jws, algorithm) = try decodeIDToken(raw, options: options)
    let candidates = try verificationKeyCandidates(in: keys, header: jws.header, algorithm: algorithm)
    let key = try verifySignature(jws, algorithm: algorithm, candidates: candidates, options: options, crypto: crypto)
    return try verifyClaims(raw, jws: jws, algorithm: algorithm, key: key, options: options, crypto: crypto, now: now)
}

/// The first candidate whose signature verifies (OIDC Core §3.1.3.7 step 6).
/// - Throws: `.protocolViolation(.signatureInvalid)` when some candidate was usable but none
///   verified; otherwise the first candidate's `.unsupportedKey` / `.algorithmNotAllowed`.
func verifySignature(_ jws: CompactJWS, algorithm: JWSAlgorithm, candidates: [JWK], options: IDTokenValidationOptions,
                     crypto: CryptoProvider) throws(AuthError) -> JWK {
    var firstError: AuthError?
    var invalidSignature: AuthError?
    for key in candidates {
        do {
            try crypto.verifySignature(algorithm, key, jws.signingInput, jws.signature)
            return key
        } catch {
            let mapped: AuthError = switch error {
            case .invalidSignature: .protocolViolation(.signatureInvalid(kid: key.keyID))
            case .unusableKey(let reason): .protocolViolation(.unsupportedKey(kid: key.keyID, reason: reason))
            case .unsupportedAlgorithm(let alg):
                .protocolViolation(.algorithmNotAllowed(alg: alg.rawValue, allowed: options.effectiveAlgorithms.map(\.rawValue)))
            }
            if case .invalidSignature = error, invalidSignature == nil { invalidSignature = mapped }
            if firstError == nil { firstError = mapped }
        }
    }
    throw invalidSignature ?? firstError ?? .protocolViolation(.noMatchingKey(kid: jws.header.keyID))
}

/// The signature and claim steps with a chosen key.
public func verifyIDToken(_ raw: RawIDToken, jws: CompactJWS, algorithm: JWSAlgorithm, key: JWK, options: IDTokenValidationOptions,
                          crypto: CryptoProvider, now: Date) throws(AuthError) -> VerifiedIDToken {
    let verifiedWith = try verifySignature(jws, algorithm: algorithm, candidates: [key], options: options, crypto: crypto)
    return try verifyClaims(raw, jws: jws, algorithm: algorithm, key: verifiedWith, options: options, crypto: crypto, now: now)
}

/// The claim steps after the signature verified with `key`.
func verifyClaims(_ raw: RawIDToken, jws: CompactJWS, algorithm: JWSAlgorithm, key: JWK, options: IDTokenValidationOptions,
                  crypto: CryptoProvider, now: Date) throws(AuthError) -> VerifiedIDToken {
    let claims = try IDTokenClaims(payload: jws.payload)
    try validateIDTokenClaims(claims, options: options, crypto: crypto, now: now, algorithm: algorithm)
    return VerifiedIDToken(raw: raw, header: jws.header, claims: claims, verifiedWith: key)
}

/// The claim rules of OIDC Core §3.1.3.7, each its own typed failure:
/// step 2 `iss` exact (Entra `{tenantid}` ← `tid`); step 3 `aud` contains `client_id` and no
/// untrusted audience; steps 4–5 `azp` = `client_id` when present, required with several
/// audiences; step 9 `exp`; step 10 `iat` not in the future, nor older than
/// ``IDTokenValidationOptions/issuedAt`` allows; RFC 7519 §4.1.5 `nbf`;
/// step 11 `nonce`; step 12 `auth_time` with `max_age`; `acr` one of the requested `acr_values`; §3.1.3.8 `at_hash` when present.
public func validateIDTokenClaims(_ claims: IDTokenClaims, options: IDTokenValidationOptions, crypto: CryptoProvider,
                                  now: Date, algorithm: JWSAlgorithm) throws(AuthError) {
    let expectedIssuer = try options.expectedIssuer(tenantID: claims.tenantID)
    guard claims.issuer.exactlyEquals(expectedIssuer) else {
        throw .protocolViolation(.idTokenIssuerMismatch(expected: expectedIssuer, actual: claims.issuer))
    }
    guard options.acceptsAudience(claims.audience) else {
        throw .protocolViolation(.audienceMismatch(expected: options.clientID, actual: claims.audience))
    }
    if claims.audience.count > 1 || claims.authorizedParty != nil {
        guard claims.authorizedParty.exactlyEquals(options.clientID) else {
            throw .protocolViolation(.azpMismatch(expected: options.clientID, actual: claims.authorizedParty))
        }
    }
    let tolerance = options.clampedClockTolerance
    if now.timeIntervalSince(claims.expiresAt) > tolerance {
        throw .protocolViolation(.expired(exp: claims.expiresAt, now: now))
    }
    if claims.issuedAt.timeIntervalSince(now) > tolerance {
        throw .protocolViolation(.issuedInFuture(iat: claims.issuedAt, now: now))
    }
    if case .atMost(let maximumAge) = options.issuedAt, now.timeIntervalSince(claims.issuedAt) > maximumAge + tolerance {
        throw .protocolViolation(.issuedTooLongAgo(iat: claims.issuedAt, now: now, maximumAge: maximumAge))
    }
    if let nbf = claims.notBefore, nbf.timeIntervalSince(now) > tolerance {
        throw .protocolViolation(.notYetValid(nbf: nbf, now: now))
    }
    switch options.nonce {
    case .value(let expected):
        guard claims.nonce.exactlyEquals(expected) else { throw .protocolViolation(.nonceMismatch(expected: expected, actual: claims.nonce)) }
    case .ifPresent(let expected):
        if let actual = claims.nonce, !actual.exactlyEquals(expected) { throw .protocolViolation(.nonceMismatch(expected: expected, actual: actual)) }
    case .none, .skipCheck:
        break
    }
    if case .maxAge(let maxAge) = options.authTime {
        guard let authTime = claims.authTime else { throw .protocolViolation(.missingClaim("auth_time")) }
        if now.timeIntervalSince(authTime) > TimeInterval(maxAge) + tolerance {
            throw .protocolViolation(.authenticationTooOld(authTime: authTime, maxAge: maxAge, now: now))
        }
    }
    if case .oneOf(let requested) = options.acr {
        guard let acr = claims.authenticationContextClassReference, requested.containsExactly(acr) else {
            throw .protocolViolation(.acrNotSatisfied(requested: requested, actual: claims.authenticationContextClassReference))
        }
    }
    if case .accessToken(let accessToken) = options.accessTokenHash, let atHash = claims.accessTokenHash {
        guard let digestAlgorithm = algorithm.digest else { throw .protocolViolation(.atHashMismatch) }
        let digest = crypto.digest(digestAlgorithm, Data(accessToken.exposedValue.utf8))
        guard Base64URL.encode(digest.prefix(digest.count / 2)).exactlyEquals(atHash) else { throw .protocolViolation(.atHashMismatch) }
    }
}

/// Microsoft Entra ID's multi-tenant authorities (`common`, `organizations`): their discovery
/// `issuer` holds a literal `{tenantid}`, which is the token's `tid`
/// (https://learn.microsoft.com/en-us/entra/identity-platform/access-tokens#validate-the-issuer).
public enum EntraAuthority {
    /// The login hosts of the Microsoft clouds (public, US Government, China).
    public static let loginHosts = [
        "login.microsoftonline.com", "login.microsoftonline.us", "login.partner.microsoftonline.cn", "login.chinacloudapi.cn",
    ]

    /// Whether `issuer` is an `https` URL on one of ``loginHosts`` (exact, lower-case host).
    public static func isLoginHost(_ issuer: String) -> Bool {
        guard let components = URLComponents(string: issuer.replacing("{tenantid}", with: "tenantid")),
              components.scheme == "https", let host = components.host else { return false }
        return loginHosts.containsExactly(host)
    }

    /// The discovery issuer a multi-tenant authority answers: `…/common/v2.0` or
    /// `…/organizations/v2.0` with that segment as `{tenantid}`; nil for any other issuer.
    public static func templateIssuer(for issuer: String) -> String? {
        for segment in ["/common/", "/organizations/"] where issuer.contains(segment) {
            return issuer.replacing(segment, with: "/{tenantid}/")
        }
        return nil
    }
}
