// A second Unix user for tests that stand for "the remote machine" of an SSH session: its own uid,
// login shell and passwd home, so that a socket's owner, a file's mode or a process's environment
// are seen as another account sees them. Needs root (useradd, a root sshd to switch users): not
// root is an error that says so, never a skip.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The user ``name`` (made when missing; kept, so later runs reuse it) and a fresh directory of its own.
public struct RemoteAccount: Sendable {
    /// The fixed login name: `authdeck-remote`.
    public static let name = "authdeck-remote"
    public let uid: uid_t
    public let gid: gid_t
    /// A fresh 0700 directory owned by the user (in the temp dir): a test's HOME and runtime dir go under it.
    public let root: URL

    /// Makes the user when missing (`useradd --create-home --shell /bin/sh`, password `*`: no
    /// password, not locked, which sshd with `UsePAM no` requires), then ``root``.
    /// - Throws: ``SSHServerError`` when not root (naming what to do) or when `useradd` fails.
    public static func make() throws -> RemoteAccount {
        guard geteuid() == 0 else {
            throw SSHServerError(description: """
                this test logs in over SSH as a second Unix user (\(name)), which needs root \
                (useradd, and a root sshd to switch users); run the tests as root, as CI does
                """)
        }
        if getpwnam(name) == nil {
            try run("/usr/sbin/useradd", ["--create-home", "--shell", "/bin/sh", "--password", "*", name])
        }
        guard let entry = getpwnam(name) else { throw SSHServerError(description: "useradd made no passwd entry for \(name)") }
        let uid = entry.pointee.pw_uid, gid = entry.pointee.pw_gid
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard chown(root.path, uid, gid) == 0 else { throw SSHServerError(description: "chown \(root.path) to \(name) failed") }
        return RemoteAccount(uid: uid, gid: gid, root: root)
    }

    /// Gives everything under ``root`` to the user (after the test wrote files there as root).
    public func own() {
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        for file in files { _ = lchown(root.appendingPathComponent(file).path, uid, gid) }
    }

    /// Copies an executable (and, when present, `authdeck-full` beside it) into `root/bin`, 0755:
    /// the build directory need not be traversable by the user.
    public func install(executable path: String) throws -> String {
        let bin = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let source = URL(fileURLWithPath: path)
        for name in [source.lastPathComponent, "authdeck-full"] {
            let from = source.deletingLastPathComponent().appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: from.path) else { continue }
            try FileManager.default.copyItem(at: from, to: bin.appendingPathComponent(name))
            chmod(bin.appendingPathComponent(name).path, 0o755)
        }
        own()
        return bin.appendingPathComponent(source.lastPathComponent).path
    }

    public func remove() { try? FileManager.default.removeItem(at: root) }

    private static func run(_ path: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        // A parallel run may have made it meanwhile (exit 9: the name is taken).
        if process.terminationStatus != 0 && getpwnam(name) == nil {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw SSHServerError(description: "\(path) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(text)")
        }
    }
}
