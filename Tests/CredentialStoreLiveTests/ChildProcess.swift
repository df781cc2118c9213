import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process in its own process group, started with posix_spawn, with stdout and stderr
/// in files (a daemon that inherits them cannot block us, unlike a pipe) and an explicit
/// environment. Stopped by killing its process group; always reaped with waitpid.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    private(set) var exitStatus: Int32?

    /// The probe executable built next to the test bundle.
    static var probePath: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("credential-store-probe").path
    }

    /// A minimal environment for children: PATH, LANG and what the test adds. No DISPLAY, no bus.
    static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
        environment.merge(extra) { $1 }
        return environment
    }

    init(_ executable: String, _ arguments: [String], environment: [String: String], outputDirectory: String) throws {
        let tag = UUID().uuidString.prefix(8)
        stdoutPath = "\(outputDirectory)/stdout-\(tag)"
        stderrPath = "\(outputDirectory)/stderr-\(tag)"
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        pid = child
    }

    /// Waits for exit up to `timeout`; then (or on timeout) kills the whole process group and reaps the child.
    /// Returns the exit status, or nil when it had to be killed.
    @discardableResult
    func wait(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
                kill(-pid, SIGKILL)  // leftovers in the group (a keyring daemon)
                return exitStatus
            }
            usleep(5_000)
        }
        stop()
        return nil
    }

    /// SIGKILL to the process group, then reap the child.
    func stop() {
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The JSON objects the probe printed, one per line (a torn last line is ignored).
    var jsonLines: [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }
}
