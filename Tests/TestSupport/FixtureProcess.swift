// A child process for tests: spawned in its own process group, stopped by that group's id.
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a fixture process could not be started or did not become ready.
public enum FixtureProcessError: Error, Equatable, Sendable {
    /// `posix_spawn` failed with this `errno` for the executable at this path.
    case spawnFailed(errno: Int32, executable: String)
    /// The process ended (exit `status`, or `128 + signal`) before it printed its first line.
    /// `stderrTail` is the end of what it wrote to stderr (fixtures never print secrets there).
    case exitedBeforeReady(status: Int32, stderrTail: String)
    /// Nothing arrived (first line, or exit) within `seconds`.
    case timedOut(seconds: Double, stderrTail: String)
    /// The first line was not the JSON document expected; `reason` says which part.
    case invalidReadyLine(reason: String)
}

/// A process started for a test with `posix_spawn` and `POSIX_SPAWN_SETPGROUP`, so its process
/// group id equals its pid and ``terminate(grace:)`` can signal everything it started.
///
/// - stdin is `/dev/null`; stdout is a pipe read by ``readFirstLine(timeout:)`` (later output
///   is drained and dropped); stderr goes to ``stderrLogURL`` (a 0600 file in a fresh 0700
///   temp dir, removed when this object goes away or at exit) so a chatty child can never
///   block on a full pipe.
/// - Every live fixture is also killed (SIGTERM, then SIGKILL) from an `atexit` handler, and
///   fixtures that take a parent pid should be given `getpid()` so that they exit when the test
///   process dies without running `atexit` (a crash).
/// - Nothing is ever killed by name.
public final class FixtureProcess: Sendable {
    /// The child's pid, which is also its process group id.
    public let pid: pid_t
    /// Where the child's stderr goes.
    public let stderrLogURL: URL
    private let stdoutFD: Int32
    private let state = Mutex<State>(State())

    private struct State {
        var exitStatus: Int32?
        var stdoutClosed = false
    }

    private init(pid: pid_t, stdoutFD: Int32, stderrLogURL: URL) {
        self.pid = pid
        self.stdoutFD = stdoutFD
        self.stderrLogURL = stderrLogURL
    }

    /// Starts `executable` (an absolute path) with `arguments` (argv[1...]).
    /// - Parameters:
    ///   - environment: variables added to (or replacing those of) the current environment;
    ///     a `nil` value removes the variable.
    /// - Throws: ``FixtureProcessError/spawnFailed(errno:executable:)``.
    public static func spawn(
        executable: String,
        arguments: [String] = [],
        environment: [String: String?] = [:]
    ) throws -> FixtureProcess {
        let logDir = FileManager.default.temporaryDirectory
            .appendingPathComponent("authdeck-fixture-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: logDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let logURL = logDir.appendingPathComponent("stderr.log")

        // pipe2 is not visible from Swift's Glibc module: pipe + FD_CLOEXEC, and spawns are
        // serialized so another fixture spawned at the same moment cannot inherit this pipe.
        spawnLock.lock()
        defer { spawnLock.unlock() }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw FixtureProcessError.spawnFailed(errno: errno, executable: executable)
        }
        let (readFD, writeFD) = (fds[0], fds[1])
        _ = fcntl(readFD, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeFD, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeFD, 1)
        posix_spawn_file_actions_addopen(&actions, 2, logURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Own process group (pgid = pid); default handlers and an empty mask for the signals
        // we use, whatever the test runner ignores or blocks.
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGKILL] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(writeFD)
        guard result == 0 else {
            close(readFD)
            throw FixtureProcessError.spawnFailed(errno: result, executable: executable)
        }
        let process = FixtureProcess(pid: pid, stdoutFD: readFD, stderrLogURL: logURL)
        LiveFixtures.register(pid, logDirectory: logDir)
        return process
    }

    /// Starts `executable` with `arguments`, adding `environment` to the current environment.
    /// - Throws: ``FixtureProcessError/spawnFailed(errno:executable:)``.
    public static func spawn(
        executable: String, arguments: [String] = [], environment: [String: String]
    ) throws -> FixtureProcess {
        try spawn(executable: executable, arguments: arguments,
                  environment: environment.mapValues { Optional($0) })
    }

    /// Whether any process of the group still exists (a zombie member counts until reaped).
    public static func processGroupExists(_ pgid: pid_t) -> Bool {
        kill(-pgid, 0) == 0 || errno == EPERM
    }

    /// Whether this fixture's group still has members, and is still this fixture's: once the
    /// leader has been reaped, a process with its pid is another program that reused the pid (a
    /// group whose leader has gone has no process of that pid), and may lead a group of its own —
    /// with a small `pid_max` and tests spawning thousands of processes that happens, and a
    /// SIGTERM to that group ended another test's program (`tmux` panes lead their groups).
    private func ownGroupExists() -> Bool {
        guard Self.processGroupExists(pid) else { return false }
        reap(blocking: false)
        guard state.withLock({ $0.exitStatus }) != nil else { return true }
        return !FileManager.default.fileExists(atPath: "/proc/\(pid)")
    }

    /// The child's exit status once it ended and was reaped: the exit code, or 128 + signal.
    public var exitStatus: Int32? {
        reap(blocking: false)
        return state.withLock { $0.exitStatus }
    }

