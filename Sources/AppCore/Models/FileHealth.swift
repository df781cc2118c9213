import FoundationEssentials

/// A file authdeck keeps that cannot be used as it is: which one and what is wrong with it
/// (not JSON, truncated, written twice, the wrong shape, a record that does not decode, a vault
/// whose header or authentication tag fails, …). Made from the store's typed errors by
/// ``ErrorMapping``; never holds a secret.
public struct FileDamage: Equatable, Sendable, CustomStringConvertible {
    /// The file's path (or "Secret Service item …").
    public var file: String
    /// What is wrong, e.g. "truncated: the JSON stops before it is complete".
    public var damage: String

    public init(file: String, damage: String) {
        self.file = file
        self.damage = damage
    }

    public var description: String { "\(file): \(damage)" }

    /// What to do next, in every message about a damaged file.
    public static let hint = "Nothing was changed. Run 'authdeck doctor' to see what is damaged,"
        + " and 'authdeck doctor --repair' to move the damaged file aside and rebuild what can be rebuilt."

    /// The one error of a damaged file (disposition ``AppError/Disposition/fileDamaged(file:)``).
    public var appError: AppError {
        AppError(title: "\(file) is damaged", detail: "\(damage). \(Self.hint)", disposition: .fileDamaged(file: file), damage: self)
    }
}

/// The metadata files (no secrets), as the environment names them.
public enum MetadataFileKind: String, CaseIterable, Sendable {
    case providers = "providers.json"
    case storeChoice = "store.json"
    case accounts = "accounts.json"
    case active = "active.json"
}

/// One file (or the Secret Service's items) as `authdeck doctor` finds it.
public struct FileHealth: Equatable, Sendable {
    public enum Kind: String, Equatable, Sendable {
        case providers, storeChoice = "store", accounts, active, secrets, cache
        /// `check.json` (the person's configuration: reported, never moved aside) and
        /// `check-state.json` (what was told: moved aside by a repair, every state is told again).
        case checkConfiguration = "check", checkState = "check-state"
        /// One account's secret set (a Secret Service item, a vault record) that does not decode.
        case secretItem = "secret"
    }

    public enum Condition: Equatable, Sendable {
        case ok
        case missing
        /// The file exists but is not what authdeck wrote (what is wrong).
        case damaged(String)
        /// It could not be read at all (permissions, I/O): not touched by a repair.
        case unreadable(String)
        /// The credential store is locked: its contents could not be checked.
        case locked(String)

        /// "ok", "missing", "damaged", "unreadable", "locked" (the `--json` spelling).
        public var label: String {
            switch self {
            case .ok: "ok"
            case .missing: "missing"
            case .damaged: "damaged"
            case .unreadable: "unreadable"
            case .locked: "locked"
            }
        }

        /// What is wrong, nil when ok or missing.
        public var detail: String? {
            switch self {
            case .ok, .missing: nil
            case .damaged(let text), .unreadable(let text), .locked(let text): text
            }
        }

        /// Whether the file's contents can be used (ok, or absent: nothing there yet).
        public var isUsable: Bool { self == .ok || self == .missing }
    }

    public var kind: Kind
    /// The path (or a description of the keyring, e.g. "Secret Service (application=authdeck)").
    public var path: String
    public var condition: Condition

    public init(kind: Kind, path: String, condition: Condition) {
        self.kind = kind
        self.path = path
        self.condition = condition
    }

    /// The damage of a damaged file, nil otherwise.
    public var damage: FileDamage? {
        if case .damaged(let text) = condition { return FileDamage(file: path, damage: text) }
        return nil
    }
}
