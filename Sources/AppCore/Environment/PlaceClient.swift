import FoundationEssentials

/// Where the process runs, for account resolution: its directory, real paths and the
/// directory rules (`bindings.json`).
public struct PlaceClient: Sendable {
    /// The real path of the current directory (symlinks resolved); nil when it cannot be read.
    public var currentDirectory: @Sendable () -> String?
    /// The real path of `path` (realpath(3): absolute, symlinks resolved); nil when it does not exist.
    public var realPath: @Sendable (_ path: String) -> String?
    /// The directory rules; none when the file does not exist.
    /// - Throws: the file's damage (`.fileDamaged`) or why it cannot be read.
    public var bindings: @Sendable () throws(AppError) -> [DirectoryBinding]
    /// One read-modify-write of the rules under the file's lock (the live value: StrictJSON, 0600, atomic).
    public var updateBindings: @Sendable (_ change: (inout [DirectoryBinding]) -> Void) throws(AppError) -> Void
    /// A place already read elsewhere (the remote's, sent with an agent request): ``Places/read(_:)``
    /// of the current directory returns it as it is, reading nothing here.
    public var given: AccountPlace? = nil

    public init(currentDirectory: @escaping @Sendable () -> String?, realPath: @escaping @Sendable (String) -> String?,
                bindings: @escaping @Sendable () throws(AppError) -> [DirectoryBinding],
                updateBindings: @escaping @Sendable ((inout [DirectoryBinding]) -> Void) throws(AppError) -> Void) {
        self.currentDirectory = currentDirectory
        self.realPath = realPath
        self.bindings = bindings
        self.updateBindings = updateBindings
    }

    /// The place `place`, read by someone else (the agent's remote): no file here is read or written.
    public static func fixed(_ place: AccountPlace) -> PlaceClient {
        var client = PlaceClient.none
        client.given = place
        return client
    }

    /// Nowhere: no directory, no rules (a world without a file system).
    public static let none = PlaceClient(currentDirectory: { nil }, realPath: { _ in nil }, bindings: { [] }, updateBindings: { _ throws(AppError) in
        throw AppError(title: "Cannot save the directory rule", detail: "No rules file in this environment.")
    })
}

/// git, run as a child process: `git config` for `authdeck.account` and `setup-git`.
public struct GitClient: Sendable {
    /// Runs `git ARGUMENTS` (in `directory` when given: `git -C`), stdin empty, with the process's
    /// environment less authdeck's own variables; nil when git could not be run (not installed)
    /// or did not finish within 10 s (then stopped).
    public var run: @Sendable (_ arguments: [String], _ directory: String?) -> GitRun?
    /// Whether `git config` run in `directory` could print a value of a key in `section` (such as
    /// `authdeck`): false only when it certainly could not, so that asking costs no child process
    /// (the live value reads the files git would read; PERFORMANCE.md). True where in doubt.
    public var configMayMention: @Sendable (_ section: String, _ directory: String) -> Bool

    public init(run: @escaping @Sendable ([String], String?) -> GitRun?,
                configMayMention: @escaping @Sendable (String, String) -> Bool = { _, _ in true }) {
        self.run = run
        self.configMayMention = configMayMention
    }

    /// No git here.
    public static let none = GitClient { _, _ in nil }
}

/// What one git command did.
public struct GitRun: Equatable, Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}
