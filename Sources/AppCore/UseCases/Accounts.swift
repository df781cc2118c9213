import AuthEngine
import CredentialStore
import FoundationEssentials

/// Account lookups shared by the use cases.
struct Accounts: Sendable {
    let env: AppEnvironment

    /// The stored record of `id`.
    /// - Throws: "Unknown account" (`.usage`); metadata file errors.
    func record(_ id: AccountID) throws(AppError) -> AccountRecord {
        guard let record = try env.files.accounts().first(where: { $0.id == id }) else { throw Self.unknown(id) }
        return record
    }

    /// One read-modify-write of the record `id` (``MetadataFiles/updateAccount``): the file is
    /// read once and written only when `change` changed the record.
    /// - Returns: the record as now stored.
    /// - Throws: "Unknown account" (`.usage`); what `change` throws (nothing written); file errors.
    func update(_ id: AccountID, _ change: (inout AccountRecord) throws(AppError) -> Void) throws(AppError) -> AccountRecord {
        guard let record = try env.files.updateAccount(id, change) else { throw Self.unknown(id) }
        return record
    }

    static func unknown(_ id: AccountID) -> AppError {
        AppError(title: "Unknown account '\(id)'", detail: "See 'authdeck status' for the signed-in accounts.", disposition: .usage)
    }

    /// The credential store key of an account.
    static func key(_ record: AccountRecord) -> AccountKey {
        AccountKey(provider: record.providerID.rawValue, account: record.subject)
    }

    /// The one "needs sign-in" error of an account whose grant is known to be gone.
    static func needsSignIn(_ record: AccountRecord) -> AppError {
        AppError(title: "\(record.displayName) needs to sign in again",
                 detail: "The provider ended its grant at the last refresh (invalid_grant, or a refreshed ID token for another identity),"
                     + " so its stored tokens are not handed out. Sign in again: authdeck login \(record.providerID).",
                 specReference: "RFC 6749 §5.2", disposition: .needsSignIn)
    }

    /// The active account. A damaged `active.json` (it holds no secret, only a pointer) blocks
    /// nothing: it counts as no active account, with a warning that names it (``LoadAccounts``).
    func activeAccount() throws(AppError) -> (id: AccountID?, damage: FileDamage?) {
        do {
            return (try env.files.activeAccount(), nil)
        } catch {
            guard let damage = error.damage else { throw error }
            return (nil, damage)
        }
    }

    /// Persists the active account. A damaged `active.json` is moved aside first (kept, 0600,
    /// timestamped), never overwritten.
    func saveActiveAccount(_ id: AccountID?) throws(AppError) {
        do {
            _ = try env.files.activeAccount()
        } catch {
            guard error.damage != nil else { throw error }
            _ = try env.files.moveAside(.active, env.now())
        }
        try env.files.saveActiveAccount(id)
    }

    /// Records that the grant is gone, so that every process sees it (status exits 3, the TUI
    /// shows "needs sign-in", `token` refuses to hand out the stored token).
    /// Nothing is written when it is already marked.
    func markNeedsSignIn(_ id: AccountID) {
        let now = env.now()
        _ = try? env.files.updateAccount(id) { record in
            if record.needsSignInSince == nil { record.needsSignInSince = now }
        }
    }
}

/// Loads what the screens and `status` show: providers, account records, the active account and
/// the store's state (no secrets, no network).
public struct LoadAccounts: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// The damaged `active.json`'s warning, worded for what ``AccountResolution`` does next: with
    /// exactly one account, that one is the default.
    /// An active account that is no longer signed in is said too.
    static func warnings(_ active: (id: AccountID?, damage: FileDamage?), _ accounts: [AccountRecord]) -> [String] {
        let meanwhile = accounts.count == 1 ? "the only account, \(AccountResolution.describe(accounts[0])), is the default" : "no account is active"
        if let damage = active.damage {
            return ["\(damage.file) is damaged (\(damage.damage)); \(meanwhile) until you choose one with 'authdeck switch'"
                + " (run 'authdeck doctor' for details)"]
        }
        if let id = active.id, !accounts.isEmpty, !accounts.contains(where: { $0.id == id }) {
            return ["the active account \(id.rawValue) is not signed in any more; \(meanwhile) until you choose one with 'authdeck switch'"]
        }
        return []
    }

    /// What a command needs: a damaged `providers.json` or `accounts.json` throws (disposition
    /// ``AppError/Disposition/fileDamaged(file:)``: "run 'authdeck doctor'"); a damaged
    /// `active.json` is a warning and no active account.
    public func run() throws(AppError) -> LoadedSnapshot {
        let providers = try env.files.providers()
        let accounts = try env.files.accounts()
        let active = try Accounts(env: env).activeAccount()
        return LoadedSnapshot(providers: providers, accounts: accounts, activeAccountID: active.id, credentialStore: env.credentials.info(),
                              warnings: Self.warnings(active, accounts))
    }

    /// What `status` and the accounts screen show: like ``run()`` with the place read (git config,
    /// the directory rule: ``LoadedSnapshot/place``), and a damaged file is
    /// reported in ``LoadedSnapshot/damage`` (with the secrets' file's damage in
    /// ``StoreInfo/damage``) instead of thrown, so that the front ends say "file damaged" and
    /// name the file rather than "No accounts".
    public func overview() throws(AppError) -> LoadedSnapshot {
        var damage: [FileDamage] = []
        func tolerant<T>(_ empty: T, _ body: () throws(AppError) -> T) throws(AppError) -> T {
            do {
                return try body()
            } catch {
                guard let found = error.damage else { throw error }
                damage.append(found)
                return empty
            }
        }
        let providers = try tolerant([]) { () throws(AppError) in try env.files.providers() }
        let accounts = try tolerant([]) { () throws(AppError) in try env.files.accounts() }
        let active = try Accounts(env: env).activeAccount()
        // The Secret Service is asked whether its collection is locked (`token` would exit 4).
        var store = env.credentials.inspect(env.credentials.info())
        // The secrets' file is read here (not in ``run()``: a command meets its damage when it
        // loads the secrets, and the token path stays one decryption).
        // The Secret Service's items are not read (libsecret, a round trip per item): an item's
        // damage is met when that account's secrets are loaded.
        if !store.isLocked, store.backend == .vault || store.backend == .plaintext, let found = env.credentials.check().damage {
            store.damage = found
        }
        var snapshot = LoadedSnapshot(providers: providers, accounts: accounts, activeAccountID: active.id, credentialStore: store,
                                      damage: damage, warnings: Self.warnings(active, accounts),
                                      refreshingElsewhere: refreshingElsewhere(accounts))
        snapshot.place = Places(env).read()
        return snapshot
    }

    /// The accounts whose refresh marker is set while their account lock is held: another
    /// process's refresh is waiting for its answer (RefreshAccount keeps the lock until then).
    /// The lock is tried and released at once, never waited for; only marked accounts are tried.
    /// A lock that cannot be tried (the store unavailable) counts as free: the outcome stays
    /// "unknown", the cautious label.
    func refreshingElsewhere(_ accounts: [AccountRecord]) -> Set<AccountID> {
        let marked = accounts.filter { $0.refreshSentAt != nil }
        guard !marked.isEmpty, let secrets = try? env.credentials.store() else { return [] }
        var held: Set<AccountID> = []
        for record in marked {
            do {
                if let handle = try secrets.tryLockAccount(Accounts.key(record)) { handle.release() } else { held.insert(record.id) }
            } catch {
                continue
            }
        }
        return held
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
        try Accounts(env: env).saveActiveAccount(id)
        return id
    }
}
