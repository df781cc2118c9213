import AuthEngine
import FoundationEssentials

/// What the place a command runs in says about the account: the git config value
/// that counts there and the directory rule that matches it. Read by ``Places/read(_:)`` through the
/// environment; decided on by ``AccountResolution``.
public struct AccountPlace: Equatable, Sendable {
    /// The real path of the directory (symlinks resolved); nil when it could not be read.
    public var directory: String?
    /// `authdeck.account` from a git config scope that counts (``GitConfigAccount/counted(_:directory:gitDirectories:)``).
    public var gitConfig: GitConfigAccount?
    /// The rule with the longest directory that is a prefix of ``directory``.
    public var rule: DirectoryBinding?
    /// Why the rules could not be read (`bindings.json` damaged, unreadable): resolution stops there.
    public var rulesProblem: String?
    /// What the user should know but that chooses nothing (a git config value that does not count).
    public var notes: [String]

    public init(directory: String? = nil, gitConfig: GitConfigAccount? = nil, rule: DirectoryBinding? = nil,
                rulesProblem: String? = nil, notes: [String] = []) {
        self.directory = directory
        self.gitConfig = gitConfig
        self.rule = rule
        self.rulesProblem = rulesProblem
        self.notes = notes
    }

    /// No git config, no rule (a caller that names its account, or a test).
    public static let nowhere = AccountPlace()
}

/// One directory rule of `$XDG_CONFIG_HOME/authdeck/bindings.json` (`authdeck bind`): commands
/// run in `directory` or below it use `account`. Never a global change (`active.json` is untouched).
public struct DirectoryBinding: Equatable, Sendable {
    /// An absolute real path (symlinks resolved when the rule was made), without a trailing `/`
    /// (except the root).
    public var directory: String
    /// The account's id (`provider/subject`): an alias or a username can change, the id cannot.
    public var account: AccountID

    public init(directory: String, account: AccountID) {
        self.directory = directory
        self.account = account
    }

    /// Whether `path` (a real path) is `directory` or below it, compared byte for byte by whole
    /// components (`/a/b` covers `/a/b/c`, not `/a/bc`).
    public func covers(_ path: String) -> Bool { Self.path(path, isWithin: directory) }

    /// Whether `path` is `directory` or below it, by whole components, byte for byte.
    public static func path(_ path: String, isWithin directory: String) -> Bool {
        if directory == "/" { return path.utf8.first == UInt8(ascii: "/") }
        guard path.utf8.starts(with: directory.utf8) else { return false }
        let rest = path.utf8.dropFirst(directory.utf8.count)
        return rest.isEmpty || rest.first == UInt8(ascii: "/")
    }

    /// The rule with the longest directory covering `path`, or nil.
    public static func match(_ path: String, in rules: [DirectoryBinding]) -> DirectoryBinding? {
        rules.filter { $0.covers(path) }.max { $0.directory.utf8.count < $1.directory.utf8.count }
    }

    /// `bindings.json`: `{"bindings":[{"account":"<provider>/<subject>","directory":"/abs/path"}],"version":1}`.
    /// - Throws: ``JSONShapeError`` naming the member (`bindings[1].directory`).
    public static func list(json: JSONValue) throws(JSONShapeError) -> [DirectoryBinding] {
        let reader = try JSONReader(json)
        return try reader.optionalArray("bindings") { (element, path) throws(JSONShapeError) in
            let rule = try JSONReader(element, path: path)
            return try DirectoryBinding(directory: rule.string("directory"), account: AccountID(rawValue: rule.string("account")))
        } ?? []
    }

    public static func json(_ list: [DirectoryBinding]) -> JSONValue {
        let bindings = list.map { JSONValue.object(["directory": .string($0.directory), "account": .string($0.account.rawValue)]) }
        return .object(["version": .int(1), "bindings": .array(bindings)])
    }
}

/// `authdeck.account` as read from git config, from a scope that counts.
///
/// "A file committed into a repository never chooses an identity". What counts, from
/// git-config(1)'s scopes (`git config --show-scope --show-origin`): `system`, `global` and the files
/// they include (`include.path`, `includeIf`: the user chose them), `command` (`git -c`,
/// `GIT_CONFIG_PARAMETERS`: the user's command line), and `local` / `worktree` only from a file inside
/// the repository's git directory (`.git/config`, `.git/config.worktree`: git never commits them).
/// A file the repository's own config includes from elsewhere (`include.path = ../.gitconfig`, a
/// file of the work tree that may be committed) does not count, and is said. Among the values that
/// count the last wins, as git's own rule for a single-valued key.
public struct GitConfigAccount: Equatable, Sendable {
    /// The value: an account name as for an ACCOUNT argument.
    public var value: String
    /// The file it was read from (absolute), or "command line".
    public var file: String
    /// git's scope name (`global`, `local`, …).
    public var scope: String

    public init(value: String, file: String, scope: String) {
        self.value = value
        self.file = file
        self.scope = scope
    }

    /// The `scope NUL origin NUL value NUL` triples of `git config --show-scope --show-origin --null
    /// --get-all authdeck.account`; a relative `file:` origin is made absolute from `directory`.
    public static func entries(_ output: String, directory: String) -> [GitConfigAccount] {
        let fields = output.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
        var entries: [GitConfigAccount] = []
        var index = 0
        while index + 2 < fields.count {
            let origin = fields[index + 1]
            var file = origin
            if origin.hasPrefix("file:") {
                file = String(origin.dropFirst(5))
                if !file.hasPrefix("/") { file = directory == "/" ? "/\(file)" : "\(directory)/\(file)" }
            } else if origin.hasPrefix("command line:") {
                file = "command line"
            }
            entries.append(GitConfigAccount(value: fields[index + 2], file: file, scope: fields[index]))
            index += 3
        }
        return entries
    }

    /// The value that counts among `entries` (the last that counts), and a note for each that does not.
    /// - Parameters:
    ///   - gitDirectories: the repository's git directory and common directory (absolute, real paths).
    ///   - discoveredBareRepository: the git directory of a bare repository git found by looking
    ///     rather than through `GIT_DIR` (git's `safe.bareRepository=explicit` refuses it): its
    ///     `local` and `worktree` values never count, as a committed `tool.git/` could set them.
    public static func counted(_ entries: [GitConfigAccount], gitDirectories: [String],
                               discoveredBareRepository: String? = nil) -> (account: GitConfigAccount?, notes: [String]) {
        var chosen: GitConfigAccount?
        var notes: [String] = []
        for entry in entries {
            switch entry.scope {
            case "system", "global", "command":
                chosen = entry
            case "local", "worktree":
                if let discoveredBareRepository {
                    notes.append("authdeck.account in \(entry.file) is not used: \(discoveredBareRepository) is a bare repository git found"
                        + " by looking from here (a directory committed into another repository can look like one), and a bare repository"
                        + " counts only when GIT_DIR names it (git's safe.bareRepository=explicit); choose the account here with"
                        + " 'authdeck bind' or AUTHDECK_ACCOUNT")
                } else if gitDirectories.contains(where: { DirectoryBinding.path(entry.file, isWithin: $0) }) {
                    chosen = entry
                } else {
                    notes.append("authdeck.account in \(entry.file) is not used: the repository's config includes it from outside"
                        + " its git directory, and a file in a repository never chooses an identity"
                        + " (set it with 'git config authdeck.account', or 'authdeck bind')")
                }
            default:
                notes.append("authdeck.account from \(entry.file) (\(entry.scope) scope) is not used:"
                    + " only the system, global, command-line and repository-local settings choose an account")
            }
        }
        return (chosen, notes)
    }
}
