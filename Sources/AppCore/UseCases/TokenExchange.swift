import AuthEngine
import CredentialStore
import FoundationEssentials
import QuickToken

/// Token exchange (RFC 8693): a token for another audience or resource, obtained with the
/// account's own token as `subject_token` at its provider's token endpoint, with the provider's
/// client authentication. The exchanged token is stored like a per-resource token, under
/// ``TokenAudience/exchangeKey(_:)``, and renewed through ``RefreshAccount`` (the lock, one
/// request for any number of callers), which asks this type for the request.
///
/// The subject is the account's access token, or its ID token when an ID-JAG is requested
/// (draft-ietf-oauth-identity-assertion-authz-grant §4.3: `subject_token_type` id_token).
struct TokenExchange: Sendable {
    let env: AppEnvironment
    init(_ env: AppEnvironment) { self.env = env }

    /// Whether `target` takes the ID token as its subject.
    static func takesIDToken(_ target: TokenExchangeTarget) -> Bool {
        target.requestedTokenType.map { $0.utf8.elementsEqual(TokenTypeIdentifier.idJAG.utf8) } ?? false
    }

    /// The exchange request, its subject read from `secrets` (read under the lock) and its client
    /// authentication made now (a fresh assertion, a federated one read now).
    /// - Throws: ``AppError`` when the account holds no subject token; request and assertion errors.
    func request(_ target: TokenExchangeTarget, secrets: AccountSecrets, record: AccountRecord, provider: ProviderConfig,
                 metadata: AuthorizationServerMetadata, client: ClientConfiguration) async throws -> HTTPRequest {
        let subject: SubjectToken
        if Self.takesIDToken(target) {
            guard let idToken = secrets.idToken else {
                throw AppError(title: "\(record.displayName) has no ID token to exchange",
                               detail: "An ID-JAG is exchanged for the account's ID token; sign in with the openid scope:"
                                   + " authdeck login \(record.providerID).", disposition: .needsSignIn)
            }
            subject = .idToken(RawIDToken(idToken.exposedValue))
        } else {
            guard let accessToken = secrets.defaultAccessToken else {
                throw AppError(title: "\(record.displayName) has no access token to exchange",
                               detail: "Sign in: authdeck login \(record.providerID).", disposition: .needsSignIn)
            }
            subject = .accessToken(AccessToken(accessToken.token.exposedValue))
        }
        let client = try await ClientCredentials(env).authenticated(client, provider: provider, metadata: metadata)
        var request = try makeTokenExchangeRequest(metadata: metadata, client: client, subject: subject, target: target)
        request.timeout = RefreshAccount.requestTimeout
        return request
    }

    /// What a refused exchange means (RFC 8693 §2.2.2), added to `error`'s detail.
    static func hint(_ error: inout AppError, authError: AuthError, target: TokenExchangeTarget, record: AccountRecord) {
        guard case .errorResponse(let response) = authError else { return }
        let what = target.resource ?? target.audience ?? ""
        let how: String
        switch response.code {
        case .invalidTarget:
            how = "The provider issues no token for \(what) to this client by token exchange: check the name, or ask its administrator"
                + " to allow the exchange."
            error.specReference = "RFC 8693 §2.2.2"
        case .unsupportedGrantType:
            how = "The provider does not do token exchange (RFC 8693) for this client."
        case .invalidRequest, .invalidGrant:
            how = "The provider refused the exchange of \(record.displayName)'s token for \(what): the subject token is not one it takes,"
                + " or the request is not one it supports."
        default:
            return
        }
        error.detail += (error.detail.isEmpty ? "" : " ") + how
    }
}

extension TokenForScripts {
    /// A token exchanged for `target` (RFC 8693), valid for at least `minimumValidity`: the
    /// stored one while it stays fresh (no network), else the account's subject token made fresh
    /// (its own refresh) and then exchanged through ``RefreshAccount`` under the account's lock.
    /// - Throws: `.needsSignIn` (no grant), the exchange's refusal (`invalid_target` …, named), store errors.
    public func exchangedToken(_ record: AccountRecord, for target: TokenExchangeTarget, minimumValidity: Duration,
                               notices: (@Sendable (RefreshNotice) -> Void)? = nil) async throws(AppError) -> Issued<AccessToken> {
        if record.needsSignInSince != nil { throw Accounts.needsSignIn(record) }
        let key = TokenAudience.exchangeKey(target)
        let stored: StoredAccessTokenEntry?
        do { stored = try env.credentials.store().load(Accounts.key(record)).accessToken(for: key) } catch { throw ErrorMapping.appError(error) }
        let fresh = stored.map {
            TokenFreshness.isFresh(expiresAt: $0.expiresAt?.timeIntervalSince1970, now: env.now().timeIntervalSince1970,
                                   validity: minimumValidity.timeInterval)
        } ?? false
        if !fresh {
            // The subject must be alive when the provider reads it.
            if TokenExchange.takesIDToken(target) {
                _ = try await idToken(record.id, minimumValidity: .seconds(30), notices: notices)
            } else {
                _ = try await accessToken(record.id, minimumValidity: .seconds(30), notices: notices)
            }
        }
        return try await accessToken(record.id, minimumValidity: minimumValidity, resource: key, notices: notices)
    }
}
