// Sign in with Apple end to end: the real `authdeck` binary against the Apple emulator
// (Tests/ProviderEmulators/apple.py): a code handed over by an app, form_post through the loopback
// listener, string booleans, a hashed nonce, name and email kept from the first sign-in, refresh
// without a new refresh token, revocation at /auth/revoke with the client secret.
import AuthEngine
import AuthEngineLive
import Foundation
import Testing
import TestSupport

/// The emulator's test controls and a client secret it accepts.
extension ProviderEmulator {
    static let appleTeamID = "A1B2C3D4E5"

    /// A client-secret JWT with Apple's claims (iss team id, sub Services ID, aud
    /// https://appleid.apple.com); the emulator decodes it and checks no signature (the ES256
    /// signing is `authdeck apple client-secret`'s, tested there).
    func appleClientSecret() -> String {
        func part(_ object: [String: Any]) -> String {
            Base64URL.encode((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
        }
        let now = Int(Date().timeIntervalSince1970)
        return part(["alg": "ES256", "kid": "ABC123DEFG"]) + "."
            + part(["iss": Self.appleTeamID, "sub": clientID, "aud": "https://appleid.apple.com", "iat": now, "exp": now + 3600])
            + ".c2lnbmF0dXJlLW5vdC1jaGVja2Vk"
    }

    /// A web page's authorization (Sign in with Apple JS, `response_mode=form_post` to an https
    /// return URL): `GET /auth/authorize` and the code from the auto-submitting form Apple answers.
    func appleWebCode(redirectURI: String, nonce: String) async throws -> String {
        var components = try #require(URLComponents(string: baseURL + "/auth/authorize"))
        components.queryItems = [URLQueryItem(name: "client_id", value: clientID), URLQueryItem(name: "response_type", value: "code"),
                                 URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: "openid name email"),
                                 URLQueryItem(name: "response_mode", value: "form_post"), URLQueryItem(name: "state", value: "web-state"),
                                 URLQueryItem(name: "nonce", value: nonce)]
        let response = try await CurlHTTPClient.live().send(HTTPRequest(method: .get, url: try #require(components.url)))
        let page = String(decoding: response.body, as: UTF8.self)
        let match = try #require(page.firstMatch(of: /name="code" value="([^"]+)"/), "no code in the form_post page (HTTP \(response.status))")
        return String(match.1)
    }

    /// `POST /_emulator/app-authorize`: what the app's AuthenticationServices hands over
    /// (`code`, `id_token`, and `user` on the first authorization only).
    func appleAppAuthorization(rawNonce: String) async throws -> [String: Any] {
        let url = try #require(URL(string: baseURL + "/_emulator/app-authorize"))
        let body = Data("raw_nonce=\(rawNonce)".utf8)
        let response = try await CurlHTTPClient.live().send(HTTPRequest(
            method: .post, url: url, headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")], body: body))
        try #require(response.status == 200, "app-authorize: HTTP \(response.status)")
        return try jsonObject(String(decoding: response.body, as: UTF8.self))
    }
}

@Suite("Apple: Sign in with Apple against its emulator through the CLI", .serialized)
struct AppleProviderTests {
    /// `provider add apple --preset apple` pointed at the emulator, with the client secret on stdin.
    func addApple(_ home: CLIHome, _ emulator: ProviderEmulator) async throws {
        let added = try await home.run(["provider", "add", "apple", "--preset", "apple", "--issuer", emulator.baseURL,
                                        "--client-id", emulator.clientID, "--revocation-endpoint", emulator.baseURL + "/auth/revoke",
                                        "--client-secret-stdin"], stdin: Data(emulator.appleClientSecret().utf8))
        try #require(added.exitCode == 0, "provider add: \(added)")
    }

    func account(_ home: CLIHome) async throws -> [String: Any] {
        let (result, status) = try await home.statusJSON()
        #expect(result.exitCode == 0, "\(result)")
        return try #require((status["accounts"] as? [[String: Any]])?.first, "\(status)")
    }

    @Test("Apple: login --code (code handover) with the app's identity token, hashed nonce, string booleans, one-time user JSON; later sign-ins keep name and email; refresh; revoke")
    func appleCodeHandover() async throws {
        let emulator = try await ProviderEmulator.start("apple")
        let home = try CLIHome()
        defer { home.remove() }
        try await addApple(home, emulator)
        let idTokenFile = home.root.appendingPathComponent("identity-token")

        // First sign-in: the app sent SHA-256(raw nonce); its token has string booleans, the
        // token endpoint's booleans; the user JSON carries the name.
        let rawNonce = "raw-nonce-\(UUID().uuidString)"
        let first = try await emulator.appleAppAuthorization(rawNonce: rawNonce)
        let user = try #require(first["user"] as? String, "the first authorization carries user JSON")
        try Data(try #require(first["id_token"] as? String).utf8).write(to: idTokenFile)
        let code = try #require(first["code"] as? String)
        let login = try await home.run(["login", "apple", "--code", "-", "--id-token-file", idTokenFile.path, "--user", user,
                                        "--nonce-sha256", rawNonce], stdin: Data(code.utf8))
        try #require(login.exitCode == 0, "login --code: \(login)")
        #expect(login.stdout.isEmpty, "nothing on stdout")
        #expect(login.stderr.contains("(verified, private relay)"), "\(login)")
        #expect(!login.stderr.contains(code), "the code is never shown")
        var state = try await emulator.state()
        #expect(state["boolean_kinds"] as? [String] == ["str", "bool"], "strings in the app's token, booleans from /auth/token")
        let exchange = try #require((state["token_requests"] as? [[String: Any]])?.last)
        #expect(exchange["grant_type"] as? String == "authorization_code")
        #expect(exchange["has_redirect_uri"] as? Bool == false && exchange["has_code_verifier"] as? Bool == false,
                "a handed-over code goes without redirect_uri (none was sent) and without a PKCE verifier")

        var record = try await account(home)
        #expect(record["displayName"] as? String == "Jane Appleseed", "the name from the one-time user JSON")
        #expect(record["email"] as? String == "k7x2q9m4pd@privaterelay.appleid.com")
        #expect(record["emailVerified"] as? Bool == true && record["privateEmail"] as? Bool == true, "\(record)")
        #expect(record["subject"] as? String == "001234.5d3f0c7e9b2a4f6e8d1c3b5a7f9e0d2c.0815")
        #expect(((record["idToken"] as? [String: Any])?["signature"] as? [String: Any])?["verified"] as? Bool == true)

        // A wrong raw nonce: refused (nonce compared as its SHA-256), nothing changes.
        let again = try await emulator.appleAppAuthorization(rawNonce: rawNonce)
        #expect(again["user"] == nil, "Apple sends the user JSON once")
        let wrong = try await home.run(["login", "apple", "--code", "-", "--nonce-sha256", "another-raw-nonce"],
                                       stdin: Data(try #require(again["code"] as? String).utf8))
        #expect(wrong.exitCode == 1, "\(wrong)")
        #expect(wrong.stderr.lowercased().contains("nonce"), "\(wrong)")

        // Second sign-in: no user JSON, no email in the tokens: name and email kept.
        let second = try await emulator.appleAppAuthorization(rawNonce: rawNonce)
        let relogin = try await home.run(["login", "apple", "--code", "-", "--nonce-sha256", rawNonce],
                                         stdin: Data(try #require(second["code"] as? String).utf8))
        try #require(relogin.exitCode == 0, "second login: \(relogin)")
        record = try await account(home)
        #expect(record["displayName"] as? String == "Jane Appleseed", "\(record)")
        #expect(record["email"] as? String == "k7x2q9m4pd@privaterelay.appleid.com")
        #expect(record["emailVerified"] as? Bool == true)

        // token, refresh (no new refresh token: the stored one keeps working), name kept.
        let token = try await home.run(["token", "apple"])
        #expect(token.exitCode == 0, "\(token)")
        for round in 1...2 {
            let refreshed = try await home.run(["refresh", "apple"])
            #expect(refreshed.exitCode == 0, "refresh \(round): \(refreshed)")
        }
        state = try await emulator.state()
        #expect(state["refreshes"] as? Int == 2)
        let renewed = try await home.run(["token", "apple"])
        let changed = renewed.exitCode == 0 && !renewed.stdout.isEmpty && renewed.stdout != token.stdout
        #expect(changed, "refresh stored a new access token")
        record = try await account(home)
        #expect(record["displayName"] as? String == "Jane Appleseed" && record["email"] as? String != nil)
        #expect((record["refreshToken"] as? [String: Any])?["present"] as? Bool == true)

        // logout: the refresh token revoked at /auth/revoke with client id and client secret.
        let logout = try await home.run(["logout", "apple"])
        #expect(logout.exitCode == 0, "\(logout)")
        state = try await emulator.state()
        #expect(state["revoked_refresh_tokens"] as? Int == 1, "\(state)")
        let revocations = state["revocation_requests"] as? [[String: Any]] ?? []
        #expect(!revocations.isEmpty && revocations.allSatisfy { $0["has_client_secret"] as? Bool == true }, "\(revocations)")
        let (_, after) = try await home.statusJSON()
        #expect((after["accounts"] as? [[String: Any]])?.isEmpty == true)
        await emulator.stop()
    }

    @Test("Apple: README's web line — a web page's code is exchanged with its redirect_uri (--redirect-uri) and plain nonce (--nonce); without --redirect-uri Apple refuses it and the error says to add it")
    func appleWebCodeNeedsRedirectURI() async throws {
        let emulator = try await ProviderEmulator.start("apple")
        let home = try CLIHome()
        defer { home.remove() }
        try await addApple(home, emulator)
        let returnURL = "https://app.example.com/callback"
        let nonce = "web-nonce-\(UUID().uuidString)"

        let withoutRedirect = try await home.run(["login", "apple", "--code", "-", "--nonce", nonce],
                                                 stdin: Data(try await emulator.appleWebCode(redirectURI: returnURL, nonce: nonce).utf8))
        #expect(withoutRedirect.exitCode != 0, "\(withoutRedirect)")
        #expect(withoutRedirect.stderr.contains("--redirect-uri"), "the error names the way out: \(withoutRedirect.stderr)")
        let (_, afterRefusal) = try await home.statusJSON()
        #expect((afterRefusal["accounts"] as? [[String: Any]] ?? []).isEmpty, "nothing stored: \(afterRefusal)")

        // README: printf %s "$CODE" | authdeck login apple --code - --redirect-uri https://app.example.com/callback --nonce "$NONCE"
        let code = try await emulator.appleWebCode(redirectURI: returnURL, nonce: nonce)
        let login = try await home.run(["login", "apple", "--code", "-", "--redirect-uri", returnURL, "--nonce", nonce], stdin: Data(code.utf8))
        try #require(login.exitCode == 0, "\(login)")
        let exchange = try #require((try await emulator.state()["token_requests"] as? [[String: Any]])?.last)
        #expect(exchange["has_redirect_uri"] as? Bool == true, "\(exchange)")
        #expect(try await account(home)["displayName"] as? String != nil)
        await emulator.stop()
    }

    @Test("Apple: the accounts screen under tmux with a Sign in with Apple account: the name from the first sign-in's user JSON, r refreshes it (no new refresh token), the account stays valid")
    func appleAccountInTheAccountsScreen() async throws {
        try #require(TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        try #require(ShippedBinary.problem == nil, "\(ShippedBinary.problem ?? "")")
        let emulator = try await ProviderEmulator.start("apple")
        var home = try CLIHome()
        defer { home.remove() }
        try await addApple(home, emulator)
        let rawNonce = "raw-nonce-\(UUID().uuidString)"
        let handover = try await emulator.appleAppAuthorization(rawNonce: rawNonce)
        let login = try await home.run(["login", "apple", "--code", "-", "--user", try #require(handover["user"] as? String),
                                        "--nonce-sha256", rawNonce], stdin: Data(try #require(handover["code"] as? String).utf8))
        try #require(login.exitCode == 0, "\(login)")

        home.environment["LANG"] = "C.UTF-8"
        let tmux = try TmuxSession(width: 120, height: 34, command: "TERM=tmux-256color \(ShippedBinary.path); exec sleep 600", environment: home.environment)
        defer { tmux.kill() }
        let screen = try await tmux.waitFor("the Apple account", timeout: 30) { $0.contains("Jane Appleseed") && $0.contains("Sign in with Apple") }
        #expect(screen.contains("Refresh token   present") && screen.contains("Last refresh    never"), "\(screen)")
        try tmux.sendKeys("r")
        var refreshes = 0
        for _ in 0..<200 where refreshes < 1 {
            try await Task.sleep(for: .milliseconds(50))
            refreshes = try await emulator.state()["refreshes"] as? Int ?? 0
        }
        #expect(refreshes == 1, "r refreshed the Apple account")
        let after = try await tmux.waitFor("refreshed", timeout: 15) { $0.contains("Jane Appleseed") && !$0.contains("Last refresh    never") }
        #expect(!after.contains("needs sign-in"), "the stored refresh token stays (Apple sends no new one): \(after)")
        try tmux.sendKeys("q")
        let (_, status) = try await home.statusJSON()
        let account = try #require((status["accounts"] as? [[String: Any]])?.first)
        #expect(account["status"] as? String == "valid" && (account["refreshToken"] as? [String: Any])?["present"] as? Bool == true, "\(account)")
        await emulator.stop()
    }

    @Test("Apple: response_mode=form_post through the loopback listener (a relay's POST), user JSON name kept, string booleans accepted")
    func appleFormPostThroughListener() async throws {
        let emulator = try await ProviderEmulator.start("apple", ["--accept-loopback", "--booleans", "strings"])
        var home = try CLIHome()
        defer { home.remove() }
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path
        try await addApple(home, emulator)

        let login = try await home.run(["login", "apple"])
        try #require(login.exitCode == 0, "login: \(login)")
        let state = try await emulator.state()
        let authorize = try #require((state["authorize_requests"] as? [[String: Any]])?.last)
        #expect(authorize["response_mode"] as? String == "form_post")
        #expect(authorize["has_state"] as? Bool == true && authorize["has_nonce"] as? Bool == true)
        #expect(state["boolean_kinds"] as? [String] == ["str"])
        let record = try await account(home)
        #expect(record["displayName"] as? String == "Jane Appleseed", "\(record)")
        #expect(record["emailVerified"] as? Bool == true && record["privateEmail"] as? Bool == true, "\(record)")
        await emulator.stop()
    }

    @Test("Apple: login --code without a stored client secret is a usage error naming provider add --client-secret-stdin")
    func appleCodeNeedsClientSecret() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let added = try await home.run(["provider", "add", "--no-probe", "apple", "--issuer", "http://127.0.0.1:9/", "--client-id", "com.example.web"])
        try #require(added.exitCode == 0, "\(added)")
        let login = try await home.run(["login", "apple", "--code", "-"], stdin: Data("c0de".utf8))
        #expect(login.exitCode == 2, "\(login)")
        #expect(login.stderr.contains("--client-secret-stdin"), "\(login)")
    }

    @Test("Apple: login --code usage errors (exit 2, nothing done): with --device, --scope, both nonce forms, --id-token without --code, two stdin readers")
    func appleCodeUsageErrors() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        for arguments in [["--code", "c", "--device"], ["--code", "c", "--scope", "email"], ["--code", "c", "--nonce", "a", "--nonce-sha256", "b"],
                          ["--id-token", "x"], ["--code", "-", "--id-token", "-"], ["--code", ""]] {
            let result = try await home.run(["login", "apple"] + arguments)
            #expect(result.exitCode == 2, "\(arguments): \(result)")
            #expect(result.stderr.contains("--"), "the message names the option: \(result)")
        }
    }
}
