import AuthEngine
import CredentialStore
import FoundationEssentials

/// Adding and removing providers. A provider's client secret lives in the credential store,
/// never in the providers file; its cached discovery and JWKS go with it.
public struct ProviderAdmin: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// Saves a new `provider` and, for a confidential client, its secret (read by the front end
    /// without echo or argv), without probing it (``add(_:clientSecret:probe:)`` probes first).
    /// - Throws: `.usage` when a provider of that name exists; store and file errors.
    public func add(_ provider: ProviderConfig, clientSecret: ClientSecret?) throws(AppError) {
        try ensureNameFree(provider.id)
        if let clientSecret {
            do {
                try env.credentials.store().save(AccountSecrets(clientSecret: StoredClientSecret(clientSecret.exposedValue)),
                                                 for: .providerClient(provider.id.rawValue))
            } catch {
                throw ErrorMapping.appError(error)
            }
        }
        try env.files.saveProvider(provider)
        env.cache.remove(provider.id)
    }

    /// Removes a provider without accounts, its stored client secret (absent is fine) and its
    /// cached documents.
    /// - Throws: `.usage` for an unknown provider or one with signed-in accounts (named).
    public func remove(_ id: ProviderID) throws(AppError) {
        let provider = try ProviderAccess(env: env).provider(id)
        let accounts = try env.files.accounts().filter { $0.providerID == id }
        if !accounts.isEmpty {
            // Named as `status` names them (provider/username), one `logout` each.
            let names = accounts.map { "\($0.providerID.rawValue)/\($0.username ?? $0.subject)" }
            throw AppError(title: "Provider '\(id)' still has \(accounts.count) signed-in account\(accounts.count == 1 ? "" : "s") (\(names.joined(separator: ", ")))",
                           detail: "Log \(accounts.count == 1 ? "it" : "them") out first with \(names.map { "'authdeck logout \($0)'" }.joined(separator: ", ")).")
        }
        if provider.clientAuthentication != .none {
            do { try env.credentials.store().delete(.providerClient(id.rawValue)) } catch { throw ErrorMapping.appError(error) }
        }
        env.cache.remove(id)
        _ = try env.files.removeProvider(id)
    }
}
