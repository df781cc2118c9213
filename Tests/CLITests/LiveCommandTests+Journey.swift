// The whole story by commands alone: provider add → login alice (browser stand-in as $BROWSER)
// → login bob --device (approved by the helper while the command waits) → status → switch →
// token → logout alice (revocation) → status.
import AuthEngine
import AuthEngineLive
import Foundation
import Testing
import TestSupport

// In the serialized live suite: the local provider fails concurrent token requests.
extension LiveCommandTests {
    @Test("Sign-in (browser and device) → switch → token → logout with revocation, by commands alone")
    func journey() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }

        try await home.addLocalProvider(idp)
        let providers = try await home.run(["provider", "list"])
        #expect(providers.stdout.contains("local") && providers.stdout.contains("plain HTTP on loopback"))

        // alice through the browser.
        try await home.login(user: "alice")

        // bob through the device flow: read the user code from stderr while the command waits.
        let device = try home.start(["login", "local", "--device", "--name", "bob-device"])
        let userCode = await device.waitForStderr(#"enter the code: (\S+)"#)
        let code = try #require(userCode, "no user code on stderr: \(device.stderrText)")
        #expect(device.stderrText.contains(idp.endpoints.verification.absoluteString))
        #expect(!device.stderrText.contains("█"), "no QR code when stderr is not a terminal")
        let approval = try await idp.approveDevice(userCode: code, user: "bob")
        #expect(approval.exitCode == 0, "approve-device: \(approval.stderr)")
        let deviceLogin = await device.wait(timeout: 60)
        #expect(deviceLogin.exitCode == 0, "\(deviceLogin)")
        #expect(deviceLogin.stdout.isEmpty, "login prints nothing on stdout")

        // status shows both; alice (first) is active.
        let (statusResult, status) = try await home.statusJSON()
        #expect(statusResult.exitCode == 0, "\(statusResult)")
        let accounts = try #require(status["accounts"] as? [[String: Any]])
        #expect(Set(accounts.compactMap { $0["handle"] as? String }) == ["local/alice", "local/bob"])
        let alice = try #require(accounts.first { $0["handle"] as? String == "local/alice" })
        let bob = try #require(accounts.first { $0["handle"] as? String == "local/bob" })
        #expect(alice["active"] as? Bool == true && bob["active"] as? Bool == false)
        #expect(bob["alias"] as? String == "bob-device")
        let text = try await home.run(["status"])
        #expect(text.stdout.contains("* local/alice") && text.stdout.contains("  local/bob (bob-device)"))

        // ACCOUNT resolution: alias, prefix, ambiguity, AUTHDECK_ACCOUNT.
        let aliceToken = try await home.run(["token"]).stdout
        let bobByAlias = try await home.run(["token", "bob-device"]).stdout
        let bobByPrefix = try await home.run(["token", "local/b"]).stdout
        #expect(!aliceToken.isEmpty && bobByAlias == bobByPrefix && bobByAlias != aliceToken)
        let ambiguous = try await home.run(["token", "local/"])
        #expect(ambiguous.exitCode == 2 && ambiguous.stdout.isEmpty, "an ambiguous account is a usage error")
        let unknown = try await home.run(["switch", "carol"])
        #expect(unknown.exitCode == 2 && unknown.stderr.contains("local/alice"), "a usage error naming the known accounts")
        let pinned = try await home.run(["token"], extra: ["AUTHDECK_ACCOUNT": "bob-device"])
        #expect(pinned.stdout == bobByAlias)
        // status agrees, and says so when AUTHDECK_ACCOUNT names several accounts or none.
        let pinnedStatus = try await home.run(["status"], extra: ["AUTHDECK_ACCOUNT": "bob-device"])
        #expect(pinnedStatus.stdout.contains("* local/bob (bob-device)") && pinnedStatus.stderr.isEmpty, "\(pinnedStatus)")
        for (value, said) in [("local/", "matches several accounts"), ("carol", "No account matches 'carol' (from $AUTHDECK_ACCOUNT)")] {
            let status = try await home.run(["status"], extra: ["AUTHDECK_ACCOUNT": value])
            #expect(status.stderr.contains("warning: ") && status.stderr.contains(said), "AUTHDECK_ACCOUNT=\(value): \(status)")
            #expect(!status.stdout.contains("* "), "no account marked active: \(status.stdout)")
        }

        // switch → token gives bob's.
        let switched = try await home.run(["switch", "local/bob"])
        #expect(switched.exitCode == 0, "\(switched)")
        #expect(try await home.run(["token"]).stdout == bobByAlias)
        let (_, afterSwitch) = try await home.statusJSON()
        #expect(afterSwitch["activeAccount"] as? String == bob["id"] as? String)

        // logout alice: revocation (RFC 7009), then the provider reports her token inactive.
        // logout alice: revocation (RFC 7009) and RP-initiated logout through the browser stand-in.
        let logout = try await home.run(["logout", "alice"])
        #expect(logout.exitCode == 0, "\(logout)")
        for step in ["revoke refresh token", "revoke access token", "end provider session", "delete local secrets"] {
            #expect(logout.stderr.contains("✓ \(step)"), "\(step): \(logout.stderr)")
        }
        let http = CurlHTTPClient.live()
        let metadata = try await fetchMetadata(issuer: idp.issuer.absoluteString, http: http)
        let introspection = try await introspectToken(
            metadata: metadata, client: ClientConfiguration(clientID: idp.nativeClient.clientID),
            token: .accessToken(AccessToken(aliceToken.trimmingCharacters(in: .newlines))), http: http, now: Date())
        #expect(introspection.active == false)

        // status: only bob, still active.
        let (finalResult, final) = try await home.statusJSON()
        #expect(finalResult.exitCode == 0)
        let remaining = try #require(final["accounts"] as? [[String: Any]])
        #expect(remaining.compactMap { $0["handle"] as? String } == ["local/bob"])
        #expect(remaining.first?["active"] as? Bool == true)

        // The provider cannot go while bob is signed in; logout --local-only then remove.
        let busy = try await home.run(["provider", "remove", "local"])
        #expect(busy.exitCode == 1 && busy.stderr.contains("logout"))
        let localOnly = try await home.run(["logout", "--local-only"])
        #expect(localOnly.exitCode == 0, "\(localOnly)")
        let remove = try await home.run(["provider", "remove", "local"])
        #expect(remove.exitCode == 0, "\(remove)")
    }
}
