import FoundationEssentials

/// The edge of ``AccountEvents``: the configuration (`check.json`), the ledger of what was told
/// (`check-state.json`, between processes), desktop notifications and hooks.
public struct AccountEventsClient: Sendable {
    /// `check.json`, or the defaults when there is none. A file that cannot be used is said (by
    /// the live value, once per process) and taken as absent.
    public var configuration: @Sendable () -> CheckConfiguration
    /// The ledger as it is now, read without its lock (it is replaced atomically); empty when
    /// there is none or it is damaged.
    public var ledger: @Sendable () -> CheckLedger
    /// Read-modify-write of the ledger under its lock; written (atomically, 0600) only when
    /// `body` changed it. A damaged ledger is moved aside (said) and `body` gets an empty one.
    /// - Throws: ``AppError`` when the file cannot be read or written.
    public var updateLedger: @Sendable (_ body: (inout CheckLedger) -> Void) throws(AppError) -> Void
    /// Shows a desktop notification for `told` replacing the notification with id `replacing`
    /// (0: none); the server's id, or nil when none could be shown (no session bus, no server).
    public var notify: @Sendable (_ told: CheckLedger.Told, _ replacing: UInt32) -> UInt32?
    /// Runs the shell command `hook` for `told` (its environment says the event, never a token);
    /// waits for it (10 s at most), says a failure, never throws.
    public var runHook: @Sendable (_ hook: String, _ told: CheckLedger.Told) -> Void
    /// `check.json` and `check-state.json` as `authdeck doctor` finds them (reads only; each read
    /// by the rule that uses it); none when there are no such files (the storm driver).
    public var check: @Sendable () -> [FileHealth]
    /// Moves `check-state.json` aside under its lock; the new path, nil when there was none.
    public var moveLedgerAside: @Sendable (_ now: Date) throws(AppError) -> String?

    public init(configuration: @escaping @Sendable () -> CheckConfiguration, ledger: @escaping @Sendable () -> CheckLedger,
                updateLedger: @escaping @Sendable (_ body: (inout CheckLedger) -> Void) throws(AppError) -> Void,
                notify: @escaping @Sendable (CheckLedger.Told, UInt32) -> UInt32?, runHook: @escaping @Sendable (String, CheckLedger.Told) -> Void,
                check: @escaping @Sendable () -> [FileHealth] = { [] },
                moveLedgerAside: @escaping @Sendable (Date) throws(AppError) -> String? = { _ throws(AppError) in nil }) {
        self.configuration = configuration
        self.ledger = ledger
        self.updateLedger = updateLedger
        self.notify = notify
        self.runHook = runHook
        self.check = check
        self.moveLedgerAside = moveLedgerAside
    }

    /// Nothing kept, nothing told (a process without a state directory: the storm driver).
    public static let none = AccountEventsClient(
        configuration: { CheckConfiguration() }, ledger: { CheckLedger() }, updateLedger: { _ throws(AppError) in },
        notify: { _, _ in nil }, runHook: { _, _ in })
}