    /// The last `limit` characters the child wrote to stderr.
    public func stderrTail(limit: Int = 2000) -> String {
        guard let data = try? Data(contentsOf: stderrLogURL) else { return "" }
        let text = String(decoding: data, as: UTF8.self)
        return text.count > limit ? "…" + String(text.suffix(limit)) : text
    }

    /// Everything the child wrote to stderr so far.
    public func stderrText() -> String {
        (try? String(contentsOf: stderrLogURL, encoding: .utf8)) ?? ""
    }

    /// Reads the first line the child writes to stdout (without the newline), waiting at most
    /// `timeout`. Output after that line is drained in the background and dropped.
    /// - Throws: ``FixtureProcessError/exitedBeforeReady(status:stderrTail:)`` when stdout
    ///   closes first, ``FixtureProcessError/timedOut(seconds:stderrTail:)``.
    public func readFirstLine(timeout: Duration) async throws -> String {
        let fd = stdoutFD
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let outcome: Result<String, FixtureReadFailure> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Self.blockingReadLine(fd: fd, seconds: seconds))
            }
            thread.name = "fixture-stdout-\(pid)"
            thread.start()
        }
        switch outcome {
        case .success(let line):
            // From here on the drain thread owns the descriptor and closes it at EOF (the
            // child's stdout closes when the group is gone).
            state.withLock { $0.stdoutClosed = true }
            let drain = Thread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(fd, &buffer, buffer.count)
                    if count > 0 || (count < 0 && errno == EINTR) { continue }
                    break
                }
                close(fd)
            }
            drain.name = "fixture-drain-\(pid)"
            drain.start()
            return line
        case .failure(.eof):
            let status = await waitForExit(timeout: .seconds(5)) ?? -1
            throw FixtureProcessError.exitedBeforeReady(status: status, stderrTail: stderrTail())
        case .failure(.timeout):
            throw FixtureProcessError.timedOut(seconds: seconds, stderrTail: stderrTail())
        }
    }

    private enum FixtureReadFailure: Error { case eof, timeout }

    private static func blockingReadLine(fd: Int32, seconds: Double) -> Result<String, FixtureReadFailure> {
        let deadline = Date().addingTimeInterval(seconds)
        var line = [UInt8]()
        var byte: UInt8 = 0
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .failure(.timeout) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1.0) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            let count = read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return .failure(.eof) }
            if byte == UInt8(ascii: "\n") { return .success(String(decoding: line, as: UTF8.self)) }
            line.append(byte)
        }
    }

    /// Waits for the child to end by itself, at most `timeout`; returns its exit status (the
    /// code, or 128 + signal) or `nil` if it is still running.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Int32? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let status = exitStatus { return status }
            if clock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops the whole process group: SIGTERM, up to `grace` for the child to exit, then
    /// SIGKILL; reaps the child. Safe to call more than once. Returns the child's exit status.
    @discardableResult
    public func terminate(grace: Duration = .seconds(3)) async -> Int32? {
        if ownGroupExists() { kill(-pid, SIGTERM) }
        var status = await waitForExit(timeout: grace)
        if status == nil || ownGroupExists() {
            if ownGroupExists() { kill(-pid, SIGKILL) }
            status = await waitForExit(timeout: .seconds(5))
        }
        closeStdout()
        LiveFixtures.unregister(pid)
        return status
    }

    private func closeStdout() {
        let shouldClose = state.withLock { state -> Bool in
            defer { state.stdoutClosed = true }
            return !state.stdoutClosed
        }
        if shouldClose { close(stdoutFD) }
    }

    private func reap(blocking: Bool) {
        state.withLock { state in
            guard state.exitStatus == nil else { return }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, blocking ? 0 : WNOHANG)
            if result == pid {
                let signal = raw & 0x7f
                state.exitStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
            } else if result < 0 && errno == ECHILD {
                state.exitStatus = -1
            }
        }
    }

    deinit {
        if state.withLock({ $0.exitStatus == nil }) {
            kill(-pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
        LiveFixtures.unregister(pid)
        if !state.withLock({ $0.stdoutClosed }) { close(stdoutFD) }
        try? FileManager.default.removeItem(at: stderrLogURL.deletingLastPathComponent())
    }
}

private let spawnLock = NSLock()

/// Process groups still running, killed at exit in case a test did not stop its fixture.
enum LiveFixtures {
    private static let groups = Mutex<[pid_t: URL]>([:])
    private static let installed = Mutex<Bool>(false)

    static func register(_ pgid: pid_t, logDirectory: URL) {
        groups.withLock { $0[pgid] = logDirectory }
        let install = installed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if install { atexit { LiveFixtures.killAllAtExit() } }
    }

    static func unregister(_ pgid: pid_t) {
        groups.withLock { _ = $0.removeValue(forKey: pgid) }
    }

    static func killAllAtExit() {
        let live = groups.withLock { $0 }
        guard !live.isEmpty else { return }
        defer { for directory in live.values { try? FileManager.default.removeItem(at: directory) } }
        let all = Array(live.keys)
        for pgid in all { kill(-pgid, SIGTERM) }
        for _ in 0..<50 {
            var alive = false
            for pgid in all {
                var raw: Int32 = 0
                _ = waitpid(pgid, &raw, WNOHANG)
                if FixtureProcess.processGroupExists(pgid) { alive = true }
            }
            if !alive { return }
            usleep(20_000)
        }
        for pgid in all { kill(-pgid, SIGKILL) }
    }
}
