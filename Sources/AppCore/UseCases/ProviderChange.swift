import AuthEngine
import CredentialStore
import FoundationEssentials

/// Changing a saved provider in place (`provider set`): its accounts and their tokens stay.
extension ProviderAdmin {
    /// Why a change would leave a provider's signed-in accounts with grants nothing can use: their
    /// refresh tokens were issued by one authorization server to one client (RFC 6749 §6: the
    /// refresh token is bound to the client it was issued to; §10.4), so neither may change under them.
    /// - Returns: what changes, in words ("its issuer https://a → https://b"), or nil when the
    ///   grants' authorization server and client stay: the issuer (or, without one, the token
    ///   endpoint) and the client id, compared code unit for code unit.
    public static func grantChange(from old: ProviderConfig, to new: ProviderConfig) -> String? {
        func text(_ url: URL?) -> String { url?.absoluteString ?? "none" }
        if !(old.issuer?.absoluteString).exactlyEquals(new.issuer?.absoluteString) {
            return "its issuer \(text(old.issuer)) → \(text(new.issuer))"
        }
        if old.issuer == nil, !(old.endpoints.token?.absoluteString).exactlyEquals(new.endpoints.token?.absoluteString) {
            return "its token endpoint \(text(old.endpoints.token)) → \(text(new.endpoints.token))"
        }
        if !old.clientID.exactlyEquals(new.clientID) { return "its client id \(old.clientID) → \(new.clientID)" }
        return nil
    }

    /// Replaces the saved provider `changed.id` with `changed` after the same checks and probe as
    /// ``add(_:clientSecret:probe:)``; a given `clientSecret` replaces the stored one (a
    /// registration access token beside it stays). Accounts, their tokens and aliases stay; what
    /// changed applies from their next sign-in or refresh. The cached discovery and JWKS are dropped.
    /// - Throws: ``AppError`` `.usage` for an unknown provider; for a change of the grants'
    ///   authorization server or client (``grantChange(from:to:)``) while accounts are signed in,
    ///   naming them and the next step; for a confidential client with no secret stored or given;
    ///   the probe's failure (nothing changed); store and file errors.
    public func change(_ changed: ProviderConfig, clientSecret: ClientSecret?, probe: ProviderProbeChoice) async throws(AppError) {
        let old = try ProviderAccess(env: env).provider(changed.id)
        let accounts = try env.files.accounts().filter { $0.providerID == changed.id }
        if let change = Self.grantChange(from: old, to: changed), !accounts.isEmpty {
            let names = accounts.map { "\($0.providerID.rawValue)/\($0.username ?? $0.subject)" }
            let one = accounts.count == 1
            throw AppError(
                title: "Provider '\(changed.id)' not changed: \(change) would leave \(accounts.count) signed-in account\(one ? "" : "s")"
                    + " (\(names.joined(separator: ", "))) with grants nothing can refresh or revoke",
                detail: "Their tokens were issued by \(Self.server(old)) to client \(old.clientID). Log \(one ? "it" : "them") out first ("
                    + names.map { "'authdeck logout \($0)'" }.joined(separator: ", ") + "), or add another provider with"
                    + " 'authdeck provider add NAME …' and sign in there.",
                disposition: .usage)
        }
        if changed.needsClientSecret && clientSecret == nil && old.clientAuthentication == .none {
            throw AppError(title: "Provider '\(changed.id)' not changed: client authentication \(changed.clientAuthentication.rawValue)"
                               + " needs the client secret, and none is stored",
                           detail: "Give the secret with the change (the CLI: --client-secret-stdin).", disposition: .usage)
        }
        if probe == .discovery { try await self.probe(changed, action: "changed") }
        if let clientSecret {
            do {
                let store = try env.credentials.store()
                var secrets = try store.loadIfPresent(.providerClient(changed.id.rawValue)) ?? AccountSecrets()
                secrets.clientSecret = StoredClientSecret(clientSecret.exposedValue)
                try store.save(secrets, for: .providerClient(changed.id.rawValue))
            } catch {
                throw ErrorMapping.appError(error)
            }
        }
        try env.files.saveProvider(changed)
        env.cache.remove(changed.id)
    }

    private static func server(_ provider: ProviderConfig) -> String {
        provider.issuer?.absoluteString ?? provider.endpoints.token?.absoluteString ?? "its authorization server"
    }
}
