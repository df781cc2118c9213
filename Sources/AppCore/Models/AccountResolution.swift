import AuthEngine
import FoundationEssentials

/// Which account is meant — the one rule under both front ends (the CLI's ACCOUNT arguments and
/// its default account, the accounts screen's "active" marker).
///
/// A query names an account by its alias (`--name`), its id (`provider/subject`), its handle
/// (`provider/username`), or an unambiguous prefix of the handle or the id (else of the username
/// alone). Every comparison is byte for byte (no Unicode normalisation). With no query the account
/// is, in order: the one `AUTHDECK_ACCOUNT` names (the same kinds of names), the active account,
/// or the only account when exactly one exists (as `doctor --repair` decides).
public enum AccountResolution {
    /// `provider/username` (or `provider/subject` without a username): how lists name an account.
    public static func handle(_ record: AccountRecord) -> String {
        "\(record.providerID.rawValue)/\(record.username ?? record.subject)"
    }

    /// The alias and the handle, "work (local/alice)", or the handle alone.
    public static func describe(_ record: AccountRecord) -> String {
        record.alias.map { "\($0) (\(handle(record)))" } ?? handle(record)
    }

    /// The account `query` names, or the default one when `query` is nil.
    /// - Parameters:
    ///   - accounts: the account records, in display order.
    ///   - active: the persisted active account (`active.json`), if any; an id that no record has is ignored.
    ///   - environmentAccount: `AUTHDECK_ACCOUNT` (empty counts as unset).
    /// - Throws: ``AccountResolutionError``.
    public static func resolve(_ query: String?, accounts: [AccountRecord], active: AccountID?,
                               environmentAccount: String?) throws(AccountResolutionError) -> AccountRecord {
        guard !accounts.isEmpty else { throw .noAccounts }
        let fromEnvironment = query == nil && environmentAccount?.isEmpty == false
        guard let query = query ?? (fromEnvironment ? environmentAccount : nil) else {
            if let active, let record = accounts.first(where: { $0.id == active }) { return record }
            if accounts.count == 1 { return accounts[0] }
            throw .noDefault(known: accounts.map(describe))
        }
        // An empty name names nothing (as a prefix it would match every account).
        guard !query.isEmpty else { throw .noMatch(query: query, fromEnvironment: fromEnvironment, known: accounts.map(describe)) }
        if let exact = accounts.first(where: { $0.alias.exactlyEquals(query) || $0.id.rawValue.exactlyEquals(query) || handle($0).exactlyEquals(query) }) {
            return exact
        }
        func starts(_ text: String) -> Bool { text.utf8.starts(with: query.utf8) }
        var matches = accounts.filter { starts(handle($0)) || starts($0.id.rawValue) }
        // A bare username prefix (`alice`) when it names exactly one account.
        if matches.isEmpty { matches = accounts.filter { starts($0.username ?? $0.subject) } }
        if matches.count == 1 { return matches[0] }
        if matches.isEmpty { throw .noMatch(query: query, fromEnvironment: fromEnvironment, known: accounts.map(describe)) }
        throw .ambiguous(query: query, fromEnvironment: fromEnvironment, matches: matches.map(describe))
    }

    /// Why `alias` cannot name an account (`login --name`), or nil: empty or only spaces, a `/`
    /// (it would read as a handle), or a control character (it would reach terminals and shells).
    public static func aliasProblem(_ alias: String) -> String? {
        if alias.unicodeScalars.allSatisfy(\.properties.isWhitespace) { return "--name must not be empty or only spaces" }
        if alias.contains("/") { return "--name must not contain '/' (that is how account ids and handles are written)" }
        if alias.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) {
            return "--name must not contain control or invisible characters"
        }
        return nil
    }

    /// What giving `alias` to a new sign-in would make ambiguous among `accounts` (notes, not
    /// refusals): another account with the same alias, one whose alias looks the same but is
    /// spelled with other code points (é as one or as e + U+0301), or another account whose
    /// username or handle the alias would shadow (queries try aliases first).
    public static func aliasConflicts(_ alias: String, among accounts: [AccountRecord]) -> [String] {
        var notes: [String] = []
        for other in accounts {
            if other.alias.exactlyEquals(alias) {
                notes.append("alias '\(alias)' is used by \(handle(other)); it will name both until one is logged out")
            } else if let theirs = other.alias, theirs == alias {
                notes.append("alias '\(alias)' looks the same as \(handle(other))'s alias but is spelled with other characters; typing it may pick either")
            } else if (other.username ?? other.subject).exactlyEquals(alias) || handle(other).exactlyEquals(alias) {
                notes.append("alias '\(alias)' is also \(handle(other))'s name; as an ACCOUNT argument it will mean the new sign-in")
            }
        }
        return notes
    }

    /// The default account's id (``resolve(_:accounts:active:environmentAccount:)`` with no
    /// query), or nil when there is none: the account scripts get and the screen marks active.
    public static func defaultAccountID(accounts: [AccountRecord], active: AccountID?, environmentAccount: String?) -> AccountID? {
        try? resolve(nil, accounts: accounts, active: active, environmentAccount: environmentAccount).id
    }
}

/// Why no account was resolved (the front ends word the advice).
public enum AccountResolutionError: Error, Equatable, Sendable {
    /// No account is signed in.
    case noAccounts
    /// No query, no `AUTHDECK_ACCOUNT`, no active account, and more than one account (described).
    case noDefault(known: [String])
    /// Nothing matches `query` (from `AUTHDECK_ACCOUNT` when `fromEnvironment`); the known accounts.
    case noMatch(query: String, fromEnvironment: Bool, known: [String])
    /// `query` is a prefix of several accounts (described).
    case ambiguous(query: String, fromEnvironment: Bool, matches: [String])
}
