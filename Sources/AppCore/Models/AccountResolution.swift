import AuthEngine
import FoundationEssentials

/// Which account is meant — the one rule under both front ends (the CLI's ACCOUNT arguments and
/// its default account, `which`, the git and docker credential helpers, the accounts screen's
/// "active" marker).
///
/// A query names an account by its alias (`--name`), its id (`provider/subject`), its handle
/// (`provider/username`), or an unambiguous prefix of the handle or the id (else of the username
/// alone). Every comparison is byte for byte (no Unicode normalisation). With no query the account
/// is, in order (one precedence everywhere): the one `AUTHDECK_ACCOUNT` names, the one
/// git config's `authdeck.account` names (the same kinds of names; only the scopes that count,
/// ``GitConfigAccount``), the directory rule matching the place (``DirectoryBinding``: the longest
/// prefix of the real path), the active account (`switch`), or the only account when exactly one
/// exists (as `doctor --repair` decides). A rule naming an account that is gone is an error naming
/// the rule, never a fall back to another identity.
public enum AccountResolution {
    /// `provider/username` (or `provider/subject` without a username): how lists name an account.
    public static func handle(_ record: AccountRecord) -> String {
        "\(record.providerID.rawValue)/\(record.username ?? record.subject)"
    }

    /// The alias and the handle, "work (local/alice)", or the handle alone.
    public static func describe(_ record: AccountRecord) -> String {
        record.alias.map { "\($0) (\(handle(record)))" } ?? handle(record)
    }

    /// The account `query` names, or the default one when `query` is nil (``choose(_:accounts:active:environmentAccount:place:)``'s record).
    public static func resolve(_ query: String?, accounts: [AccountRecord], active: AccountID?,
                               environmentAccount: String?, place: AccountPlace = .nowhere) throws(AccountResolutionError) -> AccountRecord {
        try choose(query, accounts: accounts, active: active, environmentAccount: environmentAccount, place: place).record
    }

    /// The account `query` names, or the default one when `query` is nil, and where the choice
    /// came from (`authdeck which`, `status`, the accounts screen).
    /// - Parameters:
    ///   - accounts: the account records, in display order.
    ///   - active: the persisted active account (`active.json`), if any; an id that no record has is ignored.
    ///   - environmentAccount: `AUTHDECK_ACCOUNT` (empty counts as unset).
    ///   - place: git config and the directory rule where the command runs (``AccountPlace/nowhere``: neither).
    /// - Throws: ``AccountResolutionError``.
    public static func choose(_ query: String?, accounts: [AccountRecord], active: AccountID?,
                              environmentAccount: String?, place: AccountPlace) throws(AccountResolutionError) -> ResolvedAccount {
        guard !accounts.isEmpty else { throw .noAccounts }
        if let query { return try match(query, source: .argument, in: accounts) }
        if let named = environmentAccount, !named.isEmpty { return try match(named, source: .environment, in: accounts) }
        if let setting = place.gitConfig { return try match(setting.value, source: .gitConfig(file: setting.file), in: accounts) }
        if let problem = place.rulesProblem { throw .rulesUnreadable(problem) }
        if let rule = place.rule {
            guard let record = accounts.first(where: { $0.id.rawValue.exactlyEquals(rule.account.rawValue) }) else {
                throw .ruleAccountMissing(directory: rule.directory, account: rule.account.rawValue)
            }
            return ResolvedAccount(record: record, source: .rule(directory: rule.directory))
        }
        if let active, let record = accounts.first(where: { $0.id == active }) { return ResolvedAccount(record: record, source: .active) }
        if accounts.count == 1 { return ResolvedAccount(record: accounts[0], source: .onlyAccount) }
        throw .noDefault(known: accounts.map(describe))
    }

    /// The account a name (`query`, from `source`) names: alias, id or handle exactly, else one prefix.
    static func match(_ query: String, source: AccountSource, in accounts: [AccountRecord]) throws(AccountResolutionError) -> ResolvedAccount {
        // An empty name names nothing (as a prefix it would match every account).
        guard !query.isEmpty else { throw .noMatch(query: query, source: source, known: accounts.map(describe)) }
        let exact = accounts.first {
            $0.alias.exactlyEquals(query) || $0.id.rawValue.exactlyEquals(query) || handle($0).exactlyEquals(query)
        }
        if let exact {
            return ResolvedAccount(record: exact, source: source)
        }
        func starts(_ text: String) -> Bool { text.utf8.starts(with: query.utf8) }
        var matches = accounts.filter { starts(handle($0)) || starts($0.id.rawValue) }
        // A bare username prefix (`alice`) when it names exactly one account.
        if matches.isEmpty { matches = accounts.filter { starts($0.username ?? $0.subject) } }
        if matches.count == 1 { return ResolvedAccount(record: matches[0], source: source) }
        if matches.isEmpty { throw .noMatch(query: query, source: source, known: accounts.map(describe)) }
        throw .ambiguous(query: query, source: source, matches: matches.map(describe))
    }

