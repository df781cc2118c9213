import AuthEngine
import FoundationEssentials
import TextSupport

/// `authdeck setup-git`: makes git ask authdeck for the credentials of the hosts
/// its providers serve, as `gh auth setup-git` does. For each URL it adds two values of
/// `credential.<url>.helper` (git-config(1), gitcredentials(7)): an empty one first, which resets
/// the list so that helpers configured earlier do not answer for that host, then authdeck's.
/// `uninstall` removes exactly those two values (`--fixed-value`), and only where authdeck's is.
public struct SetupGit: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// Which config file: `--global` (`~/.gitconfig`) or `--file F`.
    public enum Scope: Equatable, Sendable {
        case global
        case file(String)
        var arguments: [String] {
            switch self {
            case .global: ["--global"]
            case .file(let path): ["--file", path]
            }
        }
    }

    /// The helper value for the binary at `executable`: `!'PATH' git-credential` (a shell snippet,
    /// so a path with spaces works; git appends the operation).
    public static func helperValue(executable: String) -> String {
        "!'\(executable.replacing("'", with: "'\\''"))' git-credential"
    }

    /// The URLs `setup-git` sets up without `--host`: `https://HOST` for each git host of each
    /// provider (`http://` for a loopback address), patterns (`*`) left out.
    public func defaultURLs() throws(AppError) -> [String] {
        var urls: [String] = []
        for provider in try env.files.providers() {
            for entry in provider.gitHosts ?? [] where !entry.host.hasPrefix("*") {
                let scheme = URLPolicy.isLoopbackIPLiteral(GitCredentials.hostname(entry.host)) ? "http" : "https"
                let url = "\(scheme)://\(entry.host)"
                if !urls.contains(url) { urls.append(url) }
            }
        }
        return urls
    }

    /// The URLs whose host no provider lists among its git hosts (``ProviderConfig/gitHosts``,
    /// matched as `git-credential` matches them): git would ask authdeck for them and get nothing.
    public func unservedURLs(_ urls: [String]) throws(AppError) -> [String] {
        try Self.refuseCredentials(urls)
        let providers = try env.files.providers()
        return urls.filter { url in
            guard let host = HelperURL(url)?.host else { return true }
            return !providers.contains { ($0.gitHosts ?? []).contains { $0.matches(host) } }
        }
    }

    /// A URL with a user name or password would put them into the git config (and its messages): refused,
    /// said without them (``ProviderConfig/credentialsProblem(_:)``).
    static func refuseCredentials(_ urls: [String]) throws(AppError) {
        for url in urls {
            if let problem = ProviderConfig.credentialsProblem(url) {
                throw AppError(title: "--host: \(problem)", detail: "Give the host's URL without `user:password@` (git asks authdeck for the"
                                   + " credentials).", disposition: .usage)
            }
        }
    }

    /// The values of `credential.<url>.helper` in `scope`, in order (empty: none, or no git).
    func helpers(_ url: String, scope: Scope) -> [String] {
        let arguments = ["config"] + scope.arguments + ["--null", "--get-all", "credential.\(url).helper"]
        guard let run = env.git.run(arguments, nil), run.status == 0 else { return [] }
        return run.stdout.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Adds the two values for each URL (nothing for a URL already set up).
    /// - Returns: the URLs set up now.
    /// - Throws: git missing or refusing (its message).
    public func install(_ urls: [String], scope: Scope, executable: String) throws(AppError) -> [String] {
        try Self.refuseCredentials(urls)
        let value = Self.helperValue(executable: executable)
        var added: [String] = []
        for url in urls where !helpers(url, scope: scope).contains(where: { $0.utf8.elementsEqual(value.utf8) }) {
            try git(scope.arguments + ["--add", "credential.\(url).helper", ""])
            try git(scope.arguments + ["--add", "credential.\(url).helper", value])
            added.append(url)
        }
        return added
    }

    /// Removes authdeck's value and the empty one before it for each URL where authdeck's is.
    /// - Returns: the URLs it was removed from.
    public func uninstall(_ urls: [String], scope: Scope, executable: String) throws(AppError) -> [String] {
        try Self.refuseCredentials(urls)
        let value = Self.helperValue(executable: executable)
        var removed: [String] = []
        for url in urls {
            let values = helpers(url, scope: scope)
            guard let ours = values.firstIndex(where: { $0.utf8.elementsEqual(value.utf8) }) else { continue }
            try git(scope.arguments + ["--fixed-value", "--unset-all", "credential.\(url).helper", value])
            if ours > 0, values[ours - 1].isEmpty {
                try git(scope.arguments + ["--fixed-value", "--unset-all", "credential.\(url).helper", ""])
            }
            removed.append(url)
        }
        return removed
    }

    /// The URLs whose helper, as git reads it here (every scope), is an authdeck `git-credential` (`status`).
    public func installedURLs() -> [String] {
        guard let run = env.git.run(["config", "--null", "--get-regexp", "^credential\\..*\\.helper$"], nil), run.status == 0 else { return [] }
        var urls: [String] = []
        for entry in run.stdout.split(separator: "\0") {
            let parts = entry.split(separator: "\n", maxSplits: 1)
            guard parts.count == 2, parts[1].hasSuffix("' git-credential"), parts[1].contains("authdeck") else { continue }
            let key = parts[0].dropFirst("credential.".count).dropLast(".helper".count)
            if !urls.contains(String(key)) { urls.append(String(key)) }
        }
        return urls
    }

    private func git(_ arguments: [String]) throws(AppError) {
        guard let run = env.git.run(["config"] + arguments, nil) else {
            throw AppError(title: "git could not be run", detail: "Install git (Debian: apt install git) and run 'authdeck setup-git' again.")
        }
        guard run.status == 0 else {
            throw AppError(title: "git config \(arguments.joined(separator: " ")) failed", detail: run.stderr.trimmingWhitespaceAndNewlines())
        }
    }
}
