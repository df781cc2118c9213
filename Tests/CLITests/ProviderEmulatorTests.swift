// The real `authdeck` binary against provider emulators (Tests/ProviderEmulators): scripted
// servers on 127.0.0.1 that reproduce GitHub's and Auth0's quirks from
// the providers' documentation. Every command runs in its own throw-away home.
import AuthEngine
import AuthEngineLive
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One running emulator (`Tests/ProviderEmulators/run PROVIDER …`), stopped by its process group.
struct ProviderEmulator: Sendable {
    let process: FixtureProcess
    /// `http://127.0.0.1:PORT` (no trailing slash).
    let baseURL: String
    let clientID: String

    static let directory = packageRoot.appendingPathComponent("Tests/ProviderEmulators")

    static func start(_ provider: String, _ arguments: [String] = []) async throws -> ProviderEmulator {
        let process = try FixtureProcess.spawn(
            executable: directory.appendingPathComponent("run").path,
            arguments: [provider, "--parent-pid", String(getpid())] + arguments, environment: [:])
        let line = try await process.readFirstLine(timeout: .seconds(30))
        let ready = try jsonObject(line)
        let baseURL = try #require(ready["base_url"] as? String)
        let clientID = try #require(ready["client_id"] as? String)
        #expect(baseURL.hasPrefix("http://127.0.0.1:"))
        return ProviderEmulator(process: process, baseURL: baseURL, clientID: clientID)
    }

    func stop() async { await process.terminate() }

    private func send(_ method: HTTPRequest.Method, _ path: String) async throws -> HTTPResponse {
        let url = try #require(URL(string: baseURL + path))
        return try await CurlHTTPClient.live().send(HTTPRequest(method: method, url: url))
    }

    /// `GET /_emulator/state`: counts and flags only (no token values).
    func state() async throws -> [String: Any] {
        let response = try await send(.get, "/_emulator/state")
        return try jsonObject(String(decoding: response.body, as: UTF8.self))
    }

    /// `POST /_emulator/{approve,deny,expire}?user_code=…`: what happens to the device code
    /// (the next poll gets the token, `access_denied` or `expired_token`).
    func device(_ action: String, userCode: String) async throws {
        let code = userCode.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? userCode
        let response = try await send(.post, "/_emulator/\(action)?user_code=\(code)")
        #expect(response.status == 200, "\(action): HTTP \(response.status)")
    }

    /// Waits until `state()[key]` (an array) has at least `count` entries.
    func waitFor(_ key: String, count: Int, timeout: Double = 20) async throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let entries = try await state()[key] as? [[String: Any]] ?? []
            if entries.count >= count || Date() > deadline { return entries }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// Whether `text` looks like a compact JWS (three base64url parts); keeps the token out of
/// failure messages.
private func isCompactJWS(_ text: String) -> Bool {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } }
}

@Suite("Provider emulators: presets and quirks end to end through the CLI", .serialized)
struct ProviderEmulatorTests {
    // MARK: GitHub

    /// `provider add gh --preset github` with the endpoints moved to the emulator.
    func addGitHub(_ home: CLIHome, _ emulator: ProviderEmulator, preset: Bool) async throws {
        let base = emulator.baseURL
        var arguments = ["provider", "add", "gh", "--client-id", emulator.clientID,
                         "--authorization-endpoint", "\(base)/login/oauth/authorize",
                         "--token-endpoint", "\(base)/login/oauth/access_token",
                         "--device-authorization-endpoint", "\(base)/login/device/code",
                         "--userinfo-endpoint", "\(base)/user", "--scope", "repo", "--scope", "gist"]
        if preset { arguments += ["--preset", "github"] }
        let added = try await home.run(arguments)
        try #require(added.exitCode == 0, "provider add: \(added)")
    }

