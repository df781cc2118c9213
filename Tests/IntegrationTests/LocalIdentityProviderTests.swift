// Proves the bundled local OpenID provider fixture works from Swift: it starts, publishes exact
// metadata, completes real token round trips driven by its Python tools, and stops completely.
// (Plain Foundation HTTP here on purpose: these tests check the fixture, not the engine.)
import Foundation
import Testing
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Local identity provider fixture")
struct LocalIdentityProviderTests {
    @Test("OIDC Discovery 1.0 §4.3: issuer in discovery equals the fixture's issuer exactly; RFC 7009/7662/8628 endpoints listed; S256 only")
    func discoveryIsExactAndComplete() async throws {
        let provider = try await LocalIdentityProvider.shared.provider()
        #expect(provider.issuer.absoluteString == "http://127.0.0.1:\(provider.port)/o")
        let discovery = try await getJSON(provider.discoveryURL)
        #expect(discovery["issuer"] as? String == provider.issuer.absoluteString)
        #expect(discovery["revocation_endpoint"] as? String == provider.endpoints.revocation.absoluteString)
        #expect(discovery["introspection_endpoint"] as? String == provider.endpoints.introspection.absoluteString)
        #expect(discovery["device_authorization_endpoint"] as? String
            == provider.endpoints.deviceAuthorization.absoluteString)
        #expect(discovery["end_session_endpoint"] as? String == provider.endpoints.endSession.absoluteString)
        #expect(discovery["code_challenge_methods_supported"] as? [String] == ["S256"])
        #expect(discovery["authorization_response_iss_parameter_supported"] as? Bool == true)

        let metadata = try await getJSON(provider.authorizationServerMetadataURL)
        #expect(metadata["issuer"] as? String == provider.issuer.absoluteString)
        #expect(provider.authorizationServerMetadataURL.path == "/.well-known/oauth-authorization-server/o")

