import Dispatch
import FoundationEssentials
import Glibc

/// Opens a URL in the user's browser the way other command-line tools do.
///
/// Candidates, in order:
/// 1. each entry of `$BROWSER` (a `:`-separated list of commands). A command is split on
///    whitespace and run without a shell; every `%s` in it is replaced by the URL, and if it
///    has no `%s` the URL is appended as one more argument;
/// 2. `xdg-open URL`, only with a display (`DISPLAY` or `WAYLAND_DISPLAY`): without one it
///    would start a text browser in this very terminal (an SSH session, a console).
///
/// A candidate whose program is not found or cannot be started is skipped. The first one that
/// starts is the only one: it opened the URL if it is still running, or exited 0, after
/// ``exitGracePeriod``; one that exits non-zero may still have opened a page, so no other
/// candidate opens the URL again (the caller prints it). The child runs detached: its own process group, stdin from
/// `/dev/null`, stdout and stderr to ``logPath`` (appended, created 0600) or `/dev/null`, no
/// other inherited file descriptors (no sockets, lock files or pipes of ours), and an
/// environment without authdeck secret variables (``childEnvironment(from:)``). It is never
/// waited for beyond the grace period (a background thread reaps it when it exits).
/// `posix_spawn` is used because `Foundation.Process` hangs on children that daemonise.
public struct BrowserLauncher: Sendable {
    /// The environment `$BROWSER` and `$PATH` are read from; children get a filtered copy.
    public var environment: [String: String]
    /// Where the browser's stdout/stderr go; nil means `/dev/null`.
    public var logPath: String?
    /// How long a started command is watched for an early failure, in seconds.
    public var exitGracePeriod: Double

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        logPath: String? = nil,
        exitGracePeriod: Double = 0.5
    ) {
        self.environment = environment
        self.logPath = logPath
        self.exitGracePeriod = exitGracePeriod
    }

    /// Launches the first working candidate for `url`. Returns whether one started; when it
    /// returns false the caller should print the URL for the user to open. Runs off the Swift
    /// cooperative pool (it may wait up to ``exitGracePeriod`` per candidate).
    @discardableResult
    public func open(_ url: URL) async -> Bool {
        await withCheckedContinuation { continuation in
            DedicatedThread.run(name: "authdeck.browser-launcher") {
                continuation.resume(returning: self.openSynchronously(url))
            }
        }
    }

    /// ``open(_:)`` for callers outside Swift concurrency; blocks the calling thread up to
    /// ``exitGracePeriod`` per candidate.
    @discardableResult
    public func openSynchronously(_ url: URL) -> Bool {
        let childEnvironment = Self.childEnvironment(from: environment)
        let graphical = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        for command in Self.commands(browser: environment["BROWSER"], url: url.absoluteString, graphical: graphical) {
            guard let executable = resolve(command[0]) else { continue }
            switch launch(executable: executable, arguments: command, environment: childEnvironment) {
            case .notStarted: continue
            case .opened: return true
            case .failed: return false
            }
        }
        return false
    }

    /// The argument vectors tried for `url`, in order (without resolving programs); `graphical`:
    /// a display is there for `xdg-open`.
    public static func commands(browser: String?, url: String, graphical: Bool) -> [[String]] {
        var commands: [[String]] = []
        for entry in (browser ?? "").split(separator: ":") {
            var words = entry.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard !words.isEmpty else { continue }
            if words.contains(where: { $0.contains("%s") }) {
                words = words.map { $0.replacing("%s", with: url) }
            } else {
                words.append(url)
            }
            commands.append(words)
        }
        if graphical { commands.append(["xdg-open", url]) }
        return commands
    }

    /// `environment` without authdeck secrets: every `AUTHDECK_*` variable whose name mentions
    /// a secret, token, password, passphrase, key or credential (e.g. `AUTHDECK_CLIENT_SECRET`,
    /// `AUTHDECK_PASSPHRASE_FILE`). Other variables, including other `AUTHDECK_*` ones such as
    /// the test browser's `AUTHDECK_TEST_USER` or `AUTHDECK_TEST_COOKIE_JAR`, are kept.
    public static func childEnvironment(from environment: [String: String]) -> [String: String] {
        let secretWords = ["SECRET", "TOKEN", "PASSWORD", "PASSPHRASE", "KEY", "CREDENTIAL"]
        return environment.filter { name, _ in
            let upper = name.uppercased()
            return !(upper.hasPrefix("AUTHDECK_") && secretWords.contains { upper.contains($0) })
        }
    }

    /// An executable path for `program`: as given if it contains `/`, else the first match in `$PATH`.
    private func resolve(_ program: String) -> String? {
        func isExecutableFile(_ path: String) -> Bool {
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
        }
        if program.contains("/") { return isExecutableFile(program) ? program : nil }
        let searchPath = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(program)"
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    private typealias CloseFromFunction = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// glibc ≥ 2.34 `posix_spawn_file_actions_addclosefrom_np` (not visible to Swift without
    /// `_GNU_SOURCE`), looked up once.
    private static let addCloseFrom: CloseFromFunction? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFromFunction.self)
    }()

    /// Makes the child close every descriptor above 2 (those without `FD_CLOEXEC` would
    /// otherwise live as long as the browser: sockets, lock files, pipes).
    private static func closeOtherDescriptors(_ fileActions: inout posix_spawn_file_actions_t) {
        if let addCloseFrom, addCloseFrom(&fileActions, 3) == 0 { return }
        // Fallback: close each descriptor open now (glibc ignores ones closed in between).
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&fileActions, descriptor)
        }
    }

    /// What one candidate did: not started (the next is tried), opened, or started and failed.
    private enum Launch { case notStarted, opened, failed }

    /// Spawns the command detached: opened if it is running, or exited 0, after the grace period.
    private func launch(executable: String, arguments: [String], environment: [String: String]) -> Launch {
        var fileActions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        guard posix_spawn_file_actions_init(&fileActions) == 0 else { return .notStarted }
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        guard posix_spawnattr_init(&attributes) == 0 else { return .notStarted }
        defer { posix_spawnattr_destroy(&attributes) }

        let output = logPath ?? "/dev/null"
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&fileActions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&fileActions, 1, 2)
        Self.closeOtherDescriptors(&fileActions)

        // Own process group (a Ctrl-C in the terminal does not reach the browser), no blocked
        // signals, and default handlers for the signals a TUI may ignore or catch.
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &fileActions, &attributes, argv, envp)
        guard spawned == 0 else { return .notStarted }

        // Watch briefly for an early failure (e.g. xdg-open without a desktop exits 3).
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, exitGracePeriod) * 1e9)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                // Exited: it worked only if it exited 0 (a launcher that hands off and returns).
                let exitedNormally = (status & 0x7f) == 0
                return exitedNormally && ((status >> 8) & 0xff) == 0 ? .opened : .failed
            }
            if result < 0 { return .opened } // already reaped elsewhere; it did start
            usleep(20_000)
        }
        // Still running: let it be, and reap it in the background whenever it exits.
        let childID = pid
        DedicatedThread.run(name: "authdeck.browser-reaper") {
            var status: Int32 = 0
            while waitpid(childID, &status, 0) < 0 && errno == EINTR {}
        }
        return .opened
    }
}
