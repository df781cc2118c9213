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

    /// What a change did to the provider's stored client secret, for the front end to say.
    public enum ClientSecretChange: Equatable, Sendable {
        /// Untouched.
        case kept
        /// The given secret replaced (or became) the stored one.
        case replaced
        /// Client authentication `none` (a public client, RFC 6749 §2.1) sends no secret: the stored one was deleted.
        case removed
    }

    /// Replaces the saved provider `changed.id` with `changed` after the same checks and probe as
    /// ``add(_:clientSecret:probe:)``; a given `clientSecret` replaces the stored one, and client
    /// authentication `none` deletes the stored one (a registration access token beside it stays).
    /// The secret is written first and put back as it was when the provider file cannot be
    /// written, so the two never disagree. Accounts, their tokens and aliases stay; what changed
    /// applies from their next sign-in or refresh. The cached discovery and JWKS are dropped.
    /// - Returns: what happened to the stored client secret.
    /// - Throws: ``AppError`` `.usage` for an unknown provider; for a change of the grants'
    ///   authorization server or client (``grantChange(from:to:)``) while accounts are signed in,
    ///   naming them and the next step; for a change of what a provider made by `login URL` was
    ///   made for (``resourceChange(from:to:)``); for a confidential client with no secret stored
    ///   or given; the probe's failure (nothing changed); store and file errors (nothing changed).
    @discardableResult
    public func change(_ changed: ProviderConfig, clientSecret: ClientSecret?,
                       probe: ProviderProbeChoice) async throws(AppError) -> ClientSecretChange {
        let old = try ProviderAccess(env: env).provider(changed.id)
        if let problem = Self.resourceChange(from: old, to: changed) {
            throw AppError(title: "Provider '\(changed.id)' not changed: \(problem)",
                           detail: "It was made by 'authdeck login \(old.protectedResource?.resource ?? "URL")' for that resource (RFC 9728), whose"
                               + " metadata chose its authorization server, and its tokens are requested for that resource alone (RFC 8707)."
                               + " For another resource sign in to it with 'authdeck login URL' (a provider of its own); to start over,"
                               + " 'authdeck provider remove \(changed.id)' (after 'authdeck logout' of its accounts) and sign in again.",
                           specReference: "RFC 9728 §3", disposition: .usage)
        }
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
        if clientSecret != nil, changed.clientAuthentication == .none {
            throw AppError(title: "Provider '\(changed.id)' not changed: a client secret was given with client authentication none",
                           detail: "A public client sends no secret (RFC 6749 §2.1): give client_secret_basic or client_secret_post with it,"
                               + " or leave the secret out.", disposition: .usage)
        }
        if probe == .discovery { try await self.probe(changed, action: "changed") }
        let outcome: ClientSecretChange = clientSecret != nil ? .replaced
            : changed.clientAuthentication == .none && old.clientAuthentication != .none ? .removed : .kept
        if outcome == .kept {
            try env.files.saveProvider(changed)
        } else {
            try saveWithSecret(changed) { secrets in
                if let clientSecret {
                    secrets.clientSecret = StoredClientSecret(clientSecret.exposedValue)
                } else {
                    secrets.clientSecret = nil
                }
            }
        }
        env.cache.remove(changed.id)
        return outcome
    }

    /// Edits the provider's secret set (``AccountKey/providerClient(_:)``; one left empty is
    /// deleted), then saves `provider`; when that fails the secret set is written back as it was.
    private func saveWithSecret(_ provider: ProviderConfig, _ edit: (inout AccountSecrets) -> Void) throws(AppError) {
        let key = AccountKey.providerClient(provider.id.rawValue)
        let store: any SecretStore
        let before: AccountSecrets?
        do {
            store = try env.credentials.store()
            before = try store.loadIfPresent(key)
            var secrets = before ?? AccountSecrets()
            edit(&secrets)
            if secrets == AccountSecrets() {
                if before != nil { try store.delete(key) }
            } else {
                try store.save(secrets, for: key)
            }
        } catch let error as AppError {
            throw error
        } catch let error as SecretStoreError {
            throw ErrorMapping.appError(error)
        } catch {
            throw AppError(title: "Credential store error", detail: "\(error)", disposition: .other)
        }
        do {
            try env.files.saveProvider(provider)
        } catch {
            // Put the secret back so that the stored secret and the (unchanged) provider file agree.
            if let before { try? store.save(before, for: key) } else { try? store.delete(key) }
            throw error
        }
    }

    /// Why a change would make a provider made by `authdeck login URL` (``ProviderConfig/protectedResource``)
    /// no longer fit the resource it was made for: its `--resource` list is that resource alone
    /// (RFC 8707: the authorization request names the resource the code exchange and refresh name),
    /// its issuer is the authorization server the resource's metadata named (RFC 9728 §3.3), and its
    /// client id the one registered, shared or published for it (RFC 7591, a client id metadata document).
    /// - Returns: what would change, in words, or nil (always nil for other providers; resources
    ///   given as they were, or as that resource alone, are fine).
    public static func resourceChange(from old: ProviderConfig, to new: ProviderConfig) -> String? {
        guard let bound = old.protectedResource else { return nil }
        let same = new.resources.elementsEqual(old.resources) { $0.exactlyEquals($1) }
        if !same, new.resources.count != 1 || !new.resources[0].exactlyEquals(bound.resource) {
            let list = new.resources.isEmpty ? "none" : new.resources.joined(separator: ", ")
            return "its resources would be \(list), not the resource \(bound.resource) it was made for"
        }
        if !(old.issuer?.absoluteString).exactlyEquals(new.issuer?.absoluteString) {
            return "its issuer \(old.issuer?.absoluteString ?? "none") is the authorization server the metadata of \(bound.resource) named"
        }
        if !old.clientID.exactlyEquals(new.clientID) {
            return "its client id \(old.clientID) (\(bound.clientDescription)) is the client it signs in to \(bound.resource) with"
        }
        return nil
    }

    private static func server(_ provider: ProviderConfig) -> String {
        provider.issuer?.absoluteString ?? provider.endpoints.token?.absoluteString ?? "its authorization server"
    }
}