    /// The device flow against GitHub: user code from stderr, approval through the control endpoint.
    func deviceLogin(_ home: CLIHome, _ emulator: ProviderEmulator, pollsBeforeApproval: Int, action: String = "approve") async throws -> RunResult {
        let login = try home.start(["login", "gh", "--device"])
        let userCode = await login.waitForStderr(#"enter the code: (\S+)"#)
        let code = try #require(userCode, "no user code on stderr: \(login.stderrText)")
        #expect(login.stderrText.contains("\(emulator.baseURL)/login/device"), "the verification URI is shown")
        if pollsBeforeApproval > 0 {
            let polls = try await emulator.waitFor("polls", count: pollsBeforeApproval)
            try #require(polls.count >= pollsBeforeApproval, "the CLI polls the token endpoint")
        }
        try await emulator.device(action, userCode: code)
        return await login.wait(timeout: 40)
    }

    @Test("GitHub device flow: HTTP 200 slow_down with a new interval is obeyed (RFC 8628 3.5), comma scopes, no expiry, identity from /user, userinfo by the preset's subject member")
    func gitHubDeviceFlow() async throws {
        let emulator = try await ProviderEmulator.start("github", ["--slow-down", "1", "--interval", "1"])
        let home = try CLIHome()
        defer { home.remove() }
        try await addGitHub(home, emulator, preset: true)

        let login = try await deviceLogin(home, emulator, pollsBeforeApproval: 1)
        #expect(login.exitCode == 0, "\(login)")
        #expect(login.stdout.isEmpty, "login prints nothing on stdout")

        // The emulator answered slow_down (HTTP 200, interval 1 → 6) first; the next poll came no
        // sooner than the new interval and got the token.
        let state = try await emulator.state()
        let polls = try #require(state["polls"] as? [[String: Any]])
        #expect(polls.compactMap { $0["answer"] as? String }.first == "slow_down")
        #expect(polls.last?["answer"] as? String == "access_token")
        let gaps = polls.dropFirst().compactMap { $0["gap"] as? Double }
        #expect(!gaps.isEmpty && gaps.allSatisfy { $0 >= 5.9 }, "polls after slow_down wait the new interval: \(gaps)")
        let tokenRequests = try #require(state["token_requests"] as? [[String: Any]])
        #expect(tokenRequests.allSatisfy { ($0["accept"] as? String)?.contains("application/json") == true },
                "the github preset sends Accept: application/json")

        // status: the account from GET /user; scopes from "repo,gist"; no expiry, no refresh token.
        let (statusResult, status) = try await home.statusJSON()
        #expect(statusResult.exitCode == 0, "\(statusResult)")
        let accounts = try #require(status["accounts"] as? [[String: Any]])
        try #require(accounts.count == 1, "\(status)")
        let account = accounts[0]
        #expect(account["displayName"] as? String == "The Octocat")
        #expect(account["username"] as? String == "octocat")
        #expect(account["handle"] as? String == "gh/octocat")
        let scopes = Set(account["scopes"] as? [String] ?? [])
        #expect(scopes.isSuperset(of: ["repo", "gist"]) && !scopes.contains("repo,gist"), "\(scopes)")
        let access = try #require(account["accessToken"] as? [String: Any])
        #expect(access["expiresAt"] is NSNull, "OAuth-app tokens do not expire: \(access)")
        #expect(Set(access["scopes"] as? [String] ?? []).isSuperset(of: ["repo", "gist"]))
        let refresh = account["refreshToken"] as? [String: Any]
        #expect(refresh == nil || refresh?["present"] as? Bool == false, "no refresh token: \(String(describing: refresh))")
        #expect(account["idToken"] == nil || account["idToken"] is NSNull, "no ID token without OIDC")

        // token: the access token; api: Authorization: Bearer to /user.
        let token = try await home.run(["token", "gh"])
        #expect(token.exitCode == 0, "\(token)")
        let looksLikeGitHubToken = token.stdout.hasPrefix("gho_")
        #expect(looksLikeGitHubToken, "token prints the access token")
        #expect(!statusResult.stdout.contains(token.stdout.trimmingCharacters(in: .newlines)), "no secret in status")
        let usersBefore = try await emulator.state()["user_requests"] as? Int ?? 0
        let api = try await home.run(["api", "gh", "\(emulator.baseURL)/user"])
        #expect(api.exitCode == 0, "\(api)")
        let user = try jsonObject(api.stdout)
        #expect(user["login"] as? String == "octocat" && user["id"] as? Int == 583231)
        #expect(try await emulator.state()["user_requests"] as? Int == usersBefore + 1)
        // Userinfo reads the account from /user as sign-in did (the preset's subject
        // member, `id`), not from a `sub` GitHub never sends.
        let userinfo = try await home.run(["userinfo", "gh"])
        #expect(userinfo.exitCode == 0 && userinfo.stdout.contains("login: octocat") && userinfo.stdout.contains("id: 583231"), "\(userinfo)")

        // logout: GitHub has no RFC 7009 endpoint (and none is configured): local secrets go,
        // nothing is sent to the provider.
        let requestsBefore = (try await emulator.state()["token_requests"] as? [Any])?.count
        let logout = try await home.run(["logout", "gh"])
        #expect(logout.exitCode == 0, "\(logout)")
        #expect((try await emulator.state()["token_requests"] as? [Any])?.count == requestsBefore)
        let (_, afterLogout) = try await home.statusJSON()
        #expect((afterLogout["accounts"] as? [[String: Any]])?.isEmpty == true)
        await emulator.stop()
    }

