import AuthEngine
import AuthEngineLive
import Foundation
import Testing

/// Callbacks that do not match, over a real socket, with the engine's own verdict
/// (`decideRedirectCallback`), as LiveSession wires it.
@Suite("Loopback listener with hostile callbacks (RFC 6749 §10.12, RFC 8252 §8.10)")
struct HostileCallbackTests {
    let http = CurlHTTPClient.live(configuration: CurlHTTPConfiguration(connectTimeout: 2, totalTimeout: 5))

    static let metadata = AuthorizationServerMetadata(
        issuer: "https://op.test", authorizationEndpoint: URL(string: "https://op.test/authorize"),
        tokenEndpoint: URL(string: "https://op.test/token"), responseTypesSupported: ["code"])

    static func pending(_ listener: LoopbackRedirectListener) -> PendingAuthorization {
        PendingAuthorization(authorizationURL: URL(string: "https://op.test/authorize")!, state: "the-sent-state", nonce: "n",
                             codeVerifier: CodeVerifier("v"), redirectURI: listener.redirectURI.absoluteString,
                             expectedIssuer: "https://op.test", clientID: "rp-native", requestedScopes: ["openid"], maxAge: nil)
    }

    func get(_ url: String, headers: [HTTPHeader] = []) async throws -> HTTPResponse {
        try await http.send(HTTPRequest(method: .get, url: URL(string: url)!, headers: headers))
    }

    /// Waits with the real verdict; returns what the caller (LiveSession) gets from validation.
    func run(_ listener: LoopbackRedirectListener, requests: (String) async throws -> Void) async throws -> Result<ValidatedAuthorizationResponse, AuthError> {
        let pending = Self.pending(listener)
        let metadata = Self.metadata
        let waiting = Task { try await listener.waitForCallback(timeout: 20) { decideRedirectCallback($0, pending: pending, metadata: metadata).verdict } }
        try await requests(listener.redirectURI.absoluteString)
        let callback = try await waiting.value
        return Result { () throws(AuthError) in try validateAuthorizationResponse(callback: callback, pending: pending, metadata: metadata) }
    }

    @Test("ARES-02: a wrong state ends the sign-in at once with stateMismatch and a page that says so; the port is closed")
    func wrongStateEndsSignIn() async throws {
        let listener = try LoopbackRedirectListener()
        let started = Date()
        let outcome = try await run(listener) { (uri: String) async throws in
            let page = try await get(uri + "?code=stolen&state=forged")
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("state mismatch"))
            #expect(!html.contains("stolen"))
        }
        #expect(Date().timeIntervalSince(started) < 10)
        guard case .failure(.protocolViolation(.stateMismatch(let expected, let actual, nil))) = outcome else {
            Issue.record("expected stateMismatch, got \(outcome)")
            return
        }
        #expect(expected == "the-sent-state")
        #expect(actual == "forged")
        #expect(await LoopbackRedirectListenerTests.refusesConnections(port: listener.port))
    }

    @Test("ARES-02: a missing state ends the sign-in with stateMismatch(actual: nil)")
    func missingStateEndsSignIn() async throws {
        let listener = try LoopbackRedirectListener()
        let outcome = try await run(listener) { (uri: String) async throws in _ = try await get(uri + "?code=abc") }
        guard case .failure(.protocolViolation(.stateMismatch(_, nil, nil))) = outcome else {
            Issue.record("expected stateMismatch with no actual state, got \(outcome)")
            return
        }
    }

    @Test("ARES-07 + ARES-02: an error with a foreign state ends the sign-in; the code is unverified and the description is shown nowhere")
    func foreignErrorIsUnverified() async throws {
        let listener = try LoopbackRedirectListener()
        let outcome = try await run(listener) { (uri: String) async throws in
            let page = try await get(uri + "?error=access_denied&error_description=Call+support+at+evil.test&state=old-tab")
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(!html.contains("evil.test"))
            #expect(html.contains("state mismatch"))
        }
        guard case .failure(let error) = outcome, case .protocolViolation(.stateMismatch(_, "old-tab", .accessDenied)) = error else {
            Issue.record("expected stateMismatch carrying access_denied as unverified, got \(outcome)")
            return
        }
        #expect(!PresentableError(from: error).detail.contains("evil.test"))
    }

    @Test("ARES-13: favicon, other paths and a bare reload get 404 and the listener keeps waiting for the real callback")
    func strayRequestsKeepWaiting() async throws {
        let listener = try LoopbackRedirectListener()
        let base = "http://127.0.0.1:\(listener.port)"
        let outcome = try await run(listener) { (uri: String) async throws in
            #expect(try await get(base + "/favicon.ico").status == 404)
            #expect(try await get(base + "/callback2?code=x&state=the-sent-state").status == 404)
            #expect(try await get(base + "/?code=x&state=forged").status == 404)
            #expect(try await get(uri).status == 404)
            #expect(try await get(uri + "?code=good&state=the-sent-state").status == 200)
        }
        #expect(try outcome.get().code.exposedValue == "good")
    }

    @Test("ARES-13: a request whose Host is not the loopback literal and port (DNS rebinding) gets 400 and the listener keeps waiting")
    func foreignHostRefused() async throws {
        let listener = try LoopbackRedirectListener()
        let outcome = try await run(listener) { (uri: String) async throws in
            #expect(try await get(uri + "?code=x&state=the-sent-state", headers: [HTTPHeader("Host", "evil.test:\(listener.port)")]).status == 400)
            #expect(try await get(uri + "?code=x&state=forged", headers: [HTTPHeader("Host", "localhost:\(listener.port)")]).status == 400)
            #expect(try await get(uri + "?code=good&state=the-sent-state").status == 200)
        }
        #expect(try outcome.get().code.exposedValue == "good")
    }

    @Test("AREQ-03(b), RFC 8252 §8.3: another process cannot bind the listener's port, even with SO_REUSEADDR and SO_REUSEPORT")
    func portCannotBeShared() throws {
        let listener = try LoopbackRedirectListener()
        defer { listener.close() }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = listener.port.bigEndian
        address.sin_addr.s_addr = INADDR_LOOPBACK.bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let code = errno
        #expect(result == -1)
        #expect(code == EADDRINUSE)
    }

    @Test("ARES-12: after a completed callback the port is closed, so a replay is refused")
    func replayRefused() async throws {
        let listener = try LoopbackRedirectListener()
        let outcome = try await run(listener) { (uri: String) async throws in _ = try await get(uri + "?code=once&state=the-sent-state") }
        #expect(try outcome.get().code.exposedValue == "once")
        #expect(await LoopbackRedirectListenerTests.refusesConnections(port: listener.port))
    }
}
