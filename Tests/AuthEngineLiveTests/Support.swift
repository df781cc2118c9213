import Foundation
import Testing

/// Errors of the test fixtures themselves (not of the code under test).
struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Base64url without padding (RFC 7515 §2), for test vectors only.
func base64URLDecoded(_ string: String) throws -> Data {
    var base64 = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    guard let data = Data(base64Encoded: base64) else { throw FixtureError("bad base64url: \(string)") }
    return data
}

func base64URLEncoded(_ data: Data) -> String {
    data.base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// A fresh directory under the system temporary directory; remove it with ``remove()``.
struct TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-live-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs blocking fixture work on a thread of its own, so that tests never block the Swift
/// cooperative pool (on 2 cores that would stall other tests' tasks, e.g. a listener's wait).
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}

/// Runs a short-lived tool (openssl, python3) to completion, off the cooperative pool, and
/// returns its stdout. Throws if it exits non-zero. Never use it for anything that daemonises.
@discardableResult
func runTool(_ arguments: [String], stdin: Data? = nil) async throws -> Data {
    try await offPool { try runToolBlocking(arguments, stdin: stdin) }
}

private func runToolBlocking(_ arguments: [String], stdin: Data?) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw FixtureError("\(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(errorText)")
    }
    return data
}

/// A fixture server process (python3) on 127.0.0.1. It prints its port as the first line of
/// stdout. Stopped by PID with ``stop()`` (call it in a `defer`).
final class FixtureServer: @unchecked Sendable {
    let process = Process()
    let port: Int
    private let output = Pipe()

    private let scriptDirectory: TemporaryDirectory

    /// Starts a server (see ``init(source:arguments:)``) off the cooperative pool.
    static func start(source: String, arguments: [String] = []) async throws -> FixtureServer {
        try await offPool { try FixtureServer(source: source, arguments: arguments) }
    }

    /// Writes `source` to a temporary file, starts `python3 -u <file> <arguments>` and waits
    /// (at most 10 s) for the port line.
    init(source: String, arguments: [String] = []) throws {
        scriptDirectory = try TemporaryDirectory()
        let script = scriptDirectory.path("fixture.py")
        try Data(source.utf8).write(to: URL(fileURLWithPath: script))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script] + arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        var buffer = Data()
        let deadline = Date().addingTimeInterval(10)
        while !buffer.contains(UInt8(ascii: "\n")) {
            guard Date() < deadline, process.isRunning else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                scriptDirectory.remove()
                throw FixtureError("fixture server did not print its port")
            }
            var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 100) > 0 {
                buffer.append(handle.availableData)
            }
        }
        let line = String(decoding: buffer.prefix(while: { $0 != UInt8(ascii: "\n") }), as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespaces)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            scriptDirectory.remove()
            throw FixtureError("fixture server printed \(line) instead of a port")
        }
        self.port = port
    }

    /// Kills the server by its PID and reaps it.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        scriptDirectory.remove()
    }
}