        let jwks = try await getJSON(provider.endpoints.jwks)
        let keys = try #require(jwks["keys"] as? [[String: Any]])
        #expect(keys.count == 1)
        #expect(keys.first?["kty"] as? String == "RSA")
        #expect(keys.first?["alg"] as? String == "RS256")
    }

    @Test("RFC 6749 §4.1 + RFC 7636 + RFC 9207: browser stand-in signs alice in; code exchanged; refresh rotates; reuse is invalid_grant")
    func authorizationCodeRoundTrip() async throws {
        let provider = try await LocalIdentityProvider.shared.provider()
        let listener = try await OneShotListener.start()
        defer { Task { await listener.stop() } }
        let redirectURI = "http://127.0.0.1:\(listener.port)/callback"
        // RFC 7636 Appendix B: a published verifier/challenge pair (the engine makes fresh ones).
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        var authorize = URLComponents(url: provider.endpoints.authorization, resolvingAgainstBaseURL: false)!
        authorize.queryItems = [
            .init(name: "client_id", value: provider.nativeClient.clientID),
            .init(name: "response_type", value: "code"),
            .init(name: "redirect_uri", value: redirectURI),
            .init(name: "scope", value: "openid profile email"),
            .init(name: "state", value: "state-1"),
            .init(name: "nonce", value: "nonce-1"),
            .init(name: "code_challenge", value: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
            .init(name: "code_challenge_method", value: "S256"),
        ]
        let browser = try await provider.runBrowser(url: authorize.url!, user: "alice")
        #expect(browser.exitCode == 0, "browser stand-in: \(browser.stderr)")
        let callback = try #require(try listener.receivedQuery())
        #expect(callback["state"] == "state-1")
        #expect(callback["iss"] == provider.issuer.absoluteString)
        let code = try #require(callback["code"])

        let (tokens, status) = try await postForm(provider.endpoints.token, [
            "grant_type": "authorization_code", "client_id": provider.nativeClient.clientID,
            "code": code, "code_verifier": verifier, "redirect_uri": redirectURI,
        ])
        #expect(status == 200)
        #expect(tokens["id_token"] is String)
        let accessToken = try #require(tokens["access_token"] as? String)
        let refreshToken = try #require(tokens["refresh_token"] as? String)

        var userinfoRequest = URLRequest(url: provider.endpoints.userinfo)
        userinfoRequest.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        let userinfo = try await sendJSON(userinfoRequest).json
        #expect(userinfo["preferred_username"] as? String == "alice")
        #expect(userinfo["email"] as? String == "alice@example.test")
        #expect(userinfo["name"] as? String == "Alice Example")

        let refresh = ["grant_type": "refresh_token", "client_id": provider.nativeClient.clientID]
        let (rotated, rotatedStatus) = try await postForm(provider.endpoints.token, refresh.merging(
            ["refresh_token": refreshToken]) { $1 })
        #expect(rotatedStatus == 200)
        let newRefreshToken = try #require(rotated["refresh_token"] as? String)
        #expect(newRefreshToken != refreshToken)
        let (reused, reusedStatus) = try await postForm(provider.endpoints.token, refresh.merging(
            ["refresh_token": refreshToken]) { $1 })
        #expect(reusedStatus == 400)
        #expect(reused["error"] as? String == "invalid_grant")
    }

    @Test("RP-Initiated Logout 1.0 §2-3: end session with id_token_hint returns to the loopback listener with state; tokens deleted")
    func endSession() async throws {
        let provider = try await LocalIdentityProvider.shared.provider()
        let tokens = try await signIn(provider, user: "bob")
        let idToken = try #require(tokens["id_token"] as? String)
        let accessToken = try #require(tokens["access_token"] as? String)
        let listener = try await OneShotListener.start()
        defer { Task { await listener.stop() } }
        var endSession = URLComponents(url: provider.endpoints.endSession, resolvingAgainstBaseURL: false)!
        endSession.queryItems = [
            .init(name: "id_token_hint", value: idToken),
            .init(name: "client_id", value: provider.nativeClient.clientID),
            .init(name: "post_logout_redirect_uri", value: "http://127.0.0.1:\(listener.port)/logout-callback"),
            .init(name: "state", value: "logout-state-7"),
        ]
        let browser = try await provider.runBrowser(url: endSession.url!, user: "bob")
        #expect(browser.exitCode == 0, "browser stand-in: \(browser.stderr)")
        #expect(!browser.stderr.contains(idToken))
        #expect(try listener.receivedQuery() == ["state": "logout-state-7"])
        let (introspection, _) = try await postForm(provider.endpoints.introspection, [
            "client_id": provider.nativeClient.clientID, "token": accessToken,
        ])
        #expect(introspection["active"] as? Bool == false)
    }

    @Test("RFC 8628 §3.4/3.5 + RFC 7009 + RFC 7662: device grant approved by bob; introspection active; revoked refresh token inactive")
    func deviceGrantRevokeIntrospect() async throws {
        let provider = try await LocalIdentityProvider.start(deviceInterval: 1)
        defer { Task { await provider.stop() } }
        let client = provider.nativeClient.clientID
        let (device, deviceStatus) = try await postForm(provider.endpoints.deviceAuthorization, [
            "client_id": client, "scope": "openid profile",
        ])
        #expect(deviceStatus == 200)
        #expect(device["interval"] as? Int == 1)
        #expect(device["verification_uri"] as? String == provider.endpoints.verification.absoluteString)
        let userCode = try #require(device["user_code"] as? String)
        let deviceCode = try #require(device["device_code"] as? String)
        #expect(device["verification_uri_complete"] as? String
            == provider.endpoints.verification.absoluteString + "?user_code=\(userCode)")

        let poll = ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "client_id": client,
                    "device_code": deviceCode]
        let (pending, _) = try await postForm(provider.endpoints.token, poll)
        #expect(pending["error"] as? String == "authorization_pending")

        let approval = try await provider.approveDevice(userCode: userCode, user: "bob")
        #expect(approval.exitCode == 0, "approve-device: \(approval.stderr)")
        let (tokens, status) = try await postForm(provider.endpoints.token, poll)
        #expect(status == 200)
        #expect(tokens["id_token"] is String)
        let accessToken = try #require(tokens["access_token"] as? String)
        let refreshToken = try #require(tokens["refresh_token"] as? String)

        let (active, _) = try await postForm(provider.endpoints.introspection, ["client_id": client, "token": accessToken])
        #expect(active["active"] as? Bool == true)
        #expect(active["username"] as? String == "bob")
        #expect(active["client_id"] as? String == client)
        let (refreshActive, _) = try await postForm(provider.endpoints.introspection, ["client_id": client, "token": refreshToken])
        #expect(refreshActive["active"] as? Bool == true)

        let (_, revokeStatus) = try await postForm(provider.endpoints.revocation, [
            "client_id": client, "token": refreshToken, "token_type_hint": "refresh_token",
        ])
        #expect(revokeStatus == 200)
        let (inactive, _) = try await postForm(provider.endpoints.introspection, ["client_id": client, "token": refreshToken])
        #expect(inactive["active"] as? Bool == false)
        let (refused, _) = try await postForm(provider.endpoints.token, [
            "grant_type": "refresh_token", "client_id": client, "refresh_token": refreshToken,
        ])
        #expect(refused["error"] as? String == "invalid_grant")
    }

    @Test("RFC 8628 §3.5: a device code left to expire (fixture lifetime 2 s) answers expired_token")
    func deviceCodeExpires() async throws {
        let provider = try await LocalIdentityProvider.start(deviceCodeLifetime: 2, deviceInterval: 1)
        defer { Task { await provider.stop() } }
        #expect(provider.deviceCodeLifetime == 2)
        let (device, _) = try await postForm(provider.endpoints.deviceAuthorization, [
            "client_id": provider.nativeClient.clientID, "scope": "openid",
        ])
        #expect(device["expires_in"] as? Int == 2)
        let deviceCode = try #require(device["device_code"] as? String)
        try await Task.sleep(for: .milliseconds(2500))
        let (expired, _) = try await postForm(provider.endpoints.token, [
            "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            "client_id": provider.nativeClient.clientID, "device_code": deviceCode,
        ])
        #expect(expired["error"] as? String == "expired_token")
    }

    @Test("RFC 8628 §3.5: with deviceSlowDown a poll sooner than the interval answers slow_down")
    func deviceSlowDown() async throws {
        let provider = try await LocalIdentityProvider.start(deviceInterval: 1, deviceSlowDown: true)
        defer { Task { await provider.stop() } }
        #expect(provider.deviceSlowDown)
        let (device, _) = try await postForm(provider.endpoints.deviceAuthorization, [
            "client_id": provider.nativeClient.clientID, "scope": "openid",
        ])
        let poll = ["grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                    "client_id": provider.nativeClient.clientID,
                    "device_code": try #require(device["device_code"] as? String)]
        let (first, _) = try await postForm(provider.endpoints.token, poll)
        #expect(first["error"] as? String == "authorization_pending")
        let (second, _) = try await postForm(provider.endpoints.token, poll)
        #expect(second["error"] as? String == "slow_down")
    }

    @Test("RFC 6749 §4.1.2.1 + RFC 9207 §2: consent denied by the browser stand-in reaches the listener as access_denied with state and iss")
    func consentDenied() async throws {
        let provider = try await LocalIdentityProvider.shared()
        let listener = try await OneShotListener.start()
        defer { Task { await listener.stop() } }
        var authorize = URLComponents(url: provider.endpoints.authorization, resolvingAgainstBaseURL: false)!
        authorize.queryItems = [
            .init(name: "client_id", value: provider.nativeClient.clientID),
            .init(name: "response_type", value: "code"),
            .init(name: "redirect_uri", value: "http://127.0.0.1:\(listener.port)/callback"),
            .init(name: "scope", value: "openid"),
            .init(name: "state", value: "deny-state"),
            .init(name: "code_challenge", value: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
            .init(name: "code_challenge_method", value: "S256"),
        ]
        let browser = try await provider.runBrowser(url: authorize.url!, user: "alice", consent: .deny)
        #expect(browser.exitCode == 0, "browser stand-in: \(browser.stderr)")
        let callback = try #require(try listener.receivedQuery())
        #expect(callback["error"] == "access_denied")
        #expect(callback["state"] == "deny-state")
        #expect(callback["iss"] == provider.issuer.absoluteString)
        #expect(callback["code"] == nil)
    }

    @Test("Fixture lifecycle: stop() ends the provider's whole process group")
    func stopEndsProcessGroup() async throws {
        let provider = try await LocalIdentityProvider.start(accessTokenLifetime: 120)
        #expect(provider.accessTokenLifetime == 120)
        #expect(provider.isRunning)
        #expect(FixtureProcess.processGroupExists(provider.pid))
        await provider.stop()
        #expect(!FixtureProcess.processGroupExists(provider.pid))
        #expect(!provider.isRunning)
        await #expect(throws: (any Error).self) {
            _ = try await getJSON(provider.discoveryURL)
        }
    }
}