    @Test("GitHub token endpoint answering application/x-www-form-urlencoded is parsed (form bodies by Content-Type)")
    func gitHubFormEncodedTokenResponse() async throws {
        // A GitHub that answers form bodies (as it does when the client sends no
        // Accept: application/json), for the device code and the token, whatever the preset's
        // Accept header asks (the preset names the account by /user's `id`, its subjectClaim).
        let emulator = try await ProviderEmulator.start("github", ["--token-format", "form", "--slow-down", "0", "--interval", "1"])
        let home = try CLIHome()
        defer { home.remove() }
        try await addGitHub(home, emulator, preset: true)

        let login = try await deviceLogin(home, emulator, pollsBeforeApproval: 0)
        #expect(login.exitCode == 0, "\(login)")
        let polls = try #require(try await emulator.state()["polls"] as? [[String: Any]])
        #expect(polls.last?["answer"] as? String == "access_token")

        let (_, status) = try await home.statusJSON()
        let account = try #require((status["accounts"] as? [[String: Any]])?.first, "\(status)")
        #expect(account["username"] as? String == "octocat")
        #expect(Set(account["scopes"] as? [String] ?? []).isSuperset(of: ["repo", "gist"]), "\(account)")
        #expect((account["accessToken"] as? [String: Any])?["expiresAt"] is NSNull)
        let token = try await home.run(["token", "gh"])
        let looksLikeGitHubToken = token.exitCode == 0 && token.stdout.hasPrefix("gho_")
        #expect(looksLikeGitHubToken, "the token came from the form body")
        await emulator.stop()
    }

    struct DeviceEnding: Sendable, CustomStringConvertible {
        var action: String
        var answer: String
        var description: String { "\(action) → \(answer)" }
    }

    @Test("GitHub device flow ended by HTTP 200 access_denied or expired_token: exit 1, polling stops, nothing stored (RFC 8628 3.5)",
          arguments: [DeviceEnding(action: "deny", answer: "access_denied"), DeviceEnding(action: "expire", answer: "expired_token")])
    func gitHubDeviceFlowEnds(_ ending: DeviceEnding) async throws {
        let emulator = try await ProviderEmulator.start("github", ["--slow-down", "0", "--interval", "1"])
        let home = try CLIHome()
        defer { home.remove() }
        try await addGitHub(home, emulator, preset: true)
        let login = try await deviceLogin(home, emulator, pollsBeforeApproval: 1, action: ending.action)
        #expect(login.exitCode == 1, "\(login)")
        #expect(login.stdout.isEmpty)
        let polls = try #require(try await emulator.state()["polls"] as? [[String: Any]])
        #expect(polls.last?["answer"] as? String == ending.answer, "the last poll was the one that ended it")
        try await Task.sleep(for: .seconds(1.5))
        let after = try #require(try await emulator.state()["polls"] as? [[String: Any]])
        #expect(after.count == polls.count, "no poll after the flow ended")
        let (_, status) = try await home.statusJSON()
        #expect((status["accounts"] as? [[String: Any]])?.isEmpty == true, "nothing stored: \(status)")
        await emulator.stop()
    }

    @Test("GitHub-App user tokens: expires_in and a rotating refresh token; authdeck refresh renews with the newest refresh token (RFC 6749 6); status names no issuer and an empty grant, token --json the handle")
    func gitHubAppUserTokens() async throws {
        let emulator = try await ProviderEmulator.start("github", ["--app-tokens", "--slow-down", "0", "--interval", "1"])
        let home = try CLIHome()
        defer { home.remove() }
        try await addGitHub(home, emulator, preset: true)
        let login = try await deviceLogin(home, emulator, pollsBeforeApproval: 0)
        try #require(login.exitCode == 0, "\(login)")

        let (_, status) = try await home.statusJSON()
        let account = try #require((status["accounts"] as? [[String: Any]])?.first, "\(status)")
        let access = try #require(account["accessToken"] as? [String: Any])
        let expiresAt = try #require(parseRFC3339(access["expiresAt"]), "\(access)")
        #expect(abs(expiresAt.timeIntervalSinceNow - 28800) < 60, "expires_in 28800 s")
        #expect((account["refreshToken"] as? [String: Any])?["present"] as? Bool == true)
        // No issuer for a provider configured by endpoints, and what an empty grant means.
        #expect(account["issuer"] is NSNull, "\(account)")
        let text = try await home.run(["status"])
        #expect(text.stdout.contains(", configured by endpoints (no issuer)") && !text.stdout.contains("issuer http"), "\(text.stdout)")
        #expect(text.stdout.contains("    scopes: none named by the provider"), "\(text.stdout)")
        let tokenJSON = try jsonObject(try await home.run(["token", "gh", "--json"]).stdout)
        #expect(tokenJSON["account"] as? String == "gh/octocat", "one account name, as status and login say: \(tokenJSON)")

        let first = try await home.run(["token", "gh"]).stdout
        for round in 1...2 {
            let refreshed = try await home.run(["refresh", "gh"])
            #expect(refreshed.exitCode == 0, "refresh \(round): \(refreshed)")
        }
        let state = try await emulator.state()
        #expect(state["refreshes"] as? Int == 2)
        #expect(state["refresh_reuse"] as? Int == 0, "a spent refresh token was never sent again")
        let renewed = try await home.run(["token", "gh"]).stdout
        let changed = !renewed.isEmpty && renewed != first
        #expect(changed, "refresh stored a new access token")
        let api = try await home.run(["api", "gh", "\(emulator.baseURL)/user"])
        #expect(api.exitCode == 0, "the renewed token works: \(api)")
        await emulator.stop()
    }

