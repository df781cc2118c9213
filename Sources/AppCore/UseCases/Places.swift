import AuthEngine
import FoundationEssentials
import TextSupport

/// Per-directory accounts: what a directory says about the account (git config,
/// the directory rules), the one resolution over it, and `bind` / `unbind`. Nothing here writes
/// the active account: a rule is never a global change.
public struct Places: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// What `directory` (default: the current directory) says: its real path, the `authdeck.account`
    /// git config value that counts there (``GitConfigAccount``), and the directory rule covering it.
    /// Reads only; git missing or failing means no git config value, and git is not run where no
    /// file it reads could set one (``GitClient/configMayMention``).
    public func read(_ directory: String? = nil) -> AccountPlace {
        if directory == nil, let given = env.place.given { return given }
        guard let real = directory.map({ env.place.realPath($0) }) ?? env.place.currentDirectory() else { return .nowhere }
        var place = AccountPlace(directory: real)
        if env.git.configMayMention("authdeck", real),
           let run = env.git.run(["config", "--show-scope", "--show-origin", "--null", "--get-all", "authdeck.account"], real), run.status == 0 {
            var entries = GitConfigAccount.entries(run.stdout, directory: real)
            var gitDirectories: [String] = []
            var discoveredBare: String?
            if entries.contains(where: { $0.scope == "local" || $0.scope == "worktree" }) {
                // git's safe.bareRepository=explicit: a bare repository git finds by looking (a directory
                // committed into another repository can look like one) is used only when GIT_DIR names it.
                let revParse = ["rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-prefix"]
                var rev = env.git.run(["-c", "safe.bareRepository=explicit"] + revParse, real)
                if rev?.status != 0, let plain = env.git.run(revParse, real), plain.status == 0 {
                    let gitDirectory = String(plain.stdout.prefix { $0 != "\n" })
                    // git 2.39 refuses the `.git` directory of a work tree too (later versions do not): that one counts.
                    if PathText.lastComponent(gitDirectory).utf8.elementsEqual(".git".utf8) { rev = plain } else { discoveredBare = gitDirectory }
                }
                if let rev, rev.status == 0 {
                    let lines = rev.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    gitDirectories = lines.prefix(2).filter { !$0.isEmpty }.compactMap { path in
                        env.place.realPath(path.hasPrefix("/") ? path : "\(real)/\(path)")
                    }
                    // A relative origin is relative to where git works after finding the repository:
                    // the top of the work tree (`real` less git's prefix, `src/` in `repo/src`), or
                    // the git directory itself when run in it (empty prefix).
                    let depth = lines.count > 2 ? lines[2].split(separator: "/").count : 0
                    let top = (0..<depth).reduce(real) { path, _ in PathText.directory(path) }
                    entries = GitConfigAccount.entries(run.stdout, directory: top)
                }
                for index in entries.indices where entries[index].file.hasPrefix("/") {
                    entries[index].file = env.place.realPath(entries[index].file) ?? entries[index].file
                }
            }
            (place.gitConfig, place.notes) = GitConfigAccount.counted(entries, gitDirectories: gitDirectories,
                                                                      discoveredBareRepository: discoveredBare)
        }
        do {
            place.rule = DirectoryBinding.match(real, in: try env.place.bindings())
        } catch {
            place.rulesProblem = "\(error.title)\(error.detail.isEmpty ? "" : ": \(error.detail)")"
        }
        return place
    }

    /// The account `query` names, or the default one (``AccountResolution/choose(_:accounts:active:environmentAccount:place:)``);
    /// the place is read only when the choice reaches it (an account signed in, no query, no
    /// `AUTHDECK_ACCOUNT`), so `token ACCOUNT` runs no git (measured: `token` through a directory
    /// rule 11.7 ms, with `AUTHDECK_ACCOUNT` 11.3 ms, DirectoryAccountsTests).
    public func choose(_ query: String?, in snapshot: LoadedSnapshot, environmentAccount: String?,
                       place: AccountPlace? = nil) throws(AccountResolutionError) -> ResolvedAccount {
        let reachesPlace = query == nil && environmentAccount?.isEmpty != false && !snapshot.accounts.isEmpty
        return try AccountResolution.choose(query, accounts: snapshot.accounts, active: snapshot.activeAccountID,
                                            environmentAccount: environmentAccount, place: reachesPlace ? (place ?? read()) : .nowhere)
    }

    /// The real path `directory` (default: the current directory) names.
    /// - Throws: `.usage` naming the directory when it does not exist.
    public func realDirectory(_ directory: String?) throws(AppError) -> String {
        guard let real = directory.map({ env.place.realPath($0) }) ?? env.place.currentDirectory() else {
            throw AppError(title: "No directory '\(directory ?? ".")'", detail: "Give an existing directory with --dir.", disposition: .usage)
        }
        return real
    }

    /// `path` made absolute from the current directory, without a trailing `/`; nil when the current directory is unknown.
    func absolutePath(_ path: String) -> String? {
        var absolute = path
        if !path.hasPrefix("/") {
            guard let here = env.place.currentDirectory() else { return nil }
            absolute = here == "/" ? "/\(path)" : "\(here)/\(path)"
        }
        while absolute.count > 1, absolute.hasSuffix("/") { absolute.removeLast() }
        return absolute
    }

    /// Makes commands run in `directory` (default: the current one) or below it use `account`;
    /// replaces that directory's rule if it had one.
    /// - Returns: the rule saved and the rule it replaced, if any.
    /// - Throws: `.usage` for a directory that does not exist; the rules file's errors.
    public func bind(_ account: AccountID, directory: String?) throws(AppError) -> (rule: DirectoryBinding, replaced: DirectoryBinding?) {
        let rule = DirectoryBinding(directory: try realDirectory(directory), account: account)
        var replaced: DirectoryBinding?
        try env.place.updateBindings { rules in
            replaced = rules.first { $0.directory.exactlyEquals(rule.directory) }
            rules.removeAll { $0.directory.exactlyEquals(rule.directory) }
            rules.append(rule)
            rules.sort { $0.directory.utf8.lexicographicallyPrecedes($1.directory.utf8) }
        }
        return (rule, replaced)
    }

    /// Removes the rule of exactly `directory` (default: the current one).
    /// - Returns: the rule removed (nil: there was none) and the rule that still covers the directory, if any.
    /// A directory that no longer exists is matched by the absolute path given (its rule can still go).
    public func unbind(directory: String?) throws(AppError) -> (removed: DirectoryBinding?, stillCovering: DirectoryBinding?) {
        let real: String
        if let directory, env.place.realPath(directory) == nil, let absolute = absolutePath(directory) {
            real = absolute
        } else {
            real = try realDirectory(directory)
        }
        var removed: DirectoryBinding?
        var remaining: [DirectoryBinding] = []
        try env.place.updateBindings { rules in
            removed = rules.first { $0.directory.exactlyEquals(real) }
            rules.removeAll { $0.directory.exactlyEquals(real) }
            remaining = rules
        }
        return (removed, DirectoryBinding.match(real, in: remaining))
    }
}