// MARK: - Helpers (plain Foundation HTTP against 127.0.0.1)

/// Signs `user` in with the native client (browser stand-in + code exchange); the token response.
private func signIn(_ provider: LocalIdentityProvider, user: String) async throws -> [String: Any] {
    let listener = try await OneShotListener.start()
    defer { Task { await listener.stop() } }
    let redirectURI = "http://127.0.0.1:\(listener.port)/callback"
    var authorize = URLComponents(url: provider.endpoints.authorization, resolvingAgainstBaseURL: false)!
    authorize.queryItems = [
        .init(name: "client_id", value: provider.nativeClient.clientID),
        .init(name: "response_type", value: "code"),
        .init(name: "redirect_uri", value: redirectURI),
        .init(name: "scope", value: "openid profile"),
        .init(name: "state", value: "s"),
        .init(name: "code_challenge", value: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
        .init(name: "code_challenge_method", value: "S256"),
    ]
    let browser = try await provider.runBrowser(url: authorize.url!, user: user)
    #expect(browser.exitCode == 0, "browser stand-in: \(browser.stderr)")
    let code = try #require(try listener.receivedQuery()?["code"])
    let (tokens, status) = try await postForm(provider.endpoints.token, [
        "grant_type": "authorization_code", "client_id": provider.nativeClient.clientID, "code": code,
        "code_verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "redirect_uri": redirectURI,
    ])
    #expect(status == 200)
    return tokens
}

private func sendJSON(_ request: URLRequest) async throws -> (json: [String: Any], status: Int) {
    var request = request
    request.timeoutInterval = 30
    let (data, response) = try await URLSession.shared.data(for: request)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    if data.isEmpty { return ([:], status) }
    guard let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
        // Not JSON: an HTML error page (never a token response), shown to explain the failure.
        throw NotJSON(url: request.url?.path ?? "", status: status,
                      body: String(decoding: data.prefix(300), as: UTF8.self))
    }
    return (json, status)
}

