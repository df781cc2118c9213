import AuthEngine
import CredentialStore
import Foundation

/// Account lookups shared by the use cases.
struct Accounts: Sendable {
    let env: AppEnvironment

    /// The stored record of `id`.
    /// - Throws: "Unknown account" (`.usage`); metadata file errors.
    func record(_ id: AccountID) throws(AppError) -> AccountRecord {
        guard let record = try env.files.accounts().first(where: { $0.id == id }) else {
            throw AppError(title: "Unknown account '\(id)'", detail: "See 'authdeck status' for the signed-in accounts.", disposition: .usage)
        }
        return record
    }

    /// The credential store key of an account.
    static func key(_ record: AccountRecord) -> AccountKey {
        AccountKey(provider: record.providerID.rawValue, account: record.subject)
    }

    /// The one "needs sign-in" error of an account whose grant is known to be gone.
    static func needsSignIn(_ record: AccountRecord) -> AppError {
        AppError(title: "\(record.displayName) needs to sign in again",
                 detail: "The provider refused its refresh token (invalid_grant); the stored tokens are no longer valid.",
                 specReference: "RFC 6749 §5.2", disposition: .needsSignIn)
    }

    /// Records that the grant is gone, so that every process sees it (status exits 3, the TUI
    /// shows "needs sign-in", `token` refuses to hand out the stored token).
    func markNeedsSignIn(_ id: AccountID) {
        guard var record = try? record(id), record.needsSignInSince == nil else { return }
        record.needsSignInSince = env.now()
        try? env.files.saveAccount(record)
    }
}

/// Loads what the screens and `status` show: providers, account records, the active account and
/// the store's state (no secrets, no network).
public struct LoadAccounts: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    public func run() throws(AppError) -> LoadedSnapshot {
        LoadedSnapshot(providers: try env.files.providers(), accounts: try env.files.accounts(),
                       activeAccountID: try env.files.activeAccount(), credentialStore: env.credentials.info())
    }

    /// Opens the store once (the vault asks for its passphrase here, before any screen is drawn).
    public func unlock() throws(AppError) {
        do { _ = try env.credentials.store().listAccounts() } catch { throw ErrorMapping.appError(error) }
    }
}

/// Makes an account the active one (`authdeck switch`, Enter in the accounts pane).
public struct SwitchAccount: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// Persists `id` as the active account (`nil` clears it) and returns it.
    public func run(_ id: AccountID?) throws(AppError) -> AccountID? {
        try env.files.saveActiveAccount(id)
        return id
    }
}
