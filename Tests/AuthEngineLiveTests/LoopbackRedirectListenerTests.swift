import AuthEngine
@testable import AuthEngineLive
import Foundation
import Synchronization
import Testing
import TestSupport

/// The loopback listener (RFC 8252 §7.3) driven by real HTTP requests from the libcurl client
/// and raw sockets.
@Suite("LoopbackRedirectListener")
struct LoopbackRedirectListenerTests {
    static let success = RedirectPage.success(title: "Signed in", message: "You can close this tab.")

    /// Finishes on `/callback`, ignores everything else.
    static let finishOnCallbackPath: @Sendable (RedirectCallback) -> RedirectCallbackVerdict = { callback in
        callback.path == "/callback" ? .finish(page: success) : .ignore
    }

    let http = CurlHTTPClient.live(configuration: CurlHTTPConfiguration(connectTimeout: 2, totalTimeout: 5))

    func get(_ url: String) async throws -> HTTPResponse {
        try await http.send(HTTPRequest(method: .get, url: URL(string: url)!))
    }

    @Test("AREQ-02, AREQ-03(a), RFC 8252 §7.3: binds the literal 127.0.0.1 on an ephemeral port and builds redirect_uri from it")
    func boundAddress() throws {
        let listener = try LoopbackRedirectListener()
        defer { listener.close() }
        #expect(listener.boundAddress == "127.0.0.1")
        #expect(listener.port > 0)
        #expect(listener.redirectURI.absoluteString == "http://127.0.0.1:\(listener.port)/callback")
    }

    @Test("RFC 8252 §7.3: stray requests (favicon, wrong path) get 404 and the real callback is then accepted and decoded")
    func favicon404ThenCallback() async throws {
        let listener = try LoopbackRedirectListener()
        let base = "http://127.0.0.1:\(listener.port)"
        let waiting = Task { try await listener.waitForCallback(timeout: 10, decide: Self.finishOnCallbackPath) }
        #expect(try await get("\(base)/favicon.ico").status == 404)
        #expect(try await get("\(base)/other?code=stolen&state=x").status == 404)
        let page = try await get("\(base)/callback?code=abc%2B1&state=x+y")
        #expect(page.status == 200)
        #expect(page.mediaType == "text/html")
        #expect(String(decoding: page.body, as: UTF8.self).contains("<h1>Signed in</h1>"))
        let callback = try await waiting.value
        #expect(callback == RedirectCallback(method: "GET", path: "/callback", parameters: [("code", "abc+1"), ("state", "x y")]))
    }

