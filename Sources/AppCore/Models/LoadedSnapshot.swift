import FoundationEssentials

/// Everything loaded at start (and on reload).
public struct LoadedSnapshot: Equatable, Sendable {
    public var providers: [ProviderConfig]
    public var accounts: [AccountRecord]
    /// The persisted active account.
    public var activeAccountID: AccountID?
    public var credentialStore: StoreInfo
    /// Files that could not be read because they are damaged (``LoadAccounts/overview()``):
    /// what they hold is missing from this snapshot; the front ends say "file damaged".
    public var damage: [FileDamage]
    /// What the user should know but that blocks nothing (a damaged `active.json`).
    public var warnings: [String]
    /// Accounts whose refresh marker (``AccountRecord/refreshSentAt``) is set while another
    /// process holds their account lock: a refresh is waiting for its answer there, so its
    /// outcome is not unknown (``LoadAccounts/overview()``; empty from ``LoadAccounts/run()``).
    public var refreshingElsewhere: Set<AccountID>
    /// What the directory the process runs in says about the account (git config, the directory
    /// rule; ``Places/read(_:)``): read by ``LoadAccounts/overview()``, ``AccountPlace/nowhere`` from ``LoadAccounts/run()``.
    public var place: AccountPlace = .nowhere
    public init(providers: [ProviderConfig], accounts: [AccountRecord], activeAccountID: AccountID?, credentialStore: StoreInfo,
                damage: [FileDamage] = [], warnings: [String] = [], refreshingElsewhere: Set<AccountID> = []) {
        self.providers = providers
        self.accounts = accounts
        self.activeAccountID = activeAccountID
        self.credentialStore = credentialStore
        self.damage = damage
        self.warnings = warnings
        self.refreshingElsewhere = refreshingElsewhere
    }

    /// Every damaged file: the metadata files' and the secrets' file.
    public var allDamage: [FileDamage] { damage + (credentialStore.damage.map { [$0] } ?? []) }
}