private struct NotJSON: Error {
    let url: String
    let status: Int
    let body: String
}

private func getJSON(_ url: URL) async throws -> [String: Any] {
    let (json, status) = try await sendJSON(URLRequest(url: url))
    #expect(status == 200)
    return json
}

private func postForm(_ url: URL, _ fields: [String: String]) async throws -> ([String: Any], Int) {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    let body = fields.sorted { $0.key < $1.key }.map { key, value in
        "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
    }.joined(separator: "&")
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(body.utf8)
    return try await sendJSON(request)
}

/// A one-request HTTP listener on 127.0.0.1 (Python, run as a FixtureProcess) standing in for a
/// client's loopback redirect listener; it records the request target to a file.
private struct OneShotListener {
    let port: Int
    let process: FixtureProcess
    let recordURL: URL

    static func start() async throws -> OneShotListener {
        let record = FileManager.default.temporaryDirectory
            .appendingPathComponent("authdeck-listener-\(UUID().uuidString).txt")
        let script = """
        import http.server, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                with open(sys.argv[1], "w") as f:
                    f.write(self.path)
                body = b"signed in"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_port, flush=True)
        server.handle_request()
        """
        let process = try FixtureProcess.spawn(executable: LocalIdentityProvider.pythonPath, arguments: ["-c", script, record.path])
        let line = try await process.readFirstLine(timeout: .seconds(30))
        guard let port = Int(line) else {
            await process.terminate()
            throw FixtureProcessError.invalidReadyLine(reason: "listener port")
        }
        return OneShotListener(port: port, process: process, recordURL: record)
    }

    /// The query parameters of the request received, if any.
    func receivedQuery() throws -> [String: String]? {
        guard let target = try? String(contentsOf: recordURL, encoding: .utf8),
              let components = URLComponents(string: "http://127.0.0.1\(target)") else { return nil }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return query
    }

    func stop() async {
        await process.terminate()
        try? FileManager.default.removeItem(at: recordURL)
    }
}