    @Test("OAuth 2.0 Form Post Response Mode §2: a POST form body is decoded")
    func formPost() async throws {
        let listener = try LoopbackRedirectListener()
        let waiting = Task { try await listener.waitForCallback(timeout: 10, decide: Self.finishOnCallbackPath) }
        let request = HTTPRequest(method: .post, url: listener.redirectURI,
                                  headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
                                  body: Data("code=a%2Fb+c&state=s%C3%A9&iss=https%3A%2F%2Fidp.example".utf8))
        #expect(try await http.send(request).status == 200)
        let callback = try await waiting.value
        #expect(callback == RedirectCallback(method: "POST", path: "/callback",
                                             parameters: [("code", "a/b c"), ("state", "sé"), ("iss", "https://idp.example")]))
    }

    @Test("RFC 6749 §3.1: repeated parameters are kept, in order, so the engine can refuse them")
    func repeatedParameters() async throws {
        let listener = try LoopbackRedirectListener()
        let waiting = Task { try await listener.waitForCallback(timeout: 10, decide: Self.finishOnCallbackPath) }
        _ = try await get(listener.redirectURI.absoluteString + "?state=a&code=1&state=b&empty=&flag")
        let callback = try await waiting.value
        #expect(callback.parameters.map(\.name) == ["state", "code", "state", "empty", "flag"])
        #expect(callback.parameters.map(\.value) == ["a", "1", "b", "", ""])
    }

    @Test("AREQ-03(c), ARES-12: accepts exactly one callback; after finishing, connecting to the port is refused")
    func closedAfterFinish() async throws {
        let listener = try LoopbackRedirectListener()
        let waiting = Task { try await listener.waitForCallback(timeout: 10, decide: Self.finishOnCallbackPath) }
        _ = try await get(listener.redirectURI.absoluteString + "?code=1&state=2")
        _ = try await waiting.value
        #expect(await Self.refusesConnections(port: listener.port))
        await #expect(throws: LoopbackListenerError.notListening) {
            try await listener.waitForCallback(timeout: 1, decide: Self.finishOnCallbackPath)
        }
    }

    @Test("AREQ-12, RFC 8252 §8.3: times out with timedOut and closes the port (later callbacks refused)")
    func timeout() async throws {
        let listener = try LoopbackRedirectListener()
        let started = Date()
        await #expect(throws: LoopbackListenerError.timedOut(seconds: 0.5)) {
            try await listener.waitForCallback(timeout: 0.5, decide: Self.finishOnCallbackPath)
        }
        #expect(Date().timeIntervalSince(started) < 10) // a hang, not a late wake-up, is the failure (slow CI)
        #expect(await Self.refusesConnections(port: listener.port))
    }

    @Test("AREQ-03(c): Task cancellation stops waiting at once with cancelled and closes the port")
    func cancellation() async throws {
        let listener = try LoopbackRedirectListener()
        let started = Date()
        let waiting = Task { try await listener.waitForCallback(timeout: 30, decide: Self.finishOnCallbackPath) }
        try await Task.sleep(for: .milliseconds(200))
        waiting.cancel()
        do {
            _ = try await waiting.value
            Issue.record("expected cancelled")
        } catch {
            #expect(error as? LoopbackListenerError == .cancelled)
        }
        #expect(Date().timeIntervalSince(started) < 10) // the timeout is 30 s
        #expect(await Self.refusesConnections(port: listener.port))
    }

    @Test("close() before waiting closes the port; waiting afterwards is notListening")
    func closeBeforeWaiting() async throws {
        let listener = try LoopbackRedirectListener()
        listener.close()
        #expect(await Self.refusesConnections(port: listener.port))
        await #expect(throws: LoopbackListenerError.notListening) {
            try await listener.waitForCallback(timeout: 1, decide: Self.finishOnCallbackPath)
        }
    }

    @Test("A silent connection (browser pre-connect) does not hold up the real callback")
    func silentClient() async throws {
        let listener = try LoopbackRedirectListener(connectionReadTimeout: 20)
        let waiting = Task { try await listener.waitForCallback(timeout: 30, decide: Self.finishOnCallbackPath) }
        let silent = try Self.openConnection(port: listener.port)
        defer { close(silent) }
        let started = Date()
        #expect(try await get(listener.redirectURI.absoluteString + "?code=1&state=2").status == 200)
        _ = try await waiting.value
        #expect(Date().timeIntervalSince(started) < 10) // the silent connection would hold it for 20 s
    }

    @Test("A connection that never completes its request is dropped after the read timeout")
    func readTimeout() async throws {
        let listener = try LoopbackRedirectListener(connectionReadTimeout: 0.5)
        let waiting = Task { try await listener.waitForCallback(timeout: 10, decide: Self.finishOnCallbackPath) }
        defer { waiting.cancel() }
        let partial = try Self.openConnection(port: listener.port)
        defer { close(partial) }
        _ = "GET /callback?code=1 HTTP/1.1\r\n".withCString { send(partial, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        let response = try await offPool { Self.readAll(partial, timeoutMilliseconds: 5000) }
        #expect(response.hasPrefix("HTTP/1.1 408"))
    }

    @Test("A request over 64 KiB is refused with 413 and the listener keeps waiting")
    func oversizedRequest() async throws {
        let listener = try LoopbackRedirectListener()
        let waiting = Task { try await listener.waitForCallback(timeout: 10, decide: Self.finishOnCallbackPath) }
        let huge = listener.redirectURI.absoluteString + "?code=" + String(repeating: "a", count: 70 * 1024)
        #expect(try await get(huge).status == 413)
        #expect(try await get(listener.redirectURI.absoluteString + "?code=1").status == 200)
        #expect(try await waiting.value.parameters.map(\.value) == ["1"])
    }

    @Test("The page escapes HTML in every string it shows")
    func pageEscapesHTML() async throws {
        let listener = try LoopbackRedirectListener()
        let page = RedirectPage.failure(title: "Denied <script>alert(1)</script>", message: "error_description=\"a & b\" 'x'")
        let waiting = Task { try await listener.waitForCallback(timeout: 10) { _ in .finish(page: page) } }
        let response = try await get(listener.redirectURI.absoluteString + "?error=access_denied")
        _ = try await waiting.value
        let html = String(decoding: response.body, as: UTF8.self)
        #expect(!html.contains("<script>"))
        #expect(html.contains("Denied &lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("error_description=&quot;a &amp; b&quot; &#39;x&#39;"))
        #expect(response.headers["content-security-policy"]?.contains("default-src 'none'") == true)
    }

    @Test("AREQ-04, RFC 8252 §7.3: IPv6 mode binds [::1] and builds http://[::1]:PORT/callback; a callback over IPv6 is accepted")
    func ipv6() async throws {
        let listener = try LoopbackRedirectListener(addressFamily: .ipv6)
        #expect(listener.boundAddress == "::1")
        #expect(listener.redirectURI.absoluteString == "http://[::1]:\(listener.port)/callback")
        let waiting = Task { try await listener.waitForCallback(timeout: 10, decide: Self.finishOnCallbackPath) }
        #expect(try await get(listener.redirectURI.absoluteString + "?code=v6").status == 200)
        #expect(try await waiting.value.parameters.map(\.value) == ["v6"])
    }

    @Test("One form codec for callbacks and token bodies: + is a space, percent-decoding as UTF-8, an invalid escape is malformed", arguments: [
        ("a=b+c", [("a", "b c")]),
        ("a=b%2Bc", [("a", "b+c")]),
        ("a=%E2%9C%93", [("a", "✓")]),
        ("a=%zz&b", nil),
        ("a%3Db=c%26d", [("a=b", "c&d")]),
        ("&&a=1&&", [("a", "1")]),
        ("a==b", [("a", "=b")]),
    ] as [(String, [(String, String)]?)])
    func formDecoding(input: String, expected: [(String, String)]?) {
        let decoded = FormEncoding.decode(input)
        #expect(decoded?.map(\.name) == expected?.map(\.0))
        #expect(decoded?.map(\.value) == expected?.map(\.1))
    }

    // MARK: Raw sockets

    /// Whether connecting to 127.0.0.1:port is refused, allowing 2 s for a child process that
    /// another test is spawning at this moment to drop its inherited copy of the socket (the
    /// socket is close-on-exec, but a child holds it between fork and exec).
    static func refusesConnections(port: UInt16) async -> Bool {
        let deadline = Date().addingTimeInterval(2)
        while true {
            if connect(port: port) == ECONNREFUSED { return true }
            if Date() > deadline { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Connects to 127.0.0.1:port and returns 0 on success or the errno (ECONNREFUSED, ...).
    static func connect(port: UInt16) -> Int32 {
        do {
            let descriptor = try openConnection(port: port)
            close(descriptor)
            return 0
        } catch {
            return (error as? SocketError)?.code ?? -1
        }
    }

    struct SocketError: Error { var code: Int32 }

    static func openConnection(port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_LOOPBACK.bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw SocketError(code: code)
        }
        return descriptor
    }

    /// Reads until the peer closes or `timeoutMilliseconds` pass.
    static func readAll(_ descriptor: Int32, timeoutMilliseconds: Int32) -> String {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, timeoutMilliseconds) > 0 else { break }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            data += buffer.prefix(count)
        }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("A client registered with an exact redirect URI: the listener binds exactly that port; taken, it is .portBusy naming the holder, never another port")
    func exactPort() throws {
        let first = try LoopbackRedirectListener(path: "/callback", addressFamily: .ipv4)
        let port = first.port
        first.close()
        let again = try LoopbackRedirectListener(path: "/callback", addressFamily: .ipv4, port: port)
        #expect(again.port == port)
        #expect(again.redirectURI.absoluteString == "http://127.0.0.1:\(port)/callback")
        defer { again.close() }
        for family in [LoopbackRedirectListener.AddressFamily.ipv4, .automatic] {
            #expect(throws: LoopbackListenerError.portBusy(port: port, holder: "pid \(getpid()) (\(Self.processName))")) {
                _ = try LoopbackRedirectListener(path: "/callback", addressFamily: family, port: port)
            }
        }
    }

    @Test("An exact port is bound again right after a redirect was served on it (its connection in TIME_WAIT): a second sign-in, or the sign-out after it")
    func exactPortAgainAfterARedirect() async throws {
        let first = try LoopbackRedirectListener(path: "/callback", addressFamily: .ipv4)
        let port = first.port
        first.close()
        let served = try LoopbackRedirectListener(path: "/callback", addressFamily: .ipv4, port: port)
        async let callback = served.waitForCallback(timeout: 10) { _ in .finish(page: .success(title: "t", message: "m")) }
        // The listener closes first (its answer ends with a FIN): its side of the connection waits in TIME_WAIT.
        let client = try Self.openConnection(port: port)
        let request = "GET /callback?code=c&state=s HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
        _ = request.withCString { send(client, $0, strlen($0), 0) }
        _ = Self.readAll(client, timeoutMilliseconds: 2000)
        _ = try await callback
        try await Task.sleep(for: .milliseconds(50))
        close(client)
        let again = try LoopbackRedirectListener(path: "/logout-callback", addressFamily: .ipv4, port: port)
        #expect(again.port == port)
        again.close()
    }

    @Test("Who sent a request, from the kernel's socket table: this user's connection is sameUser; another user's (setpriv, as nobody) otherUser")
    func peerUser() async throws {
        let listener = try LoopbackRedirectListener(path: "/callback", addressFamily: .ipv4)
        let base = "http://127.0.0.1:\(listener.port)"
        let peers = Mutex<[String: RedirectPeer]>([:])
        async let finished = listener.waitForCallback(timeout: 20) { callback in
            peers.withLock { $0[callback.path] = callback.peer }
            return callback.path == "/done" ? .finish(page: Self.success) : .ignore
        }
        _ = try await get(base + "/mine")
        let asRoot = geteuid() == 0
        if asRoot {
            let other = try TmuxSession.spawnAndWait(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                                      "/usr/bin/curl", "-s", "-o", "/dev/null", base + "/theirs"], environment: [:])
            #expect(other.status == 0, "\(other.output)")
        }
        _ = try await get(base + "/done")
        _ = try await finished
        #expect(peers.withLock { $0["/mine"] } == .sameUser)
        #expect(peers.withLock { $0["/done"] } == .sameUser)
        if asRoot { #expect(peers.withLock { $0["/theirs"] } == .otherUser) }
    }

    @Test("The socket table's line for a connection: its uid, found by the two addresses as the kernel prints them")
    func socketTableOwner() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:A1B2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 20 4 30 10 -1
               1: 0100007F:1F90 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000     0        0 4243 1 0000000000000000 20 4 30 10 -1
            """
        #expect(PortHolder.owner(in: table, local: "0100007F:A1B2", remote: "0100007F:1F90") == 1000)
        #expect(PortHolder.owner(in: table, local: "0100007F:1F90", remote: "0100007F:A1B2") == 0)
        #expect(PortHolder.owner(in: table, local: "0100007F:A1B3", remote: "0100007F:1F90") == nil)
    }

    /// This process's name as the kernel keeps it (15 bytes at most).
    static var processName: String {
        String(decoding: (FileManager.default.contents(atPath: "/proc/self/comm") ?? Data()).prefix { $0 != 10 }, as: UTF8.self)
    }

}