    /// Why `alias` cannot name an account (`login --name`), or nil: empty or only spaces, a `/`
    /// (it would read as a handle), or a control character (it would reach terminals and shells).
    public static func aliasProblem(_ alias: String) -> String? {
        if alias.unicodeScalars.allSatisfy(\.properties.isWhitespace) { return "--name must not be empty or only spaces" }
        if alias.contains("/") { return "--name must not contain '/' (that is how account ids and handles are written)" }
        if alias.unicodeScalars.contains(where: IdentifierText.isInvisible) {
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
                notes.append("alias '\(alias)' looks the same as \(handle(other))'s alias but is spelled with other characters;"
                    + " typing it may pick either")
            } else if (other.username ?? other.subject).exactlyEquals(alias) || handle(other).exactlyEquals(alias) {
                notes.append("alias '\(alias)' is also \(handle(other))'s name; as an ACCOUNT argument it will mean the new sign-in")
            }
        }
        return notes
    }

    /// The default account's id (``choose(_:accounts:active:environmentAccount:place:)`` with no
    /// query), or nil when there is none: the account scripts get and the screen marks active.
    public static func defaultAccountID(accounts: [AccountRecord], active: AccountID?, environmentAccount: String?,
                                        place: AccountPlace = .nowhere) -> AccountID? {
        try? resolve(nil, accounts: accounts, active: active, environmentAccount: environmentAccount, place: place).id
    }
}

/// Why no account was resolved (the front ends word the advice).
public enum AccountResolutionError: Error, Equatable, Sendable {
    /// No account is signed in.
    case noAccounts
    /// No query, no `AUTHDECK_ACCOUNT`, no active account, and more than one account (described).
    case noDefault(known: [String])
    /// Nothing matches `query` (from `source`: the argument, `AUTHDECK_ACCOUNT`, git config); the known accounts.
    case noMatch(query: String, source: AccountSource, known: [String])
    /// `query` (from `source`) is a prefix of several accounts (described).
    case ambiguous(query: String, source: AccountSource, matches: [String])
    /// The directory rule for `directory` names `account` (an id), which is not signed in.
    case ruleAccountMissing(directory: String, account: String)
    /// The directory rules (`bindings.json`) could not be read (why): no rule is guessed.
    case rulesUnreadable(String)
}

/// Where the choice of an account came from (`authdeck which`).
public enum AccountSource: Equatable, Sendable {
    /// The ACCOUNT argument.
    case argument
    /// `$AUTHDECK_ACCOUNT`.
    case environment
    /// `authdeck.account` in git config; `file` is the file it was read from ("command line" for `git -c`).
    case gitConfig(file: String)
    /// The directory rule for `directory` (`authdeck bind`).
    case rule(directory: String)
    /// The active account (`authdeck switch`).
    case active
    /// The only account signed in.
    case onlyAccount

    /// How `which` and `status` say it: `argument`, `environment`, `git config (FILE)`, `rule DIR`,
    /// `active`, `only account`.
    public var label: String {
        switch self {
        case .argument: "argument"
        case .environment: "environment"
        case .gitConfig(let file): "git config (\(file))"
        case .rule(let directory): "rule \(directory)"
        case .active: "active"
        case .onlyAccount: "only account"
        }
    }

    /// How an error names a setting it read ("$AUTHDECK_ACCOUNT", "authdeck.account in FILE"); nil for the argument.
    public var settingName: String? {
        switch self {
        case .argument: nil
        case .environment: "$AUTHDECK_ACCOUNT"
        case .gitConfig(let file): "authdeck.account in \(file)"
        case .rule(let directory): "the rule for \(directory)"
        case .active: "the active account"
        case .onlyAccount: "the only account"
        }
    }
}

/// An account and where the choice came from.
public struct ResolvedAccount: Equatable, Sendable {
    public var record: AccountRecord
    public var source: AccountSource
    public init(record: AccountRecord, source: AccountSource) {
        self.record = record
        self.source = source
    }
}
