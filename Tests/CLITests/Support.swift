// Runs the built `authdeck` binary as a child process with a throw-away XDG home.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The package root (from this file's path).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `.build/debug/authdeck` (built by `swift build` before `swift test`), or `$AUTHDECK_BINARY`.
let authdeckBinary: String = {
    if let path = ProcessInfo.processInfo.environment["AUTHDECK_BINARY"], !path.isEmpty { return path }
    return packageRoot.appendingPathComponent(".build/debug/authdeck").path
}()

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

/// A running `authdeck`; its stdout and stderr are collected as they arrive.
final class RunningCommand: Sendable {
    let process: Process
    private let out = Locked(Data())
    private let err = Locked(Data())
    private let exited = Locked<Int32?>(nil)

    init(_ arguments: [String], environment: [String: String], stdin: Data? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: authdeckBinary)
        process.arguments = arguments
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        self.process = process
        outPipe.fileHandleForReading.readabilityHandler = { [out] handle in
            let data = handle.availableData
            out.withLock { $0.append(data) }
        }
        errPipe.fileHandleForReading.readabilityHandler = { [err] handle in
            let data = handle.availableData
            err.withLock { $0.append(data) }
        }
        process.terminationHandler = { [exited] process in
            exited.withLock { $0 = process.terminationStatus }
        }
        try process.run()
        if let stdin { inPipe.fileHandleForWriting.write(stdin) }
        try? inPipe.fileHandleForWriting.close()
    }

    var stderrText: String { String(decoding: err.withLock { $0 }, as: UTF8.self) }
    var stdoutText: String { String(decoding: out.withLock { $0 }, as: UTF8.self) }

    /// Waits for exit (SIGKILL after `timeout` seconds: exit code -1).
    func wait(timeout: Double = 60) async -> RunResult {
        let deadline = Date().addingTimeInterval(timeout)
        while exited.withLock({ $0 }) == nil && Date() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        var code = exited.withLock { $0 }
        if code == nil {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            code = -1
        }
        // Let the readability handlers drain the pipes.
        try? await Task.sleep(for: .milliseconds(50))
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

    init(provider: LocalIdentityProvider? = nil, user: String = "alice") throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-cli-test-\(UUID().uuidString)")
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

    func start(_ arguments: [String], stdin: Data? = nil, extra: [String: String] = [:]) throws -> RunningCommand {
        try RunningCommand(arguments, environment: environment.merging(extra, uniquingKeysWith: { $1 }), stdin: stdin)
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
