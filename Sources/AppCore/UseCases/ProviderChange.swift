import AuthEngine
import CredentialStore
import FoundationEssentials
import TextSupport

/// Changing a saved provider in place (`provider set`): its accounts and their tokens stay.
extension ProviderAdmin {
    /// Why a change would take the provider's signed-in accounts' tokens where they do not belong:
    /// their refresh tokens were issued by one authorization server to one client (RFC 6749 §6:
    /// the refresh token is bound to the client it was issued to; §10.4), so neither may change
    /// under them; and an endpoint they are sent to (token, revocation, introspection, userinfo,
    /// device authorization, end session) or the JWK Set their ID tokens are checked with may
    /// not move to another origin (RFC 6454) than the one it had or the issuer's.
    /// - Parameter accounts: the provider's signed-in accounts; each records the issuer that issued
    ///   its tokens, which is what the new issuer must be (the provider's own when none is recorded).
    /// - Returns: what changes, in words ("its issuer https://a → https://b"), or nil: identifiers
    ///   and origins compared code unit for code unit.
    public static func grantChange(from old: ProviderConfig, to new: ProviderConfig, accounts: [AccountRecord]) -> String? {
        func text(_ url: URL?) -> String { url?.absoluteString ?? "none" }
        let newIssuer = new.issuer?.absoluteString
        for account in accounts {
            let issued = account.issuer ?? old.issuer?.absoluteString
            if !issued.exactlyEquals(newIssuer) { return "its issuer \(issued ?? "none") → \(newIssuer ?? "none")" }
        }
        if old.issuer == nil, !(old.endpoints.token?.absoluteString).exactlyEquals(new.endpoints.token?.absoluteString) {
            return "its token endpoint \(text(old.endpoints.token)) → \(text(new.endpoints.token))"
        }
        if !old.clientID.exactlyEquals(new.clientID) { return "its client id \(old.clientID) → \(new.clientID)" }
        func origin(_ url: URL?) -> String? { url.flatMap { URIParts($0.absoluteString)?.origin } }
        for (name, path) in tokenDestinations {
            guard let url = new.endpoints[keyPath: path], case let was = old.endpoints[keyPath: path],
                  !(was?.absoluteString).exactlyEquals(url.absoluteString) else { continue }
            let allowed = [origin(was), origin(new.issuer)].compactMap { $0 }
            if let moved = origin(url), allowed.contains(where: { $0.utf8.elementsEqual(moved.utf8) }) { continue }
            return "its \(name) \(was?.absoluteString ?? "(discovered)") → \(url.absoluteString), another server"
        }
        return nil
    }

