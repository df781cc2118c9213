// `login`, `status` and `token` with the Secret Service as the store: a fake service on a
// private bus (Tests/SecretServiceFake) that is locked and unlocked at a prompt, whose prompt is
// dismissed, or that never answers. Nothing is lost: a sign-in stores its tokens or says why not
// before the browser opens.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("CLI: a locked, prompted or hung Secret Service", .serialized)
struct SecretServiceCLITests {
    /// A home whose store is the fake's Secret Service (`AUTHDECK_STORE=secret-service` unless
    /// `forced` is false), on a desktop (`DISPLAY` set: a prompt can appear).
    func home(_ idp: LocalIdentityProvider, _ fake: FakeSecretService, forced: Bool = true) throws -> CLIHome {
        var home = try CLIHome(provider: idp)
        home.environment["AUTHDECK_STORE"] = forced ? "secret-service" : nil
        home.environment["DBUS_SESSION_BUS_ADDRESS"] = fake.busAddress
        home.environment["DISPLAY"] = ":authdeck-test"
        return home
    }

    @Test("login, unlock prompt dismissed: refused before the browser opens, exit 4, nothing stored (it said 'Signed in' and exit 0 with no secrets)")
    func dismissedPrompt() async throws {
        let idp = try await CLIProvider.shared.provider()
        let fake = try await FakeSecretService.start(.lockedPromptDismissed(promptDelay: .milliseconds(300)))
        defer { Task { await fake.stop() } }
        let home = try home(idp, fake)
        defer { home.remove() }
        try await home.addLocalProvider(idp)
        let login = try await home.run(["login", "local"])
        #expect(login.exitCode == 4, "\(login)")
        #expect(login.stderr.contains("dismissed") && login.stderr.contains("nothing was stored"), "\(login)")
        #expect(!login.stderr.contains("Signed in"), "\(login)")
        #expect(!login.stderr.contains("Opened the browser"), "the browser opened: \(login)")
        #expect(!login.stderr.contains("passphrase"), "a keyring is not a vault: \(login)")
        #expect(try fake.state().items == [])
        let (_, status) = try await home.statusJSON()
        #expect((status["accounts"] as? [Any])?.isEmpty == true)
    }

    @Test("login, locked keyring unlocked at its prompt after 4 s: the unlock comes before the browser, the tokens are stored there and the store is named")
    func unlockBeforeBrowser() async throws {
        let idp = try await CLIProvider.shared.provider()
        let fake = try await FakeSecretService.start(.lockedUnlockedByPrompt(promptDelay: .seconds(4)))
        defer { Task { await fake.stop() } }
        let home = try home(idp, fake)
        defer { home.remove() }
        try await home.addLocalProvider(idp)
        let login = try await home.run(["login", "local"])
        #expect(login.exitCode == 0, "\(login)")
        #expect(login.stderr.contains("Tokens stored in the Secret Service (keyring): AUTHDECK_STORE=secret-service."), "\(login)")
        let state = try fake.state()
        // Unlocked first (its prompt answered), then the item created without a prompt: the
        // browser sign-in happened in between, with the keyring already open.
        #expect(state.prompts == ["unlock:completed"], "\(state.prompts)")
        #expect(state.items.count == 1, "\(state.items)")
        let token = try await home.run(["token"])
        #expect(token.exitCode == 0, "\(token)")
    }

