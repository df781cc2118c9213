// A fake Secret Service on a private session bus (Tests/SecretServiceFake), for the tests of a
// hung daemon, a locked collection unlocked at a prompt, and a dismissed prompt.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `dbus-run-session -- /usr/bin/python3 Tests/SecretServiceFake/fake-secret-service.py …` in its
/// own process group (the bus daemon with it); stopped by that group's id.
public final class FakeSecretService: Sendable {
    /// How the fake behaves (its command-line options).
    public enum Mode: Sendable {
        /// Owns `org.freedesktop.secrets`, then answers nothing.
        case hang
        /// The default collection is locked; each prompt completes (unlocking it) after `promptDelay`.
        case lockedUnlockedByPrompt(promptDelay: Duration)
        /// The default collection is locked; each prompt ends dismissed after `promptDelay`.
        case lockedPromptDismissed(promptDelay: Duration)
    }

    /// What the fake holds and did (its state file): never a secret.
    public struct State: Sendable {
        public var locked: Bool
        /// `provider/account` of each item with the attributes authdeck writes.
        public var items: [String]
        /// Each prompt as `kind:outcome` (`unlock:completed`, `create:dismissed`, …).
        public var prompts: [String]
        /// The method calls received, as `Interface.Method`.
        public var calls: [String]
    }

    /// `DBUS_SESSION_BUS_ADDRESS` of the private bus.
    public let busAddress: String
    private let process: FixtureProcess
    private let stateFile: URL

    /// Debian's interpreter: python3-gi (scripts/apt-packages.txt) is installed for it, not for
    /// another python3 on PATH.
    static let python = "/usr/bin/python3"

    private init(busAddress: String, process: FixtureProcess, stateFile: URL) {
        self.busAddress = busAddress
        self.process = process
        self.stateFile = stateFile
    }

    /// Starts the fake and waits until it owns its bus name.
    public static func start(_ mode: Mode, timeout: Duration = .seconds(30)) async throws -> FakeSecretService {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SecretServiceFake/fake-secret-service.py").path
        let stateFile = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-fake-ss-\(UUID().uuidString).json")
        var arguments = ["--", python, script, "--state", stateFile.path, "--parent-pid", String(getpid()),
                         "--wrong-reply-file", stateFile.path + ".wrong-reply"]
        func seconds(_ duration: Duration) -> String {
            String(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }
        switch mode {
        case .hang: arguments.append("--hang")
        case .lockedUnlockedByPrompt(let delay): arguments += ["--locked", "--prompt-delay", seconds(delay)]
        case .lockedPromptDismissed(let delay): arguments += ["--locked", "--dismiss", "--prompt-delay", seconds(delay)]
        }
        let process = try FixtureProcess.spawn(
            executable: "/usr/bin/dbus-run-session", arguments: arguments,
            environment: ["PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "DBUS_SESSION_BUS_ADDRESS": nil])
        do {
            let line = try await process.readFirstLine(timeout: timeout)
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let address = object["address"] as? String else {
                throw FixtureProcessError.invalidReadyLine(reason: "no address in \(line)")
            }
            return FakeSecretService(busAddress: address, process: process, stateFile: stateFile)
        } catch {
            await process.terminate()
            throw error
        }
    }

    /// The fake's state now.
    public func state() throws -> State {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: stateFile)) as? [String: Any] ?? [:]
        let items = (object["items"] as? [[String: Any]] ?? []).map { item -> String in
            let attributes = item["attributes"] as? [String: String] ?? [:]
            return "\(attributes["provider"] ?? "?")/\(attributes["account"] ?? "?")"
        }
        let prompts = (object["prompts"] as? [[String: Any]] ?? []).map { "\($0["kind"] ?? "?"):\($0["outcome"] ?? "?")" }
        return State(locked: object["locked"] as? Bool ?? false, items: items, prompts: prompts,
                     calls: object["calls"] as? [String] ?? [])
    }

    /// From now on, `method` (`OpenSession`, `SearchItems`, `GetSecret`, …) is answered with one
    /// string more than the API's reply type ("(vo)" as "(vos)"); nil answers every call rightly again.
    public func answerWrongly(_ method: String?) throws {
        try Data((method ?? "").utf8).write(to: URL(fileURLWithPath: stateFile.path + ".wrong-reply"))
    }

    /// What the fake wrote on stderr.
    public func stderrText() -> String { process.stderrText() }

    /// Stops the bus and the fake (their process group) and removes the state file.
    public func stop() async {
        await process.terminate()
        try? FileManager.default.removeItem(at: stateFile)
        try? FileManager.default.removeItem(atPath: stateFile.path + ".wrong-reply")
    }
}
