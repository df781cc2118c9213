// Against the bundled provider (django-oauth-toolkit: refresh tokens rotate, a
// reused one is invalid_grant, the old access token is revoked), paused with SIGSTOP to its
// process group: TCP still accepts, nothing answers.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("A stalled provider with two processes, and a refresh killed mid-flight", .serialized)
struct StalledProviderCLITests {
    /// Waits (polling the file, bounded) until `accounts.json` holds `needle`.
    private func waitForAccountsFile(_ home: CLIHome, containing needle: String, timeout: Double = 60) async -> Bool {
        let path = home.path(.state, "accounts.json")
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.contains(needle) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test("django-oauth-toolkit paused past the old 30 s request limit: two 'authdeck refresh' keep the account (no invalid_grant), 'provider is slow' on stderr")
    func twoRefreshesSurviveAPausedProvider() async throws {
        let idp = try await LocalIdentityProvider.start()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let before = try await home.run(["token"])
        try #require(before.exitCode == 0, "\(before)")

        idp.pause()
        let paused = Date()
        let first = try home.start(["refresh"])
        #expect(await first.waitForStderr("provider is slow", timeout: 60) != nil, "the first refresh says the provider is slow: \(first.stderrText)")
        // The second process waits for the first one's lock instead of sending the same refresh token.
        let second = try home.start(["refresh"])
        // Past the 30 s a request used to be given before it was abandoned (and its rotated
        // refresh token lost), then the provider answers the queued requests.
        let stall = 33 - Date().timeIntervalSince(paused)
        if stall > 0 { try await Task.sleep(for: .seconds(stall)) }
        idp.resume()
        let a = await first.wait(timeout: 200)
        let b = await second.wait(timeout: 200)
        await idp.stop()
        #expect(a.exitCode == 0, "first refresh: \(a)")
        #expect(b.exitCode == 0, "second refresh: \(b)")
        #expect(!a.stderr.contains("invalid_grant") && !b.stderr.contains("invalid_grant"))
        let status = try await home.run(["status"])
        #expect(status.exitCode == 0, "every account survives: \(status)")
        #expect(status.stdout.contains("valid") && !status.stdout.contains("needs sign-in"), "\(status.stdout)")
    }

    @Test("django-oauth-toolkit paused while 'authdeck refresh' waits holding the account lock: status says 'refreshing (another process)' (exit 0); once that process is gone, 'refresh outcome unknown'")
    func liveRefreshInAnotherProcessIsNotUnknown() async throws {
        let idp = try await LocalIdentityProvider.start()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        idp.pause()
        let refresh = try home.start(["refresh"])
        let marked = await waitForAccountsFile(home, containing: "refreshSentAt")
        try #require(marked, "the refresh persisted its in-flight marker before sending")
        let status = try await home.run(["status"])
        #expect(status.stdout.contains("refreshing (another process)"), "\(status)")
        #expect(!status.stdout.contains("refresh outcome unknown"), "\(status)")
        #expect(status.exitCode == 0, "a refresh that is waiting for its answer needs nothing from the user: \(status)")
        let json = try await home.statusJSON()
        let account = try #require((json.1["accounts"] as? [[String: Any]])?.first)
        #expect(account["status"] as? String == "refreshing (another process)")
        #expect(account["needsAttention"] as? Bool == false)

        // The lock goes with the process: the same marker is now an unknown outcome.
        refresh.signal(SIGKILL)
        _ = await refresh.wait(timeout: 30)
        let after = try await home.run(["status"])
        #expect(after.stdout.contains("refresh outcome unknown"), "\(after)")
        #expect(after.exitCode != 0, "\(after)")
        idp.resume()
        await idp.stop()
    }

    @Test("django-oauth-toolkit rotates while 'authdeck refresh' is SIGKILLed: status says 'refresh outcome unknown'; token never prints the dead token with exit 0")
    func killedRefreshLeavesAnUnknownOutcome() async throws {
        let idp = try await LocalIdentityProvider.start()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let before = try await home.run(["token"])
        try #require(before.exitCode == 0, "\(before)")
        let oldToken = before.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        idp.pause()
        let refresh = try home.start(["refresh"])
        let marked = await waitForAccountsFile(home, containing: "refreshSentAt")
        // The marker is written just before the request leaves: give it time to reach the
        // provider's queue, so that the provider rotates the token when it resumes.
        try await Task.sleep(for: .seconds(1))
        refresh.signal(SIGKILL)
        _ = await refresh.wait(timeout: 30)
        try #require(marked, "the refresh persisted its in-flight marker before sending")
        let status = try await home.run(["status"])
        #expect(status.stdout.contains("refresh outcome unknown"), "\(status)")
        #expect(status.exitCode != 0, "\(status)")
        let json = try await home.statusJSON().1
        let account = try #require((json["accounts"] as? [[String: Any]])?.first)
        #expect(account["status"] as? String == "refresh outcome unknown")
        #expect(account["refreshSentAt"] is String, "the time the unanswered request was sent")

        // The provider now serves the killed process's request: the refresh token rotates, the
        // stored access token is revoked.
        idp.resume()
        let token = try await home.run(["token"], timeout: 200)
        #expect(token.stderr.contains("outcome of an earlier refresh"), "the replay is said: \(token.stderr)")
        if token.exitCode == 0 {
            // The replay reached the provider first and was answered: a new token, never the old one.
            #expect(!token.stdout.contains(oldToken), "the possibly revoked token was printed")
        } else {
            #expect(token.exitCode == 3, "\(token)")
            #expect(token.stdout.isEmpty)
            #expect(token.stderr.contains("sent again"), "\(token.stderr)")
            // invalid_grant reaches every command.
            let after = try await home.run(["status"])
            #expect(after.exitCode == 3 && after.stdout.contains("needs sign-in"), "\(after)")
            let again = try await home.run(["token"])
            #expect(again.exitCode == 3 && again.stdout.isEmpty, "\(again)")
        }
        await idp.stop()
    }
}
