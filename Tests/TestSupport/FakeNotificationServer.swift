// A fake desktop notification server on a private session bus (Tests/NotificationServer), for
// the tests of `authdeck check --notify`.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `dbus-run-session -- <the provider's venv python> Tests/NotificationServer/fake-notifications.py`
/// (jeepney) in its own process group, the bus daemon with it; stopped by that group's id.
public final class FakeNotificationServer: Sendable {
    /// One `org.freedesktop.Notifications.Notify` call as the fake received it.
    public struct Notification: Sendable, Equatable {
        public var appName: String
        public var replacesID: Int
        public var summary: String
        public var body: String
        /// The `urgency` hint (0 low, 1 normal, 2 critical), nil when not sent.
        public var urgency: Int?
        public var expireTimeout: Int
        /// The id the fake answered.
        public var id: Int
    }

    /// `DBUS_SESSION_BUS_ADDRESS` of the private bus.
    public let busAddress: String
    private let process: FixtureProcess
    private let recordFile: URL

    private init(busAddress: String, process: FixtureProcess, recordFile: URL) {
        self.busAddress = busAddress
        self.process = process
        self.recordFile = recordFile
    }

    /// Starts the bus and the fake and waits until it owns `org.freedesktop.Notifications`.
    public static func start(timeout: Duration = .seconds(30)) async throws -> FakeNotificationServer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("NotificationServer/fake-notifications.py").path
        let recordFile = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-fake-notifications-\(UUID().uuidString).jsonl")
        let process = try FixtureProcess.spawn(
            executable: "/usr/bin/dbus-run-session",
            arguments: ["--", LocalIdentityProvider.pythonPath, script, "--record", recordFile.path, "--parent-pid", String(getpid())],
            environment: ["PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "DBUS_SESSION_BUS_ADDRESS": nil])
        do {
            let line = try await process.readFirstLine(timeout: timeout)
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let address = object["address"] as? String else {
                throw FixtureProcessError.invalidReadyLine(reason: "no address in \(line)")
            }
            return FakeNotificationServer(busAddress: address, process: process, recordFile: recordFile)
        } catch {
            await process.terminate()
            throw error
        }
    }

    /// Every notification received so far, in order.
    public func notifications() throws -> [Notification] {
        guard let text = try? String(contentsOf: recordFile, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            return Notification(appName: object["app_name"] as? String ?? "", replacesID: object["replaces_id"] as? Int ?? -1,
                                summary: object["summary"] as? String ?? "", body: object["body"] as? String ?? "",
                                urgency: (object["hints"] as? [String: Any])?["urgency"] as? Int,
                                expireTimeout: object["expire_timeout"] as? Int ?? 0, id: object["id"] as? Int ?? -1)
        }
    }

    /// What the fake (and the bus daemon) wrote on stderr.
    public func stderrText() -> String { process.stderrText() }

    /// Stops the bus and the fake (their process group) and removes the record.
    public func stop() async {
        await process.terminate()
        try? FileManager.default.removeItem(at: recordFile)
    }
}
