// A real Secret Service: gnome-keyring-daemon on a private session bus (dbus-run-session), its
// login keyring unlocked with a throw-away password, in directories of its own.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `dbus-run-session -- sh -c 'gnome-keyring-daemon --unlock …; echo ADDRESS; exec sleep'` in its
/// own process group (the bus and the daemon with it); stopped by that group's id.
public final class GnomeKeyringSession: Sendable {
    /// `DBUS_SESSION_BUS_ADDRESS` of the private bus.
    public let busAddress: String
    private let process: FixtureProcess
    private let directory: URL

    private init(busAddress: String, process: FixtureProcess, directory: URL) {
        self.busAddress = busAddress
        self.process = process
        self.directory = directory
    }

    /// Starts the bus with the daemon unlocked (`daemon: false`: the bus alone, where
    /// `org.freedesktop.secrets` is only activatable) and waits until the address is known.
    public static func start(daemon: Bool = true, timeout: Duration = .seconds(30)) async throws -> GnomeKeyringSession {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-keyring-\(UUID().uuidString)")
        for sub in ["data", "run"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let password = directory.appendingPathComponent("password")
        try Data(UUID().uuidString.utf8).write(to: password)
        let unlock = daemon ? "gnome-keyring-daemon --unlock --components=secrets < \"$1\" >/dev/null 2>&1 || exit 3; " : ""
        let process = try FixtureProcess.spawn(
            executable: "/usr/bin/dbus-run-session",
            arguments: ["--", "/bin/sh", "-c", unlock + "echo \"$DBUS_SESSION_BUS_ADDRESS\"; exec sleep 3600", "sh", password.path],
            environment: ["DBUS_SESSION_BUS_ADDRESS": nil, "DISPLAY": nil, "HOME": directory.path,
                          "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
                          "XDG_RUNTIME_DIR": directory.appendingPathComponent("run").path])
        do {
            let address = try await process.readFirstLine(timeout: timeout)
            guard address.hasPrefix("unix:") else { throw FixtureProcessError.invalidReadyLine(reason: "no bus address: \(address)") }
            return GnomeKeyringSession(busAddress: address, process: process, directory: directory)
        } catch {
            await process.terminate()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Stops the bus and the daemon (their process group) and removes the keyring's directories.
    public func stop() async {
        await process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}
