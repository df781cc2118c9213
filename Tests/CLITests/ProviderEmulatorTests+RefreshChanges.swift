// What a refresh changed, through the real binary against the Auth0 emulator (`--refresh-changes`:
// the refresh drops a scope and changes a claim): `status --changes` and `status --json`.
import Foundation
import Testing

extension ProviderEmulatorTests {
    @Test("status --changes: a scope the provider dropped on refresh is flagged, a changed ID token claim named with its values, rotation said; --json's lastRefreshChanges")
    func statusChangesAfterRefresh() async throws {
        let emulator = try await ProviderEmulator.start("auth0", ["--refresh-changes"])
        let home = try await auth0SignedIn(emulator)
        defer { home.remove() }
        let before = try await home.run(["status", "--changes"])
        #expect(before.stdout.contains("changed on the last refresh: no refresh yet"), "\(before)")
        let refreshed = try await home.run(["refresh", "a0"])
        try #require(refreshed.exitCode == 0, "\(refreshed)")
        let status = try await home.run(["status", "--changes"])
        #expect(status.exitCode == 0, "\(status)")
        for expected in ["    changed on the last refresh:", "scopes DROPPED BY THE PROVIDER (asked for and held before, not granted now): email",
                         #"ID token claim https://example.test/roles changed: ["tester"] → ["tester","admin"]"#,
                         "access token claim scope changed: \"openid profile email offline_access\" → \"openid profile offline_access\"",
                         "refresh token rotated: yes"] {
            #expect(status.stdout.contains(expected), "\(expected): \(status.stdout)")
        }
        let (_, json) = try await home.statusJSON()
        let account = try #require((json["accounts"] as? [[String: Any]])?.first)
        let changes = try #require(account["lastRefreshChanges"] as? [String: Any], "\(account)")
        #expect(changes["scopesDroppedByProvider"] as? [String] == ["email"])
        #expect(changes["refreshTokenRotated"] as? Bool == true)
        #expect((changes["idTokenClaims"] as? [[String: Any]])?.contains { $0["name"] as? String == "https://example.test/roles" } == true)
        #expect((changes["refreshedAt"] as? String)?.hasSuffix("Z") == true, "RFC 3339 UTC")
        await emulator.stop()
    }
}
