import AuthEngine
import CredentialStore
import FoundationEssentials

/// `authdeck login PROVIDER --code CODE`: an authorization code that an app or a web page
/// obtained (Sign in with Apple accepts only registered https redirect URIs, never a loopback
/// one) is exchanged here, with the identity token the app got and Apple's one-time `user` JSON.
public struct CodeHandoverRequest: Equatable, Sendable {
    /// How the token's `nonce` claim is checked.
    public enum Nonce: Equatable, Sendable {
        /// No nonce was sent: the claim is not compared.
        case none
        /// The claim itself.
        case value(String)
        /// A raw nonce whose SHA-256 (lowercase hex) is the claim (native Apple apps).
        case sha256Of(String)
    }

    public var providerID: ProviderID
    public var code: AuthorizationCode
    /// The identity token the app received with the code, checked like the token endpoint's.
    public var idToken: RawIDToken?
    /// Apple's `user` JSON (`{"name":{"firstName","lastName"},"email"}`), sent only the first time.
    public var userJSON: String?
    public var nonce: Nonce
    /// The `redirect_uri` of the authorization request, when it had one (web flows).
    public var redirectURI: String?
    public var alias: String?

    public init(providerID: ProviderID, code: AuthorizationCode, idToken: RawIDToken? = nil, userJSON: String? = nil,
                nonce: Nonce = .none, redirectURI: String? = nil, alias: String? = nil) {
        self.providerID = providerID
        self.code = code
        self.idToken = idToken
        self.userJSON = userJSON
        self.nonce = nonce
        self.redirectURI = redirectURI
        self.alias = alias
    }
}

/// What a sign-in learned about the user besides the ID token's standard claims: Sign in with
/// Apple's one-time `user` JSON and its boolean-or-string email flags.
struct IdentitySupplement: Equatable, Sendable {
    var name: String?
    var email: String?

    /// Apple's `user` form field / app value: `{"name":{"firstName":…,"lastName":…},"email":…}`
    /// (Sign in with Apple JS, "Incorporating Sign in with Apple into other platforms").
    /// - Throws: a `.usage` ``AppError`` when it is not such a JSON object.
    static func appleUser(_ json: String) throws(AppError) -> IdentitySupplement {
        guard case .success(let object) = parseJSONObject(Data(json.utf8)) else {
            throw AppError(title: "The user JSON is not a JSON object",
                           detail: "Pass Apple's one-time user value as is, e.g. "
                               + #"{"name":{"firstName":"Jane","lastName":"Appleseed"},"email":"…"}."#,
                           disposition: .usage)
        }
        var parts: [String] = []
        if case .object(let name)? = object["name"] {
            parts = ["firstName", "lastName"].compactMap { name[$0]?.stringValue }.filter { !$0.isEmpty }
        }
        return IdentitySupplement(name: parts.isEmpty ? nil : parts.joined(separator: " "), email: object["email"]?.stringValue)
    }
}

/// The identity a record keeps: the ID token's claims first, then what came with this sign-in
/// (Apple's `user` JSON), then the earlier record's (Apple sends name and email only on the first
/// sign-in). `booleanStringClaims` names the claims read as a boolean or the string "true"/"false"
/// (`ProviderConfig.booleanStringClaims`); any other claim counts only as a JSON boolean (UI-08).
enum RecordIdentity {
    struct Result: Equatable {
        var displayName: String
        var email: String?
        var emailVerified: Bool?
        var isPrivateEmail: Bool?
    }

    /// - Throws: `.protocolViolation(.invalidClaim)` for a flexible claim that is neither.
    static func merge(claims: [String: JSONValue], subject: String, supplement: IdentitySupplement?, previous: AccountRecord?,
                      booleanStringClaims: [String]) throws(AuthError) -> Result {
        func flag(_ name: String) throws(AuthError) -> Bool? {
            if booleanStringClaims.containsExactly(name) { return try booleanOrStringClaim(name, in: claims) }
            if case .bool(let flag)? = claims[name] { return flag }
            return nil
        }
        let nameClaim = ["name", "preferred_username"].lazy.compactMap { claims[$0]?.stringValue }.first { !$0.isEmpty }
        let previousName = previous.flatMap { $0.displayName.utf8.elementsEqual(subject.utf8) ? nil : $0.displayName }
        let email = claims["email"]?.stringValue ?? supplement?.email ?? previous?.email
        let displayName = nameClaim ?? supplement?.name ?? previousName ?? email.flatMap { $0.isEmpty ? nil : $0 } ?? subject
        let hasEmailClaim = claims["email"]?.stringValue != nil
        // The earlier flags describe the earlier email only: an address from the user JSON is never verified by them.
        let kept = previous.flatMap { record in email.flatMap { record.email?.utf8.elementsEqual($0.utf8) } } == true ? previous : nil
        return Result(displayName: displayName, email: email,
                      emailVerified: hasEmailClaim ? try flag("email_verified") : kept?.emailVerified,
                      isPrivateEmail: hasEmailClaim ? try flag("is_private_email") : kept?.isPrivateEmail)
    }
}

