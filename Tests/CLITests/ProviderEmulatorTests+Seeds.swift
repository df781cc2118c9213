// Auth0 and GitHub gaps through the real binary against the emulators: encrypted
// access tokens, /v2/logout, ID-token audience arrays, bad_refresh_token, GitHub's
// token deletion API and "does not expire".
import AuthEngine
import AuthEngineLive
import Foundation
import Testing

extension ProviderEmulatorTests {
    /// `provider add a0 --preset auth0` moved to the emulator (issuer and revocation endpoint).
    func addAuth0(_ home: CLIHome, _ emulator: ProviderEmulator, _ extra: [String] = []) async throws -> RunResult {
        try await home.run(["provider", "add", "a0", "--preset", "auth0", "--domain", "tenant.auth0.example",
                            "--issuer", emulator.baseURL + "/", "--revocation-endpoint", emulator.baseURL + "/oauth/revoke",
                            "--client-id", emulator.clientID] + extra)
    }

    /// Waits until the emulator saw a logout request.
    func endSessionEvent(_ emulator: ProviderEmulator) async throws -> [String: Any]? {
        for _ in 0..<100 {
            if let event = try await emulator.state()["end_session"] as? [String: Any] { return event }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    @Test("Auth0 without audience: a five-part JWE access token is shown as encrypted (JWE), never decoded as a JWS; ID token aud array accepted only with --trusted-audience (OIDC Core 3.1.3.7 step 3); /v2/logout with client_id and returnTo when discovery has no end_session_endpoint")
    func auth0EncryptedTokenAudienceArrayAndV2Logout() async throws {
        let api = "https://api.example.test"
        let emulator = try await ProviderEmulator.start("auth0", ["--access-token-format", "jwe", "--no-end-session", "--id-token-audience", api])
        var home = try CLIHome()
        defer { home.remove() }
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path

        // Without trusting the extra audience the ID token is refused and nothing is stored.
        try #require(try await addAuth0(home, emulator).exitCode == 0)
        let refused = try await home.run(["login", "a0"])
        #expect(refused.exitCode != 0, "\(refused)")
        #expect(refused.stderr.contains("aud"), "\(refused.stderr)")
        #expect(try await home.run(["provider", "remove", "a0"]).exitCode == 0)

        try #require(try await addAuth0(home, emulator, ["--trusted-audience", api]).exitCode == 0)
        let login = try await home.run(["login", "a0"])
        try #require(login.exitCode == 0, "login: \(login)")

        let (_, status) = try await home.statusJSON()
        let account = try #require((status["accounts"] as? [[String: Any]])?.first, "\(status)")
        let token = try #require((account["accessTokens"] as? [[String: Any]])?.first)
        #expect(token["format"] as? String == "encrypted", "\(token)")
        let text = try await home.run(["status"])
        #expect(text.stdout.contains("encrypted (JWE)"), "\(text.stdout)")
        let raw = try await home.run(["token", "a0"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(raw.split(separator: ".", omittingEmptySubsequences: false).count == 5)
        let decoded = try jsonObject(try await home.run(["decode", "--json"], stdin: Data(raw.utf8)).stdout)
        #expect(decoded["kind"] as? String == "jwe" && decoded["claims"] is NSNull)

        // updated_at (an ISO 8601 string) is shown with its distance, not as a number.
        let idToken = try await home.run(["token", "a0", "--id-token"])
        let claims = try await home.run(["decode"], stdin: Data(idToken.stdout.utf8))
        let updated = claims.stdout.split(separator: "\n").first { $0.contains("updated_at: ") }.map(String.init) ?? ""
        #expect(updated.contains("Z (") && updated.hasSuffix(")"), "the ISO 8601 updated_at gets its distance: \(updated)")

        let logout = try await home.run(["logout", "a0"])
        #expect(logout.exitCode == 0, "\(logout)")
        let event = try #require(try await endSessionEvent(emulator), "the browser stand-in opened the logout page")
        #expect(event["path"] as? String == "/v2/logout")
        #expect(event["has_return_to"] as? Bool == true && event["client_id_matches"] as? Bool == true)
        #expect(logout.stderr.contains("✓ end provider session"), "\(logout.stderr)")
        await emulator.stop()
    }

    @Test("GitHub-App user token: a refresh answered HTTP 200 bad_refresh_token means needs sign-in (exit 3), sent once, never retried")
    func gitHubBadRefreshTokenNeedsSignIn() async throws {
        let emulator = try await ProviderEmulator.start("github", ["--app-tokens", "--slow-down", "0", "--interval", "1"])
        let home = try CLIHome()
        defer { home.remove() }
        try await addGitHub(home, emulator, preset: true)
        try #require(try await deviceLogin(home, emulator, pollsBeforeApproval: 0).exitCode == 0)
        let url = try #require(URL(string: emulator.baseURL + "/_emulator/spend-refresh-tokens"))
        let spent = try await CurlHTTPClient.live().send(HTTPRequest(method: .post, url: url))
        try #require(spent.status == 200)

        let refresh = try await home.run(["refresh", "gh"])
        #expect(refresh.exitCode == 3, "\(refresh)")
        #expect(try await emulator.state()["refresh_attempts"] as? Int == 1)
        let token = try await home.run(["token", "gh"])
        #expect(token.exitCode == 3, "an account that needs sign-in hands out no token: \(token)")
        #expect(try await emulator.state()["refresh_attempts"] as? Int == 1, "no retry")
        let (_, status) = try await home.statusJSON()
        let account = try #require((status["accounts"] as? [[String: Any]])?.first)
        #expect((account["status"] as? String)?.contains("sign") == true, "\(account["status"] ?? "")")
        // Its access token is not a countdown any more: it is not handed out.
        let text = try await home.run(["status"])
        #expect(text.stdout.contains("    access token: not usable (sign in again)"), "\(text.stdout)")
        #expect(!text.stdout.contains("access token: expires"), "\(text.stdout)")
        await emulator.stop()
    }

    @Test("GitHub OAuth app with a client secret: the token 'does not expire'; sign-out deletes it with DELETE /applications/{client_id}/token and basic auth")
    func gitHubSignOutDeletesToken() async throws {
        let emulator = try await ProviderEmulator.start("github", ["--slow-down", "0", "--interval", "1"])
        let home = try CLIHome()
        defer { home.remove() }
        let base = emulator.baseURL
        let added = try await home.run(["provider", "add", "gh", "--preset", "github", "--client-id", emulator.clientID,
                                        "--authorization-endpoint", "\(base)/login/oauth/authorize",
                                        "--token-endpoint", "\(base)/login/oauth/access_token",
                                        "--device-authorization-endpoint", "\(base)/login/device/code",
                                        "--userinfo-endpoint", "\(base)/user", "--revocation-endpoint", "\(base)/applications",
                                        "--client-authentication", "client_secret_post", "--client-secret-stdin"], stdin: Data("gh-emulator-secret\n".utf8))
        try #require(added.exitCode == 0, "\(added)")
        try #require(try await deviceLogin(home, emulator, pollsBeforeApproval: 0).exitCode == 0)
        let status = try await home.run(["status"])
        #expect(status.stdout.contains("access token: does not expire"), "\(status.stdout)")

        let logout = try await home.run(["logout", "gh"])
        #expect(logout.exitCode == 0, "\(logout)")
        #expect(logout.stderr.contains("✓ revoke access token"), "\(logout.stderr)")
        let deletions = try #require(try await emulator.state()["token_deletions"] as? [[String: Any]])
        #expect(deletions.count == 1)
        #expect(deletions.first?["basic_auth_ok"] as? Bool == true && deletions.first?["json_body"] as? Bool == true
                && deletions.first?["known_token"] as? Bool == true, "\(deletions)")
        await emulator.stop()
    }

    @Test("GitHub App with a client secret: sign-out says the refresh token goes only with the whole authorization; logout --revoke-grant deletes it (DELETE /applications/{client_id}/grant)")
    func gitHubSignOutRefreshTokenAndGrant() async throws {
        let emulator = try await ProviderEmulator.start("github", ["--app-tokens", "--slow-down", "0", "--interval", "1"])
        let home = try CLIHome()
        defer { home.remove() }
        let base = emulator.baseURL
        let added = try await home.run(["provider", "add", "gh", "--preset", "github", "--client-id", emulator.clientID,
                                        "--authorization-endpoint", "\(base)/login/oauth/authorize",
                                        "--token-endpoint", "\(base)/login/oauth/access_token",
                                        "--device-authorization-endpoint", "\(base)/login/device/code",
                                        "--userinfo-endpoint", "\(base)/user", "--revocation-endpoint", "\(base)/applications",
                                        "--client-authentication", "client_secret_post", "--client-secret-stdin"], stdin: Data("gh-emulator-secret\n".utf8))
        try #require(added.exitCode == 0, "\(added)")
        try #require(try await deviceLogin(home, emulator, pollsBeforeApproval: 0).exitCode == 0)
        let logout = try await home.run(["logout", "gh"])
        #expect(logout.exitCode == 0, "\(logout)")
        #expect(logout.stderr.contains("- revoke refresh token: skipped (GitHub revokes a refresh token only with the whole authorization")
                && logout.stderr.contains("--revoke-grant"), "\(logout.stderr)")
        #expect((try await emulator.state()["token_deletions"] as? [[String: Any]])?.last?["grant"] as? Bool == false)

        try #require(try await deviceLogin(home, emulator, pollsBeforeApproval: 0).exitCode == 0)
        let revoked = try await home.run(["logout", "gh", "--revoke-grant"])
        #expect(revoked.exitCode == 0, "\(revoked)")
        #expect(revoked.stderr.contains("✓ revoke access token: revoked with the whole authorization (DELETE /applications/{client_id}/grant)"), "\(revoked.stderr)")
        let deletion = try #require((try await emulator.state()["token_deletions"] as? [[String: Any]])?.last)
        #expect(deletion["grant"] as? Bool == true && deletion["basic_auth_ok"] as? Bool == true && deletion["known_token"] as? Bool == true, "\(deletion)")
        await emulator.stop()
    }

    @Test("GitHub public client: sign-out says the token can be revoked only in the user's GitHub settings, and sends nothing")
    func gitHubPublicClientSignOutExplains() async throws {
        let emulator = try await ProviderEmulator.start("github", ["--slow-down", "0", "--interval", "1"])
        let home = try CLIHome()
        defer { home.remove() }
        try await addGitHub(home, emulator, preset: true)
        try #require(try await deviceLogin(home, emulator, pollsBeforeApproval: 0).exitCode == 0)
        let logout = try await home.run(["logout", "gh"])
        #expect(logout.exitCode == 0, "\(logout)")
        #expect(logout.stderr.contains("https://github.com/settings/applications"), "\(logout.stderr)")
        #expect((try await emulator.state()["token_deletions"] as? [[String: Any]])?.isEmpty == true)
        await emulator.stop()
    }
}
