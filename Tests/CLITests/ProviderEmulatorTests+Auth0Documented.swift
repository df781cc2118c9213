// Auth0 as its documentation says, through the real binary against the emulator:
// the device request carries the audience, what /oauth/revoke cannot revoke is said, a proof
// answered with a Bearer token is shown as Bearer, mfa_required and 429 are named errors.
import Foundation
import Testing

extension ProviderEmulatorTests {
    static let auth0API = "https://api.example.test"

    /// A browser sign-in to the Auth0 preset (moved to `emulator`) with the API audience.
    func auth0SignedIn(_ emulator: ProviderEmulator) async throws -> CLIHome {
        var home = try CLIHome()
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path
        try #require(try await addAuth0(home, emulator, ["--audience", Self.auth0API]).exitCode == 0)
        let login = try await home.run(["login", "a0"])
        try #require(login.exitCode == 0, "login: \(login)")
        return home
    }

    @Test("Auth0: login --device sends the provider's audience to /oauth/device/code, so the device account holds the API's JWT")
    func auth0DeviceFlowCarriesAudience() async throws {
        let emulator = try await ProviderEmulator.start("auth0")
        let home = try CLIHome()
        defer { home.remove() }
        try #require(try await addAuth0(home, emulator, ["--audience", Self.auth0API]).exitCode == 0)
        let login = try home.start(["login", "a0", "--device"])
        let userCode = await login.waitForStderr(#"enter the code: (\S+)"#)
        let code = try #require(userCode, "no user code on stderr: \(login.stderrText)")
        try await emulator.device("approve", userCode: code)
        let finished = await login.wait(timeout: 40)
        try #require(finished.exitCode == 0, "\(finished)")
        let request = try #require((try await emulator.state()["device_requests"] as? [[String: Any]])?.last)
        #expect(request["audience"] as? String == Self.auth0API, "\(request)")
        let token = try await home.run(["token", "a0"])
        let decoded = try jsonObject(try await home.run(["decode", "--json"], stdin: Data(token.stdout.utf8)).stdout)
        #expect(((decoded["claims"] as? [String: Any])?["aud"] as? [String])?.first == Self.auth0API, "the API's JWT: \(decoded)")
        await emulator.stop()
    }

    @Test("Auth0 preset: sign-out revokes the refresh token at /oauth/revoke and says the access token cannot be revoked there, with its expiry; nothing is sent for it")
    func auth0SignOutSaysWhatCannotBeRevoked() async throws {
        let emulator = try await ProviderEmulator.start("auth0")
        let home = try await auth0SignedIn(emulator)
        defer { home.remove() }
        let logout = try await home.run(["logout", "a0", "--no-end-session"])
        #expect(logout.exitCode == 0, "\(logout)")
        #expect(logout.stderr.contains("✓ revoke refresh token: revoked"), "\(logout.stderr)")
        #expect(logout.stderr.contains("- revoke access token: skipped (cannot be revoked at this provider; valid until "), "\(logout.stderr)")
        let revocations = try await emulator.state()["revocation_requests"] as? [[String: Any]] ?? []
        #expect(revocations.map { $0["kind"] as? String } == ["refresh_token"], "\(revocations)")
        await emulator.stop()
    }

    @Test("Auth0 DPoP: a proof answered with token_type Bearer is shown as Bearer (no token binding), not as what was offered")
    func auth0BearerAfterProofIsNotShownAsDPoP() async throws {
        let emulator = try await ProviderEmulator.start("auth0", ["--dpop", "--dpop-bound", "no"])
        let home = try await auth0SignedIn(emulator)
        defer { home.remove() }
        let (_, status) = try await home.statusJSON()
        let account = try #require((status["accounts"] as? [[String: Any]])?.first, "\(status)")
        #expect((account["accessTokens"] as? [[String: Any]])?.first?["tokenType"] as? String == "Bearer", "\(account)")
        let dpop = try #require(account["dpop"] as? [String: Any])
        #expect(dpop["senderConstrained"] as? Bool == false && dpop["thumbprint"] is NSNull, "\(dpop)")
        let text = try await home.run(["status"])
        #expect(!text.stdout.contains("token binding: DPoP"), "\(text.stdout)")
        await emulator.stop()
    }

    @Test("Auth0: mfa_required on a refresh says an interactive sign-in is needed (exit 3); 429 with X-RateLimit-Reset says when to retry (exit 1)",
          arguments: ["mfa_required", "rate_limited"])
    func auth0RefreshErrorsAreNamed(_ mode: String) async throws {
        let emulator = try await ProviderEmulator.start("auth0", ["--refresh-error", mode])
        let home = try await auth0SignedIn(emulator)
        defer { home.remove() }
        let refresh = try await home.run(["refresh", "a0"])
        if mode == "mfa_required" {
            #expect(refresh.exitCode == 3, "\(refresh)")
            #expect(refresh.stderr.contains("sign in interactively (mfa_required)") && refresh.stderr.contains("authdeck login"), "\(refresh.stderr)")
        } else {
            #expect(refresh.exitCode == 1, "\(refresh)")
            #expect(refresh.stderr.contains("rate-limiting requests (HTTP 429)"), "\(refresh.stderr)")
            #expect(refresh.stderr.range(of: #"Retry in 4[0-2] s"#, options: .regularExpression) != nil, "\(refresh.stderr)")
        }
        await emulator.stop()
    }
}

extension ProviderEmulatorTests {
    @Test("Auth0 preset: RP-initiated logout carries id_token_hint, posted from a one-time page of the loopback listener; the browser's argv holds no token")
    func auth0LogoutPostsIDTokenHint() async throws {
        let emulator = try await ProviderEmulator.start("auth0")
        var home = try await auth0SignedIn(emulator)
        defer { home.remove() }
        // A $BROWSER that records its argv, then does what the stand-in browser does.
        let argvLog = home.root.appendingPathComponent("browser-argv")
        let wrapper = home.root.appendingPathComponent("browser-recording")
        let browser = ProviderEmulator.directory.appendingPathComponent("browser").path
        try Data("#!/bin/sh\nprintf '%s\\n' \"$@\" >> '\(argvLog.path)'\nexec '\(browser)' \"$@\"\n".utf8).write(to: wrapper)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: wrapper.path)
        home.environment["BROWSER"] = wrapper.path

        let logout = try await home.run(["logout", "a0"])
        #expect(logout.exitCode == 0, "\(logout)")
        #expect(logout.stderr.contains("✓ end provider session: provider session ended"), "\(logout.stderr)")
        #expect(logout.stderr.contains("opened the provider's sign-out page in the browser (with id_token_hint)"), "\(logout.stderr)")
        let event = try #require(try await endSessionEvent(emulator), "the logout page was posted")
        #expect(event["has_id_token_hint"] as? Bool == true && event["client_id_matches"] as? Bool == true, "\(event)")
        #expect(try await emulator.state()["end_session_methods"] as? [String] == ["POST"])
        let argv = try String(contentsOf: argvLog, encoding: .utf8)
        #expect(argv.contains("/logout-start/") && !argv.contains("id_token_hint") && !argv.contains("eyJ"), "no token in argv: \(argv)")
        await emulator.stop()
    }
}