    @Test("Ctrl-C while login waits at the keyring's unlock prompt: exit 130 at once, the prompt dismissed, nothing stored")
    func interruptAtPrompt() async throws {
        let idp = try await CLIProvider.shared.provider()
        let fake = try await FakeSecretService.start(.lockedUnlockedByPrompt(promptDelay: .seconds(60)))
        defer { Task { await fake.stop() } }
        let home = try home(idp, fake)
        defer { home.remove() }
        try await home.addLocalProvider(idp)
        let login = try home.start(["login", "local"])
        let deadline = Date().addingTimeInterval(30)
        while try !fake.state().prompts.contains("unlock:shown"), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try fake.state().prompts == ["unlock:shown"])
        let sent = Date()
        login.signal(SIGINT)
        let result = await login.wait(timeout: 10)
        #expect(result.exitCode == 130, "\(result)")
        #expect(Date().timeIntervalSince(sent) < 3, "\(result)")
        #expect(result.stderr.contains("nothing was stored"), "\(result)")
        #expect(!result.stderr.contains("Opened the browser"), "\(result)")
        let state = try fake.state()
        #expect(state.prompts == ["unlock:dismissed"], "\(state.prompts)")
        #expect(state.items == [])
    }

    @Test("status with the keyring locked: 'store locked', exit 4 (it said 'valid', exit 0, while token exited 4); token's hint is the keyring's")
    func statusLockedKeyring() async throws {
        let idp = try await CLIProvider.shared.provider()
        let fake = try await FakeSecretService.start(.lockedUnlockedByPrompt(promptDelay: .milliseconds(200)))
        defer { Task { await fake.stop() } }
        let home = try home(idp, fake)
        defer { home.remove() }
        try await home.addLocalProvider(idp)
        try await home.login()
        #expect(try await home.run(["status"]).exitCode == 0)
        // The session locks the keyring (a screen lock, `Service.Lock`).
        let lock = Process()
        lock.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        lock.arguments = ["--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                          "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login"]
        lock.environment = ["DBUS_SESSION_BUS_ADDRESS": fake.busAddress]
        lock.standardOutput = FileHandle.nullDevice
        try lock.run()
        lock.waitUntilExit()
        #expect(try fake.state().locked)

        let status = try await home.run(["status"])
        #expect(status.exitCode == 4, "\(status)")
        #expect(status.stdout.contains("status: store locked"), "\(status.stdout)")
        #expect(status.stdout.contains("storage backend: secret-service (locked) — AUTHDECK_STORE=secret-service"), "\(status.stdout)")
        let (_, json) = try await home.statusJSON()
        #expect((json["store"] as? [String: Any])?["locked"] as? Bool == true)

        let token = try await home.run(["token"])
        #expect(token.exitCode == 4, "\(token)")
        #expect(token.stderr.contains("The keyring is locked") && token.stderr.contains("Unlock the keyring"), "\(token)")
        #expect(!token.stderr.contains("passphrase"), "the vault's advice for a keyring: \(token)")
    }

    @Test("check with the keyring locked on a desktop: no prompt shown (AUTHDECK_NONINTERACTIVE), exit 4 with the keyring's advice, --json says store_locked")
    func checkNeverPromptsForTheKeyring() async throws {
        let idp = try await CLIProvider.shared.provider()
        let fake = try await FakeSecretService.start(.lockedUnlockedByPrompt(promptDelay: .milliseconds(200)))
        defer { Task { await fake.stop() } }
        let home = try home(idp, fake)
        defer { home.remove() }
        try await home.addLocalProvider(idp)
        try await home.login()
        let lock = Process()
        lock.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        lock.arguments = ["--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                          "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login"]
        lock.environment = ["DBUS_SESSION_BUS_ADDRESS": fake.busAddress]
        lock.standardOutput = FileHandle.nullDevice
        try lock.run()
        lock.waitUntilExit()
        let promptsBefore = try fake.state().prompts
        let check = try await home.run(["check", "--backstop", "0", "--json"])
        #expect(check.exitCode == 4, "\(check)")
        #expect(check.stderr.contains("never shows a keyring prompt") && !check.stderr.contains("passphrase"), "\(check.stderr)")
        #expect((try jsonObject(check.stdout)["error"] as? [String: Any])?["disposition"] as? String == "store_locked", "\(check.stdout)")
        let state = try fake.state()
        #expect(state.locked && !state.prompts.dropFirst(promptsBefore.count).contains { $0.hasSuffix(":shown") || $0.hasSuffix(":completed") },
                "no prompt shown: \(state.prompts)")
    }

    @Test("A Secret Service that never answers, no recorded choice: nothing is chosen or recorded (it chose the vault for good), login refuses before the browser and says what timed out, not 'network or server'")
    func hungServiceChoosesNothing() async throws {
        let idp = try await CLIProvider.shared.provider()
        let fake = try await FakeSecretService.start(.hang)
        defer { Task { await fake.stop() } }
        let home = try home(idp, fake, forced: false)
        defer { home.remove() }
        let storeFile = home.root.appendingPathComponent("config/authdeck/store.json").path

        let status = try await home.run(["status"])
        #expect(status.stderr.contains("Secret Service probe") && status.stderr.contains("timed out"), "\(status)")
        #expect(!FileManager.default.fileExists(atPath: storeFile), "a choice made on a timeout was recorded")
        let (_, json) = try await home.statusJSON()
        #expect((json["store"] as? [String: Any])?["backend"] as? String == "unavailable")

        try await home.addLocalProvider(idp)
        let login = try await home.run(["login", "local"])
        #expect(login.exitCode == 1, "\(login)")
        #expect(login.stderr.contains("did not answer") && login.stderr.contains("AUTHDECK_STORE=vault"), "\(login)")
        #expect(!login.stderr.contains("network or server"), "\(login)")
        #expect(!login.stderr.contains("Opened the browser"), "\(login)")
        #expect(!FileManager.default.fileExists(atPath: storeFile))
    }
}