    /// The endpoints that receive the accounts' tokens or client credentials, or whose keys check them.
    private static var tokenDestinations: [(String, KeyPath<EndpointOverrides, URL?>)] {
        [("token endpoint", \.token), ("revocation endpoint", \.revocation), ("introspection endpoint", \.introspection),
         ("userinfo endpoint", \.userinfo), ("device authorization endpoint", \.deviceAuthorization),
         ("end session endpoint", \.endSession), ("jwks_uri", \.jwks)]
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

    /// What ``change(_:clientSecret:probe:edit:)`` did, for the front end to say.
    public struct Change: Equatable, Sendable {
        /// The provider as it was saved just before the change, and as it now is.
        public var before: ProviderConfig
        public var after: ProviderConfig
        public var secret: ClientSecretChange
        /// How many signed-in accounts it has (kept).
        public var accounts: Int

        public init(before: ProviderConfig, after: ProviderConfig, secret: ClientSecretChange, accounts: Int) {
            (self.before, self.after, self.secret, self.accounts) = (before, after, secret, accounts)
        }
    }

    /// ``change(_:clientSecret:probe:edit:)`` with `changed` as the whole new provider.
    @discardableResult
    public func change(_ changed: ProviderConfig, clientSecret: ClientSecret?,
                       probe: ProviderProbeChoice) async throws(AppError) -> ClientSecretChange {
        try await change(changed.id, clientSecret: clientSecret, probe: probe) { $0 = changed }.secret
    }

    /// Changes the saved provider `id` by `edit` after the same checks and probe as
    /// ``add(_:clientSecret:probe:)``; a given `clientSecret` replaces the stored one, and client
    /// authentication `none` deletes the stored one (a registration access token beside it stays).
    /// After the (slow) probe, `edit` is applied again to the provider as saved then, and the checks
    /// made again against the accounts then, under the providers file's lock: a change, removal or
    /// sign-in by another command meanwhile is neither lost nor bypassed. The secret is written
    /// first and put back as it was when the provider file cannot be written. Accounts, their
    /// tokens and aliases stay; what changed applies from their next sign-in or refresh. The
    /// cached discovery and JWKS are dropped.
    /// - Throws: ``AppError`` `.usage` for an unknown provider, or one removed (or given another
    ///   issuer) meanwhile; while accounts are signed in, for a change of where their tokens go
    ///   (``grantChange(from:to:accounts:)``), naming them and the next step; for a change of what a
    ///   provider made by `login URL` was made for (``resourceChange(from:to:)``); for a confidential
    ///   client with no secret stored or given; `edit`'s error; the probe's failure (nothing changed);
    ///   store and file errors (nothing changed).
    public func change(_ id: ProviderID, clientSecret: ClientSecret?, probe: ProviderProbeChoice,
                       edit: (inout ProviderConfig) throws(AppError) -> Void) async throws(AppError) -> Change {
        let read = try ProviderAccess(env: env).provider(id)
        var planned = read
        try edit(&planned)
        _ = try check(from: read, to: planned, clientSecret: clientSecret)  // at once, before the probe
        if probe == .discovery { try await self.probe(planned, action: "changed") }
        var done: Change?
        var putBack: (() -> Void)?
        do {
            _ = try env.files.updateProvider(id) { (current) throws(AppError) -> ProviderConfig in
                var changed = current
                try edit(&changed)
                guard probe == .skip || (changed.issuer?.absoluteString).exactlyEquals(planned.issuer?.absoluteString) else {
                    throw AppError(title: "Provider '\(id)' not changed: another command changed its issuer meanwhile",
                                   detail: "See 'authdeck provider show \(id)' and run the change again.", disposition: .usage)
                }
                let (secret, accounts) = try check(from: current, to: changed, clientSecret: clientSecret)
                if secret != .kept { putBack = try setClientSecret(id, secret == .replaced ? clientSecret : nil) }
                done = Change(before: current, after: changed, secret: secret, accounts: accounts)
                return changed
            }
        } catch {
            putBack?()
            throw error
        }
        guard let done else {
            throw AppError(title: "Provider '\(id)' not changed: the provider was removed meanwhile",
                           detail: "Another command removed it while its discovery document was fetched; add it again with"
                               + " 'authdeck provider add \(id) …'.", disposition: .usage)
        }
        env.cache.remove(id)
        return done
    }

    /// The refusals of a change from `old` to `new` with the provider's accounts as they are now.
    /// - Returns: what the change does to the stored client secret, and how many accounts are signed in.
    private func check(from old: ProviderConfig, to new: ProviderConfig,
                       clientSecret: ClientSecret?) throws(AppError) -> (ClientSecretChange, Int) {
        if let problem = Self.resourceChange(from: old, to: new) {
            throw AppError(title: "Provider '\(new.id)' not changed: \(problem)",
                           detail: "It was made by 'authdeck login \(old.protectedResource?.resource ?? "URL")' for that resource (RFC 9728), whose"
                               + " metadata chose its authorization server, and its tokens are requested for that resource alone (RFC 8707)."
                               + " For another resource sign in to it with 'authdeck login URL' (a provider of its own); to start over,"
                               + " 'authdeck provider remove \(new.id)' (after 'authdeck logout' of its accounts) and sign in again.",
                           specReference: "RFC 9728 §3", disposition: .usage)
        }
        let accounts = try env.files.accounts().filter { $0.providerID == new.id }
        if !accounts.isEmpty, let change = Self.grantChange(from: old, to: new, accounts: accounts) {
            let names = accounts.map { "\($0.providerID.rawValue)/\($0.username ?? $0.subject)" }
            let one = accounts.count == 1
            let issuer = accounts.lazy.compactMap(\.issuer).first ?? Self.server(old)
            throw AppError(
                title: "Provider '\(new.id)' not changed: \(change), while \(accounts.count) signed-in account\(one ? "" : "s")"
                    + " (\(names.joined(separator: ", "))) hold\(one ? "s" : "") tokens of \(issuer)",
                detail: "Their tokens were issued by \(issuer) to client \(old.clientID): another issuer or client leaves grants nothing"
                    + " can refresh or revoke, and an endpoint on another server would be sent them. Log \(one ? "it" : "them") out first ("
                    + names.map { "'authdeck logout \($0)'" }.joined(separator: ", ") + "), or add another provider with"
                    + " 'authdeck provider add NAME …' and sign in there.",
                disposition: .usage)
        }
        // A stored secret is the old client's (RFC 6749 §2.3.1): another client id or issuer needs its own.
        let otherClient = !old.clientID.exactlyEquals(new.clientID) || !(old.issuer?.absoluteString).exactlyEquals(new.issuer?.absoluteString)
        if new.needsClientSecret && clientSecret == nil && (old.clientAuthentication == .none || otherClient) {
            let why = otherClient ? " needs the client secret of client \(new.clientID) at \(Self.server(new)); the stored one is"
                + " client \(old.clientID)'s at \(Self.server(old))" : " needs the client secret, and none is stored"
            throw AppError(title: "Provider '\(new.id)' not changed: client authentication \(new.clientAuthentication.rawValue)\(why)",
                           detail: "Give the secret with the change (the CLI: --client-secret-stdin or --client-secret-file).", disposition: .usage)
        }
        if clientSecret != nil, new.clientAuthentication == .none {
            throw AppError(title: "Provider '\(new.id)' not changed: a client secret was given with client authentication none",
                           detail: "A public client sends no secret (RFC 6749 §2.1): give client_secret_basic or client_secret_post with it,"
                               + " or leave the secret out.", disposition: .usage)
        }
        let secret: ClientSecretChange = clientSecret != nil ? .replaced
            : new.clientAuthentication == .none && old.clientAuthentication != .none ? .removed : .kept
        return (secret, accounts.count)
    }

    /// Sets (nil: deletes) the client secret in the provider's secret set (``AccountKey/providerClient(_:)``;
    /// a set left empty is deleted).
    /// - Returns: what writes the set back as it was (when the provider file then cannot be written).
    private func setClientSecret(_ id: ProviderID, _ secret: ClientSecret?) throws(AppError) -> () -> Void {
        let key = AccountKey.providerClient(id.rawValue)
        do {
            let store = try env.credentials.store()
            let before = try store.loadIfPresent(key)
            var secrets = before ?? AccountSecrets()
            secrets.clientSecret = secret.map { StoredClientSecret($0.exposedValue) }
            if secrets == AccountSecrets() {
                if before != nil { try store.delete(key) }
            } else {
                try store.save(secrets, for: key)
            }
            return { if let before { try? store.save(before, for: key) } else { try? store.delete(key) } }
        } catch let error as AppError {
            throw error
        } catch let error as SecretStoreError {
            throw ErrorMapping.appError(error)
        } catch {
            throw AppError(title: "Credential store error", detail: "\(error)", disposition: .other)
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