/// Exchanges a handed-over authorization code (``CodeHandoverRequest``), validates the identity
/// tokens (``SignIn/validateIdentityToken``) and stores the account like any sign-in.
public struct SignInWithCode: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// - Throws: ``AppError``: a provider without a client secret (Apple's token endpoint needs
    ///   the client-secret JWT), the engine's errors (an ID token that fails a rule, `invalid_grant`
    ///   for a spent code), a `.usage` error for bad user JSON, an app token for another `sub`.
    public func run(_ request: CodeHandoverRequest) async throws(AppError) -> SignInOutcome {
        let access = ProviderAccess(env: env)
        let provider = try access.provider(request.providerID)
        guard provider.clientAuthentication != .none else {
            throw AppError(title: "'\(provider.id)' has no client secret",
                           detail: "Exchanging a handed-over code needs the client secret (for Apple, the client-secret JWT): "
                               + "authdeck provider add \(provider.id) --preset \(provider.preset ?? "…") --client-id … --client-secret-stdin",
                           specReference: "RFC 6749 §2.3.1", disposition: .usage)
        }
        let supplement = try request.userJSON.map { json throws(AppError) in try IdentitySupplement.appleUser(json) }
        let metadata = try await access.metadata(provider)
        let client = try access.client(provider, metadata: metadata)
        try env.credentials.prepareForWrite()
        let expected: ExpectedNonce = switch request.nonce {
        case .none: .none
        case .value(let value): .value(value)
        case .sha256Of(let raw): .value(sha256HexNonce(raw, crypto: env.crypto))
        }
        let signIn = SignIn(env)
        do {
            let appToken = try await request.idToken.asyncMap { raw in
                try await signIn.validateIdentityToken(raw, provider: provider, metadata: metadata, client: client, nonce: expected, accessToken: nil)
            }
            let tokens = try await exchangeHandedOverCode(
                metadata: metadata, client: client, code: request.code, redirectURI: request.redirectURI,
                requestedScopes: provider.scopes, http: env.http(provider), now: env.now())
            guard let rawIDToken = tokens.idToken else { throw AuthError.protocolViolation(.missingField("id_token")) }
            let verified = try await signIn.validateIdentityToken(
                rawIDToken, provider: provider, metadata: metadata, client: client, nonce: expected, accessToken: tokens.accessToken)
            if let appToken, !appToken.claims.subject.utf8.elementsEqual(verified.claims.subject.utf8) {
                throw AppError(title: "The app's identity token names another user",
                               detail: "Its sub is not the one of the token endpoint's ID token; nothing was stored.",
                               specReference: "OIDC Core §3.1.3.7")
            }
            // The app's token carries what the exchange's may not (email, real_user_status).
            let idToken = appToken.map { app in merging(app, into: verified) } ?? verified
            return try await signIn.finish(provider: provider, metadata: metadata, client: client, alias: request.alias,
                                           requestedScopes: ScopeSet(provider.scopes), tokens: tokens, idToken: idToken, supplement: supplement)
        } catch let error as AuthError where error.invalidatesGrant && request.redirectURI == nil {
            // Apple refuses a web page's code unless the exchange repeats its redirect_uri (RFC 6749 §4.1.3).
            var refused = ErrorMapping.appError(error)
            refused.nextStep = "If the code came from a web page (Sign in with Apple JS), exchange a new one with the return URL"
                + " its authorization request named: add --redirect-uri URI (and --nonce NONCE). A code from an app needs neither."
            throw refused
        } catch {
            throw ErrorMapping.appError(error)
        }
    }

    /// The exchange's verified token with the claims only the app's verified token has.
    private func merging(_ app: VerifiedIDToken, into verified: VerifiedIDToken) -> VerifiedIDToken {
        var result = verified
        for (name, value) in app.claims.all where result.claims.all[name] == nil { result.claims.all[name] = value }
        return result
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}

extension SignIn {
    /// An ID token checked as OIDC Core §3.1.3.7 and Apple's "Verifying a user" list: the JWKS
    /// signature, `iss` = the provider's issuer, `aud` = the client id (the Services ID), `exp`,
    /// `iat` not in the future, `sub` present, `nonce` (the SHA-256 hex when the app hashed it),
    /// `at_hash` when present and an access token came with it.
    /// - Throws: the ``AuthError`` of the first rule that failed.
    func validateIdentityToken(_ raw: RawIDToken, provider: ProviderConfig, metadata: AuthorizationServerMetadata,
                               client: ClientConfiguration, nonce: ExpectedNonce,
                               accessToken: AccessToken?) async throws(AuthError) -> VerifiedIDToken {
        let options = IDTokenValidationOptions(
            issuer: metadata.issuer, clientID: client.clientID, clientIsPublic: client.isPublic, nonce: nonce,
            accessTokenHash: accessToken.map(ExpectedAccessTokenHash.accessToken) ?? .skipCheck,
            serverAlgorithms: metadata.idTokenSigningAlgValuesSupported)
        return try await AuthEngine.validateIDToken(raw, options: options, crypto: env.crypto, now: env.now(),
                                                    jwksCache: ProviderAccess(env: env).jwksCache(provider, metadata: metadata))
    }
}
