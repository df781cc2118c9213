// Runs the built `authdeck` binary as a child process with a throw-away XDG home.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The package root (from this file's path).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The binary that ships (``ShippedBinary``): `$AUTHDECK_BINARY`, else `.build/release/authdeck`.
let authdeckBinary: String = ShippedBinary.path

/// The shipped binary is missing or stale (``ShippedBinary/problem``).
struct ShippedBinaryMissing: Error, CustomStringConvertible {
    var problem: String
    var description: String { problem }
}

/// A value shared with the pipe handlers.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}

/// What one run of the binary did.
struct RunResult: CustomStringConvertible {
    var exitCode: Int32
    var stdout: String
    var stderr: String
    /// Never prints stdout (it may hold a token); stderr holds no secrets by design.
    var description: String { "exit \(exitCode), \(stdout.utf8.count) bytes on stdout, stderr: \(stderr)" }
}

/// Where a child's descriptor 1 goes.
enum StandardOutputTarget: Sendable {
    /// A pipe read by the test (the default).
    case pipe
    /// Closed before exec (`>&-`).
    case closed
    /// A file opened write-only (e.g. `/dev/full`).
    case file(String)
}

/// A running `authdeck` (posix_spawn, its own process group); its stdout and stderr are
/// collected by reader threads as they arrive.
final class RunningCommand: Sendable {
    let pid: pid_t
    private let out = Locked(Data())
    private let err = Locked(Data())
    private let exited = Locked<Int32?>(nil)
    private let drained = Locked(0)

