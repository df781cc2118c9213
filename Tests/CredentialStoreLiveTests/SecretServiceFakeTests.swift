import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The Secret Service store against a fake service on a private bus (Tests/SecretServiceFake):
/// a daemon that never answers, a locked default collection unlocked at a prompt after a delay,
/// and a prompt that is dismissed. The probe runs with `DISPLAY` set, as on a desktop (without
/// one no prompt can appear: the real-keyring suite covers that).
@Suite("Secret Service: hung, locked and prompted (fake service on a private bus)", .serialized)
struct SecretServiceFakeTests {
    init() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ChildProcess.probePath), "build with swift build --build-tests")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session"), "scripts/bootstrap installs dbus")
    }

    /// Runs one probe command on the fake's bus; its JSON line.
    func probe(_ fake: FakeSecretService, _ command: [String], display: Bool = true, interactive: Bool = true,
               timeout: Duration = .seconds(60)) throws -> [String: Any] {
        let home = TemporaryDirectory("authdeck-fake-ss")
        var extra = ["HOME": home.path, "XDG_RUNTIME_DIR": home.path, "DBUS_SESSION_BUS_ADDRESS": fake.busAddress]
        if display { extra["DISPLAY"] = ":authdeck-test" }
        if !interactive { extra["AUTHDECK_NONINTERACTIVE"] = "1" }
        let child = try ChildProcess(ChildProcess.probePath, command, environment: ChildProcess.environment(extra), outputDirectory: home.path)
        #expect(child.wait(timeout: timeout) == 0, "probe: \(child.stderr)")
        return try #require(child.jsonLines.first, "probe printed nothing: \(child.stderr)")
    }

    @Test("A dismissed unlock prompt is an error that stores nothing (libsecret's store reported success: 'Signed in' with no secrets)")
    func dismissedPromptStoresNothing() async throws {
        let fake = try await FakeSecretService.start(.lockedPromptDismissed(promptDelay: .milliseconds(200)))
        defer { Task { await fake.stop() } }
        let line = try probe(fake, ["ss-save", "corp", "alice", "seed-1"])
        #expect(line["error"] as? String == "locked", "\(line)")
        #expect((line["message"] as? String ?? "").contains("dismissed"), "\(line)")
        let state = try fake.state()
        #expect(state.items == [])
        #expect(state.locked)
        #expect(state.prompts.allSatisfy { $0.hasSuffix(":dismissed") } && !state.prompts.isEmpty, "\(state.prompts)")
    }

    @Test("Unattended (AUTHDECK_NONINTERACTIVE, authdeck check): a locked keyring on a desktop is 'locked' at once, its unlock prompt dismissed unshown, nothing stored")
    func unattendedNeverPrompts() async throws {
        let fake = try await FakeSecretService.start(.lockedUnlockedByPrompt(promptDelay: .milliseconds(200)))
        defer { Task { await fake.stop() } }
        let line = try probe(fake, ["ss-save", "corp", "alice", "seed-1"], interactive: false)
        #expect(line["error"] as? String == "locked", "\(line)")
        #expect((line["message"] as? String ?? "").contains("AUTHDECK_NONINTERACTIVE"), "\(line)")
        let state = try fake.state()
        #expect(state.prompts == ["unlock:dismissed"] && !state.calls.contains("Prompt.Prompt"), "never shown: \(state.prompts) \(state.calls)")
        #expect(state.items == [] && state.locked)
    }

    @Test("An unlock prompt answered after 4 s (past the 3 s call deadline) is waited for: the item is stored, read back and found")
    func promptWaitsForAPerson() async throws {
        let fake = try await FakeSecretService.start(.lockedUnlockedByPrompt(promptDelay: .seconds(4)))
        defer { Task { await fake.stop() } }
        let line = try probe(fake, ["ss-save", "corp", "alice", "seed-1"])
        #expect(line["result"] as? String == "ok", "\(line)")
        #expect((line["elapsedMs"] as? Int ?? 0) >= 4000, "\(line)")
        let state = try fake.state()
        #expect(state.items == ["corp/alice"])
        #expect(!state.locked)
        // The collection is unlocked first (Service.Unlock, its prompt), then the item created
        // without a prompt of its own; the item is read back (Item.GetSecret).
        #expect(state.prompts == ["unlock:completed"], "\(state.prompts)")
        let afterUnlock = state.calls.drop { $0 != "Service.Unlock" }
        #expect(afterUnlock.contains("Collection.CreateItem") && afterUnlock.contains("Item.GetSecret"), "\(state.calls)")
        #expect(try probe(fake, ["ss-load", "corp", "alice", "seed-1"])["result"] as? String == "match")
    }

    @Test("Cancelling the task (Ctrl-C) ends the wait at an unlock prompt at once and dismisses the prompt; nothing stored")
    func cancelledPromptWait() async throws {
        let fake = try await FakeSecretService.start(.lockedUnlockedByPrompt(promptDelay: .seconds(30)))
        defer { Task { await fake.stop() } }
        let line = try probe(fake, ["ss-save-cancel", "corp", "alice", "seed-1", "800"])
        #expect(line["error"] as? String == "cancelled", "\(line)")
        #expect((line["elapsedMs"] as? Int ?? 99_999) < 3000, "\(line)")
        let state = try fake.state()
        #expect(state.items == [])
        #expect(state.prompts == ["unlock:dismissed"], "\(state.prompts)")
    }

    @Test("A Secret Service that never answers: the automatic choice says 'timed out' (not 'no Secret Service') and chooses nothing")
    func hungServiceIsNotAbsent() async throws {
        let fake = try await FakeSecretService.start(.hang)
        defer { Task { await fake.stop() } }
        let start = ContinuousClock.now
        let line = try probe(fake, ["select"])
        #expect(line["error"] as? String == "timeout", "\(line)")
        #expect(ContinuousClock.now - start < .seconds(10))
        let save = try probe(fake, ["ss-save", "corp", "alice", "seed-1"])
        #expect(save["error"] as? String == "timeout", "\(save)")
    }
}
