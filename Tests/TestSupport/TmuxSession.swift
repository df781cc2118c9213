// A private tmux server for driving a full-screen program in tests: send keys, capture the pane
// as text, poll until a predicate holds. Every session has its own socket (-L) and is stopped by
// killing that server only.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a tmux command failed.
public enum TmuxSessionError: Error, CustomStringConvertible {
    /// `posix_spawnp` returned this error for this executable.
    case spawnFailed(String, Int32)
    /// tmux exited non-zero; its arguments (never secrets) and its output.
    case commandFailed([String], String)
    /// The predicate did not hold within the timeout; what was awaited and the last screen.
    case timeout(String, lastScreen: String)

    public var description: String {
        switch self {
        case .spawnFailed(let path, let rc): "could not spawn \(path): errno \(rc)"
        case .commandFailed(let args, let output): "tmux \(args.joined(separator: " ")) failed: \(output)"
        case .timeout(let what, let screen): "timed out waiting for \(what); last screen:\n\(screen)"
        }
    }
}

/// A tmux server on its own socket running one command in a session named "ui".
public final class TmuxSession: @unchecked Sendable {
    /// The `-L` socket name, unique per session.
    public let socket: String
    /// The environment of every tmux client started here (the server, hence the pane, inherits
    /// the first one's).
    public let environment: [String: String]

    /// The first tmux found on the usual paths, or nil.
    public static var tmuxPath: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts a detached `width`×`height` session running `command` through `/bin/sh -c`.
    /// - Parameters:
    ///   - environment: the environment of the tmux server and so of the pane's shell (`TMUX`
    ///     is removed). Put secrets in files, never in `command`.
    /// - Throws: ``TmuxSessionError``.
    public init(width: Int, height: Int, command: String, environment: [String: String]) throws {
        socket = "authdeck-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        var e = environment
        e.removeValue(forKey: "TMUX")
        self.environment = e
        try tmux(["-f", "/dev/null", "new-session", "-d", "-s", "ui", "-x", "\(width)", "-y", "\(height)", command])
    }

    /// Runs `tmux -L socket args…` and returns its output.
    @discardableResult
    public func tmux(_ args: [String]) throws -> String {
        let r = try Self.spawnAndWait(["tmux", "-L", socket] + args, environment: environment)
        guard r.status == 0 else { throw TmuxSessionError.commandFailed(args, r.output) }
        return r.output
    }

    /// The visible screen as plain text (`capture-pane -p`).
    public func capture() throws -> String { try tmux(["capture-pane", "-p", "-t", "ui"]) }

    /// The screen plus up to `history` lines of scroll-back.
    public func capture(history: Int) throws -> String {
        try tmux(["capture-pane", "-p", "-t", "ui", "-S", "-\(history)"])
    }

    /// `send-keys` (tmux key names such as `Enter`, `Escape`, `Tab`, `Space`, `Down`).
    public func sendKeys(_ keys: String...) throws { try tmux(["send-keys", "-t", "ui"] + keys) }

    /// `display-message -p` of a format such as `#{alternate_on}`.
    public func display(_ format: String) throws -> String {
        try tmux(["display-message", "-p", "-t", "ui", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Resizes the window (the program gets SIGWINCH).
    public func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", "ui", "-x", "\(width)", "-y", "\(height)"])
    }

    /// Polls the screen every 100 ms until `predicate` holds.
    /// - Parameters:
    ///   - timeout: seconds.
    ///   - history: lines of scroll-back to include (0 = the visible screen only).
    /// - Returns: the capture that matched.
    /// - Throws: ``TmuxSessionError/timeout(_:lastScreen:)`` with the last capture.
    @discardableResult
    public func waitFor(_ what: String, timeout: Double = 20, history: Int = 0,
                        _ predicate: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        repeat {
            last = (try? (history > 0 ? capture(history: history) : capture())) ?? last
            if predicate(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        } while Date() < deadline
        throw TmuxSessionError.timeout(what, lastScreen: last)
    }

    /// Kills this session's own server (by its socket) and removes the socket file.
    public func kill() {
        _ = try? tmux(["kill-server"])
        let dir = environment["TMUX_TMPDIR"] ?? "/tmp"
        unlink("\(dir)/tmux-\(getuid())/\(socket)")
    }

    /// Runs a program with stdin from /dev/null and stdout+stderr to a temp file, waits for it
    /// and returns (exit status or -1 if killed by a signal, output). Uses posix_spawn with an
    /// empty signal mask and default dispositions so tmux (and the program under test) see
    /// SIGWINCH/SIGTERM even when called from a thread that blocks signals.
    public static func spawnAndWait(_ args: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
        let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-tmux-\(UUID().uuidString)").path
        defer { unlink(outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGPIPE, SIGCHLD] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, args[0], &actions, &attr, argv, envp)
        guard rc == 0 else { throw TmuxSessionError.spawnFailed(args[0], rc) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let exited = (status & 0x7f) == 0
        return (exited ? (status >> 8) & 0xff : -1, output)
    }
}