    // MARK: Auth0

    @Test("Auth0: trailing-slash issuer matched exactly, RS256 ID token verified, audience JWT access token, rotation, revocation at /oauth/revoke")
    func auth0EndToEnd() async throws {
        let emulator = try await ProviderEmulator.start("auth0")
        let issuer = emulator.baseURL + "/"
        let audience = "https://api.example.test"
        var home = try CLIHome()
        defer { home.remove() }
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path

        let added = try await home.run(["provider", "add", "a0", "--issuer", issuer, "--client-id", emulator.clientID, "--audience", audience])
        try #require(added.exitCode == 0, "provider add: \(added)")
        let login = try await home.run(["login", "a0"])
        try #require(login.exitCode == 0, "login: \(login)")

        // The authorization request: PKCE S256, state, nonce, and the audience parameter.
        let state = try await emulator.state()
        let authorize = try #require((state["authorize_requests"] as? [[String: Any]])?.last)
        #expect(authorize["code_challenge_method"] as? String == "S256")
        #expect(authorize["has_state"] as? Bool == true && authorize["has_nonce"] as? Bool == true)
        #expect(authorize["has_audience"] as? Bool == true)
        #expect((authorize["scope"] as? String)?.split(separator: " ").contains("offline_access") == true)

        // status: issuer kept with its slash; ID token signature verified with the JWKS.
        let (statusResult, status) = try await home.statusJSON()
        #expect(statusResult.exitCode == 0, "\(statusResult)")
        let account = try #require((status["accounts"] as? [[String: Any]])?.first, "\(status)")
        #expect(account["issuer"] as? String == issuer)
        #expect(account["subject"] as? String == "auth0|5f7c8ec7c33c6c004bbafe82")
        #expect(account["email"] as? String == "jane@example.test")
        let idToken = try #require(account["idToken"] as? [String: Any])
        #expect((idToken["signature"] as? [String: Any])?["verified"] as? Bool == true, "\(idToken)")
        #expect((account["refreshToken"] as? [String: Any])?["present"] as? Bool == true)

        // decode --verify of the ID token against the exact (slashed) issuer; updated_at is a string.
        let id = try await home.run(["token", "a0", "--id-token"])
        #expect(id.exitCode == 0)
        let verified = try await home.run(["decode", "--json", "--verify", "--issuer", issuer, "--audience", emulator.clientID],
                                          stdin: Data(id.stdout.utf8))
        #expect(verified.exitCode == 0, "\(verified)")
        let verifiedJSON = try jsonObject(verified.stdout)
        #expect((verifiedJSON["verification"] as? [String: Any])?["valid"] as? Bool == true)
        #expect((verifiedJSON["claims"] as? [String: Any])?["updated_at"] is String, "ISO 8601 string kept as is")
        // The same issuer without its slash is another issuer (OIDC Core 3.1.3.7 rule 2: exact match).
        let unslashed = try await home.run(["decode", "--json", "--verify", "--issuer", emulator.baseURL, "--audience", emulator.clientID],
                                           stdin: Data(id.stdout.utf8))
        #expect(unslashed.exitCode == 1, "\(unslashed)")

        // The API access token: an RS256 JWT whose aud array holds the audience and the userinfo URL.
        let access = try await home.run(["token", "a0"])
        let first = access.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let isJWT = access.exitCode == 0 && isCompactJWS(first)
        #expect(isJWT, "with an audience the access token is a JWT")
        let decoded = try jsonObject(try await home.run(["decode", "--json"], stdin: Data(first.utf8)).stdout)
        #expect((decoded["header"] as? [String: Any])?["alg"] as? String == "RS256")
        let claims = try #require(decoded["claims"] as? [String: Any])
        #expect(claims["aud"] as? [String] == [audience, issuer + "userinfo"])
        #expect(claims["azp"] as? String == emulator.clientID)
        #expect(claims["scope"] is String && claims["permissions"] is [String])

        // Refresh with rotation, twice: the second works only with the rotated refresh token.
        for round in 1...2 {
            let refreshed = try await home.run(["refresh", "a0"])
            #expect(refreshed.exitCode == 0, "refresh \(round): \(refreshed)")
        }
        let afterRefresh = try await emulator.state()
        #expect(afterRefresh["refreshes"] as? Int == 2)
        #expect(afterRefresh["refresh_reuse"] as? Int == 0, "a spent refresh token was never sent again")
        let renewed = try await home.run(["token", "a0"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let changed = !renewed.isEmpty && renewed != first
        #expect(changed, "refresh stored a new access token")

        // logout: the refresh token is revoked at /oauth/revoke (Auth0 revokes refresh tokens only).
        // Then RP-initiated logout at the discovered end_session_endpoint through $BROWSER.
        let logout = try await home.run(["logout", "a0"])
        #expect(logout.exitCode == 0, "\(logout)")
        var final = try await emulator.state()
        for _ in 0..<100 where final["end_session_requests"] == nil {
            try await Task.sleep(for: .milliseconds(50))
            final = try await emulator.state()
        }
        #expect(final["end_session_requests"] as? Int == 1, "the browser stand-in opened /oidc/logout")
        // RP-Initiated Logout 1.0 §2: the hint reaches the provider, through the listener's
        // one-time page (a 303), never in the browser's argv.
        #expect((final["end_session"] as? [String: Any])?["has_id_token_hint"] as? Bool == true)
        #expect((final["end_session"] as? [String: Any])?["client_id_matches"] as? Bool == true)
        for step in ["revoke refresh token", "end provider session", "delete local secrets"] {
            #expect(logout.stderr.contains("✓ \(step)"), "\(step): \(logout.stderr)")
        }
        #expect(final["revoked_refresh_tokens"] as? Int == 1, "\(final)")
        let revocations = final["revocation_requests"] as? [[String: Any]] ?? []
        #expect(revocations.contains { $0["kind"] as? String == "refresh_token" && $0["client_id_matches"] as? Bool == true })
        let (_, afterLogout) = try await home.statusJSON()
        #expect((afterLogout["accounts"] as? [[String: Any]])?.isEmpty == true)
        await emulator.stop()
    }

    @Test("Auth0 without audience: the access token is opaque (userinfo only) and still calls /userinfo; no refresh token without offline_access")
    func auth0WithoutAudience() async throws {
        let emulator = try await ProviderEmulator.start("auth0")
        let issuer = emulator.baseURL + "/"
        var home = try CLIHome()
        defer { home.remove() }
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path
        let added = try await home.run(["provider", "add", "a0", "--issuer", issuer, "--client-id", emulator.clientID,
                                        "--scope", "openid", "--scope", "profile", "--scope", "email"])
        try #require(added.exitCode == 0, "provider add: \(added)")
        let login = try await home.run(["login", "a0"])
        try #require(login.exitCode == 0, "login: \(login)")
        let authorize = try #require((try await emulator.state()["authorize_requests"] as? [[String: Any]])?.last)
        #expect(authorize["has_audience"] as? Bool == false)

        let token = try await home.run(["token", "a0"])
        let text = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let opaqueToken = token.exitCode == 0 && !text.isEmpty && !isCompactJWS(text)
        #expect(opaqueToken, "without an audience the access token is not a JWT")
        let decoded = try jsonObject(try await home.run(["decode", "--json"], stdin: Data(text.utf8)).stdout)
        #expect(decoded["kind"] as? String == "opaque")
        let api = try await home.run(["api", "a0", issuer + "userinfo"])
        #expect(api.exitCode == 0, "\(api)")
        let userinfo = try jsonObject(api.stdout)
        #expect(userinfo["sub"] as? String == "auth0|5f7c8ec7c33c6c004bbafe82")
        #expect(userinfo["updated_at"] as? String == "2026-01-02T03:04:05.678Z")

        let (_, status) = try await home.statusJSON()
        let account = try #require((status["accounts"] as? [[String: Any]])?.first, "\(status)")
        #expect(account["issuer"] as? String == issuer)
        #expect((account["refreshToken"] as? [String: Any])?["present"] as? Bool != true, "no offline_access, no refresh token")
        await emulator.stop()
    }
}