    init(_ arguments: [String], environment: [String: String], stdin: Data? = nil,
         stdout target: StandardOutputTarget = .pipe, argumentVector: [String]? = nil,
         executable: String = authdeckBinary) throws {
        if executable == authdeckBinary, let problem = ShippedBinary.problem { throw ShippedBinaryMissing(problem: problem) }
        var outFDs: [Int32] = [-1, -1], errFDs: [Int32] = [-1, -1], inFDs: [Int32] = [-1, -1]
        guard pipe(&outFDs) == 0, pipe(&errFDs) == 0, pipe(&inFDs) == 0 else { throw POSIXError(.EMFILE) }
        for fd in outFDs + errFDs + inFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inFDs[0], 0)
        switch target {
        case .pipe: posix_spawn_file_actions_adddup2(&actions, outFDs[1], 1)
        case .closed: posix_spawn_file_actions_addclose(&actions, 1)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, errFDs[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        // `argumentVector` replaces the whole argument vector (an empty one is argc 0).
        let argv = (argumentVector ?? ([executable] + arguments)).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(inFDs[0]); close(outFDs[1]); close(errFDs[1])
        guard result == 0 else {
            close(inFDs[1]); close(outFDs[0]); close(errFDs[0])
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL)
        }
        self.pid = pid
        for (fd, buffer) in [(outFDs[0], out), (errFDs[0], err)] {
            let drained = self.drained
            Thread.detachNewThread {
                var chunk = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = read(fd, &chunk, chunk.count)
                    if count > 0 {
                        buffer.withLock { $0.append(contentsOf: chunk[0..<count]) }
                    } else if count < 0 && errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
                close(fd)
                drained.withLock { $0 += 1 }
            }
        }
        let inFD = inFDs[1]
        if let stdin, !stdin.isEmpty {
            stdin.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(inFD, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
        close(inFD)
    }

    /// Reaps the child if it has exited (WNOHANG).
    private func poll() -> Int32? {
        if let code = exited.withLock({ $0 }) { return code }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exited.withLock { $0 = code }
        return code
    }

    func signal(_ number: Int32) { kill(pid, number) }

    var stderrText: String { String(decoding: err.withLock { $0 }, as: UTF8.self) }
    var stdoutText: String { String(decoding: out.withLock { $0 }, as: UTF8.self) }

    /// Waits for exit (SIGKILL to its process group after `timeout` seconds: exit code -1).
    func wait(timeout: Double = 60) async -> RunResult {
        let deadline = Date().addingTimeInterval(timeout)
        var code = poll()
        while code == nil && Date() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
            code = poll()
        }
        if code == nil {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            code = -1
        }
        // Let the reader threads see end of file.
        let drainDeadline = Date().addingTimeInterval(5)
        while drained.withLock({ $0 }) < 2 && Date() < drainDeadline { try? await Task.sleep(for: .milliseconds(5)) }
        return RunResult(exitCode: code ?? -1, stdout: stdoutText, stderr: stderrText)
    }

    /// Waits until stderr matches `pattern`; returns the first capture group.
    func waitForStderr(_ pattern: String, timeout: Double = 30) async -> String? {
        let regex = try! NSRegularExpression(pattern: pattern)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = stderrText
            if let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
               let range = Range(match.range(at: match.numberOfRanges > 1 ? 1 : 0), in: text) {
                return String(text[range])
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

/// A throw-away XDG home with a vault whose passphrase comes from a 0600 file, plus the
/// browser stand-in as `$BROWSER`.
struct CLIHome {
    let root: URL
    var environment: [String: String]

    /// - Parameter directory: the root (a fresh temp dir when nil).
    init(provider: LocalIdentityProvider? = nil, user: String = "alice", root directory: URL? = nil) throws {
        root = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-cli-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let passphrase = root.appendingPathComponent("passphrase")
        _ = FileManager.default.createFile(atPath: passphrase.path, contents: Data("cli test vault passphrase".utf8), attributes: [.posixPermissions: 0o600])
        environment = [
            "HOME": root.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_STATE_HOME": root.appendingPathComponent("state").path,
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_CACHE_HOME": root.appendingPathComponent("cache").path,
            "XDG_RUNTIME_DIR": root.appendingPathComponent("run").path,
            "AUTHDECK_STORE": "vault", "AUTHDECK_PASSPHRASE_FILE": passphrase.path,
            // A vault the binary makes here uses Argon2id's minimum limits (the moderate ones cost
            // 0.5 s and 256 MiB each, and what they cost is not what these tests test).
            "AUTHDECK_TEST_MINIMUM_KDF_PASSPHRASE_FILE": passphrase.path,
            "LANG": "C.UTF-8", "no_proxy": "127.0.0.1,localhost,::1", "NO_COLOR": "1",
        ]
        if let provider {
            environment.merge(provider.browserEnvironment(user: user), uniquingKeysWith: { $1 })
        }
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// Runs `authdeck arguments…` to completion.
    func run(_ arguments: [String], stdin: Data? = nil, extra: [String: String] = [:], timeout: Double = 60) async throws -> RunResult {
        try await start(arguments, stdin: stdin, extra: extra).wait(timeout: timeout)
    }

    func start(_ arguments: [String], stdin: Data? = nil, extra: [String: String] = [:],
               stdout target: StandardOutputTarget = .pipe, argv: [String]? = nil) throws -> RunningCommand {
        try RunningCommand(arguments, environment: environment.merging(extra, uniquingKeysWith: { $1 }), stdin: stdin,
                           stdout: target, argumentVector: argv)
    }

    /// Runs `authdeck arguments…` with descriptor 1 closed or on a file.
    func run(_ arguments: [String], stdout target: StandardOutputTarget, extra: [String: String] = [:]) async throws -> RunResult {
        try await start(arguments, extra: extra, stdout: target).wait()
    }

    /// `provider add local --issuer … --client-id authdeck-native`.
    func addLocalProvider(_ idp: LocalIdentityProvider, name: String = "local") async throws {
        let result = try await run(["provider", "add", name, "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID])
        try #require(result.exitCode == 0, "provider add: \(result)")
    }

    /// `login` through the browser stand-in as `user`.
    func login(_ provider: String = "local", user: String = "alice", extra: [String] = []) async throws {
        let result = try await run(["login", provider] + extra, extra: ["AUTHDECK_TEST_USER": user])
        try #require(result.exitCode == 0, "login \(user): \(result)")
    }

    func statusJSON() async throws -> (RunResult, [String: Any]) {
        let result = try await run(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (result, try #require(object, "status --json: \(result)"))
    }
}

/// The `--help` golden next to this file (Snapshots/<name>.txt). `RECORD_SNAPSHOTS=1` records
/// the current output and fails.
func assertSnapshot(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = packageRoot.appendingPathComponent("Tests/CLITests/Snapshots/\(name).txt")
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(actual.utf8).write(to: url)
        Issue.record("recorded \(url.lastPathComponent); run again without RECORD_SNAPSHOTS", sourceLocation: sourceLocation)
        return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
        Issue.record("no snapshot \(url.lastPathComponent); record it with RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
        return
    }
    #expect(actual == expected, "\(name) differs from its snapshot", sourceLocation: sourceLocation)
}

/// The CLI tests' own provider (default lifetimes), separate from `LocalIdentityProvider.shared`:
/// the provider's SQLite database fails concurrent token requests ("database is locked"), so
/// the CLI suite (serialized) does not share one with suites that run at the same time.
actor CLIProvider {
    static let shared = CLIProvider()
    private var starting: Task<LocalIdentityProvider, any Error>?

    func provider() async throws -> LocalIdentityProvider {
        if let starting { return try await starting.value }
        let task = Task { try await LocalIdentityProvider.start() }
        starting = task
        return try await task.value
    }
}
