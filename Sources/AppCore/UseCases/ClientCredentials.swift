import AuthEngine
import CredentialStore
import FoundationEssentials

/// Machine accounts (RFC 6749 §4.4): `authdeck login NAME` for a provider with
/// ``ProviderConfig/clientCredentials`` takes a token by the client credentials grant, with no
/// browser; the account is the client (subject and username: its `client_id`). There is no refresh
/// token (§4.4.3): ``RefreshAccount`` renews the token with another request of this grant, under
/// the same lock and single flight as a refresh, with client authentication made fresh for each
/// request (a new `private_key_jwt` assertion, RFC 7523 §2.2).
struct ClientCredentials: Sendable {
    let env: AppEnvironment
    init(_ env: AppEnvironment) { self.env = env }

    /// The first token of a machine account, stored as a sign-in's.
    /// - Throws: `.usage` for `--audience`/`--resource` given at login (a machine account's are the
    ///   provider's, asked for again on every renewal); the token endpoint's errors; store errors.
    func signIn(_ request: SignInRequest, provider: ProviderConfig, metadata: AuthorizationServerMetadata,
                client: ClientConfiguration) async throws(AppError) -> SignInOutcome {
        guard request.audience == nil, request.resources.isEmpty else {
            throw AppError(title: "'\(provider.id)' is a machine provider: its audience and resources are the provider's",
                           detail: "Set them with 'authdeck provider add \(provider.id) … --audience/--resource', or ask for a token for one"
                               + " resource with 'authdeck token \(provider.id) --resource URI'.", disposition: .usage)
        }
        let scopes = ScopeSet(provider.scopes).adding(ScopeSet(request.extraScopes))
        do {
            let client = try await authenticated(client, provider: provider, metadata: metadata)
            let tokens = try await requestToken(provider: provider, metadata: metadata, client: client, scopes: scopes.values, resource: nil)
            return try await SignIn(env).finish(provider: provider, metadata: metadata, client: client, alias: request.alias,
                                                requestedScopes: scopes, tokens: tokens, idToken: nil, machine: true)
        } catch {
            throw BareStatusAdvice.advise(error, at: .refresh(provider: provider.id))
        }
    }

    /// The token request of a machine account, its client authentication made now: the record's
    /// scopes, and `resource` (RFC 8707) for a per-resource token, else the provider's
    /// `audience` and `resources`.
    /// - Throws: key and signing errors (``ClientKeys``), a federated assertion's (``FederatedAssertion``), request errors.
    func renewalRequest(_ record: AccountRecord, provider: ProviderConfig, metadata: AuthorizationServerMetadata,
                        resource: String?) async throws -> HTTPRequest {
        let client = try await authenticated(ProviderAccess(env: env).client(provider, metadata: metadata), provider: provider, metadata: metadata)
        return try makeRequest(provider: provider, metadata: metadata, client: client, scopes: record.requestedScopes, resource: resource)
    }

    /// `client` with a federated assertion read now when the provider names a source.
    func authenticated(_ client: ClientConfiguration, provider: ProviderConfig,
                               metadata: AuthorizationServerMetadata) async throws(AppError) -> ClientConfiguration {
        guard let source = provider.clientCredentials?.assertionSource else { return client }
        var client = client
        client.authentication = .clientAssertion(try await FederatedAssertion(env).read(source, metadata: metadata))
        return client
    }

    private func makeRequest(provider: ProviderConfig, metadata: AuthorizationServerMetadata, client: ClientConfiguration, scopes: [String],
                             resource: String?) throws(AuthError) -> HTTPRequest {
        var request = try makeClientCredentialsRequest(metadata: metadata, client: client, scopes: scopes,
                                                       audience: resource == nil ? provider.audience : nil,
                                                       resources: resource.map { [$0] } ?? provider.resources)
        request.timeout = RefreshAccount.requestTimeout
        return request
    }

    private func requestToken(provider: ProviderConfig, metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                              scopes: [String], resource: String?) async throws -> TokenSet {
        let request = try makeRequest(provider: provider, metadata: metadata, client: client, scopes: scopes, resource: resource)
        let response: HTTPResponse
        do { response = try await env.http(provider).send(request) } catch { throw AuthError.transport(error) }
        let parsed = try parseTokenResponse(response, now: env.now())
        return TokenSet(response: parsed, requestedScopes: scopes, now: env.now())
    }
}
