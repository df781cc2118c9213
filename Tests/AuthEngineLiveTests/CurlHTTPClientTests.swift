import AuthEngine
import AuthEngineLive
import Foundation
import Testing
import TestSupport

/// The libcurl client against real servers on 127.0.0.1 (Fixtures/HTTPFixtureScript.swift), started and
/// stopped by PID in each test. Serialized: some tests set process environment variables that
/// libcurl reads (`SSL_CERT_FILE`, proxies).
@Suite("CurlHTTPClient", .serialized)
struct CurlHTTPClientTests {
    struct Echo: Decodable {
        var method: String
        var path: String
        var query: String
        var headers: [[String]]
        var body: String
    }

    static func startServer(_ arguments: [String] = []) async throws -> FixtureServer {
        try await FixtureServer.start(source: HTTPFixtureScript.source, arguments: arguments)
    }

    static func url(_ server: FixtureServer, _ pathAndQuery: String, scheme: String = "http") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(server.port)\(pathAndQuery)")!
    }

    /// Sends and expects a TransportError; returns it (or records an issue).
    static func transportError(_ client: HTTPClient, _ request: HTTPRequest) async -> TransportError? {
        do {
            let response = try await client.send(request)
            Issue.record("expected a TransportError, got HTTP \(response.status)")
            return nil
        } catch {
            return error
        }
    }

    @Test("GET sends exactly the given headers (plus Host, User-Agent, Accept) and returns status, lower-cased headers and body")
    func getExact() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let client = CurlHTTPClient.live()
        let request = HTTPRequest(method: .get, url: Self.url(server, "/echo?a=1&b=%2B"), headers: [
            HTTPHeader("Accept", "application/json"), HTTPHeader("X-Custom", "one two"),
        ])
        let response = try await client.send(request)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["x-fixture"] == "Echo")
        #expect(response.mediaType == "application/json")
        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        #expect(echo.method == "GET")
        #expect(echo.path == "/echo")
        #expect(echo.query == "a=1&b=%2B")
        #expect(echo.body == "")
        #expect(echo.headers == [
            ["Host", "127.0.0.1:\(server.port)"],
            ["User-Agent", CurlHTTPConfiguration.defaultUserAgent],
            ["Accept", "application/json"],
            ["X-Custom", "one two"],
        ])
        #expect(CurlHTTPConfiguration.defaultUserAgent.hasPrefix("authdeck/"))
    }

    @Test("POST sends the body byte for byte with exactly the given headers and no Expect: 100-continue")
    func postExact() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let client = CurlHTTPClient.live()
        // Over 1 KiB so that libcurl would otherwise add `Expect: 100-continue`.
        let form = "grant_type=authorization_code&code=a%2Bb%2Fc%3Dd&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcallback&pad=" + String(repeating: "x", count: 1500)
        let request = HTTPRequest(method: .post, url: Self.url(server, "/echo"), headers: [
            HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
            HTTPHeader("Accept", "application/json"),
            HTTPHeader("Authorization", "Basic Y2xpZW50OnNlY3JldA=="),
        ], body: Data(form.utf8))
        let response = try await client.send(request)
        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        #expect(echo.method == "POST")
        #expect(echo.body == form)
        #expect(echo.headers == [
            ["Host", "127.0.0.1:\(server.port)"],
            ["User-Agent", CurlHTTPConfiguration.defaultUserAgent],
            ["Content-Type", "application/x-www-form-urlencoded"],
            ["Accept", "application/json"],
            ["Authorization", "Basic Y2xpZW50OnNlY3JldA=="],
            ["Content-Length", "\(form.utf8.count)"],
        ])
    }

    @Test("POST without Content-Type does not get libcurl's default form Content-Type")
    func postWithoutContentType() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let response = try await CurlHTTPClient.live().send(HTTPRequest(method: .post, url: Self.url(server, "/echo"), body: Data("{}".utf8)))
        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        #expect(!echo.headers.contains { $0.first?.lowercased() == "content-type" })
        #expect(echo.body == "{}")
    }

    @Test("Other methods are sent as given, with their body", arguments: [HTTPRequest.Method.put, .patch, .delete, .get])
    func otherMethods(method: HTTPRequest.Method) async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let request = HTTPRequest(method: method, url: Self.url(server, "/echo"), headers: [HTTPHeader("Content-Type", "application/json")], body: Data("{\"a\":1}".utf8))
        let echo = try JSONDecoder().decode(Echo.self, from: try await CurlHTTPClient.live().send(request).body)
        #expect(echo.method == method.rawValue)
        #expect(echo.body == "{\"a\":1}")
    }

    @Test("HEAD returns status and headers without a body")
    func head() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let response = try await CurlHTTPClient.live().send(HTTPRequest(method: .head, url: Self.url(server, "/bytes?n=10")))
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "10")
        #expect(response.body.isEmpty)
    }

    @Test("TOK-13, TLS-03, RFC 6749 §3.2 (token requests): a 302 is returned, not followed, by default")
    func redirectNotFollowed() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let response = try await CurlHTTPClient.live().send(HTTPRequest(method: .post, url: Self.url(server, "/redirect?to=/echo"), body: Data("a=b".utf8)))
        #expect(response.status == 302)
        #expect(response.headers["location"] == "/echo")
    }

    @Test("followRedirects: a 302 is followed (POST becomes GET) and Authorization is kept on the same origin")
    func redirectFollowed() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let request = HTTPRequest(method: .post, url: Self.url(server, "/redirect?to=/echo%3Fhop%3D1"),
                                  headers: [HTTPHeader("Authorization", "Bearer abc"), HTTPHeader("Content-Type", "text/plain")],
                                  body: Data("a=b".utf8), followRedirects: true)
        let response = try await CurlHTTPClient.live().send(request)
        #expect(response.status == 200)
        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        #expect(echo.method == "GET")
        #expect(echo.query == "hop=1")
        #expect(echo.body == "")
        #expect(echo.headers.contains(["Authorization", "Bearer abc"]))
        #expect(!echo.headers.contains { $0.first == "Content-Type" })
    }

    @Test("TLS-03, RFC 9700 §4.12: followRedirects — a 307 keeps the method and body; Authorization is dropped when the origin changes")
    func redirect307CrossOrigin() async throws {
        let first = try await Self.startServer()
        defer { first.stop() }
        let second = try await Self.startServer()
        defer { second.stop() }
        let target = "http://127.0.0.1:\(second.port)/echo"
        let request = HTTPRequest(method: .post, url: Self.url(first, "/redirect?status=307&to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"),
                                  headers: [HTTPHeader("Authorization", "Bearer abc"), HTTPHeader("Content-Type", "text/plain")],
                                  body: Data("kept".utf8), followRedirects: true)
        let response = try await CurlHTTPClient.live().send(request)
        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        #expect(echo.method == "POST")
        #expect(echo.body == "kept")
        #expect(echo.headers.contains(["Content-Type", "text/plain"]))
        #expect(!echo.headers.contains { $0.first == "Authorization" })
    }

    @Test("followRedirects: a redirect to plain HTTP off loopback is insecureURL")
    func redirectToInsecure() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let request = HTTPRequest(method: .get, url: Self.url(server, "/redirect?to=http%3A%2F%2Fexample.invalid%2Fx"), followRedirects: true)
        let error = await Self.transportError(CurlHTTPClient.live(), request)
        guard case .insecureURL = error else { Issue.record("expected insecureURL, got \(String(describing: error))"); return }
    }

    @Test("Size limit: a body over the limit is responseTooLarge, with or without Content-Length", arguments: ["1", "0"])
    func responseTooLarge(withLength: String) async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let client = CurlHTTPClient.live(configuration: CurlHTTPConfiguration(maximumResponseBytes: 1000))
        let ok = try await client.send(HTTPRequest(method: .get, url: Self.url(server, "/bytes?n=1000&length=\(withLength)")))
        #expect(ok.body.count == 1000)
        let error = await Self.transportError(client, HTTPRequest(method: .get, url: Self.url(server, "/bytes?n=100000&length=\(withLength)")))
        #expect(error == .responseTooLarge(url: "http://127.0.0.1:\(server.port)/bytes", limit: 1000))
    }

    @Test("Total timeout: a server slower than the limit is timeout(seconds: limit)")
    func timeout() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let client = CurlHTTPClient.live(configuration: CurlHTTPConfiguration(totalTimeout: 1))
        let started = Date()
        let error = await Self.transportError(client, HTTPRequest(method: .get, url: Self.url(server, "/slow?seconds=10")))
        #expect(error == .timeout(url: "http://127.0.0.1:\(server.port)/slow", seconds: 1))
        #expect(Date().timeIntervalSince(started) < 8) // the server would answer after 10 s
    }

    @Test("A request's own timeout replaces the configured total timeout (refresh requests: longer than the UI's patience)")
    func perRequestTimeout() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let client = CurlHTTPClient.live(configuration: CurlHTTPConfiguration(totalTimeout: 30))
        let error = await Self.transportError(client, HTTPRequest(method: .get, url: Self.url(server, "/slow?seconds=10"), timeout: .seconds(1)))
        #expect(error == .timeout(url: "http://127.0.0.1:\(server.port)/slow", seconds: 1))
    }

    @Test("A connection closed after the request was read, with no answer, is interrupted(...): the server may have acted on it")
    func hangUpIsInterrupted() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let error = await Self.transportError(CurlHTTPClient.live(), HTTPRequest(method: .post, url: Self.url(server, "/hangup"), body: Data("grant_type=refresh_token".utf8)))
        guard case .interrupted = error else { Issue.record("expected interrupted, got \(String(describing: error))"); return }
        #expect(error?.requestMayHaveArrived == true)
    }

    @Test("A refused connection is connection(...)")
    func refused() async throws {
        let port = try Self.closedPort()
        let error = await Self.transportError(CurlHTTPClient.live(), HTTPRequest(method: .get, url: URL(string: "http://127.0.0.1:\(port)/x")!))
        guard case .connection(let url, _) = error else { Issue.record("expected connection, got \(String(describing: error))"); return }
        #expect(url == "http://127.0.0.1:\(port)/x")
    }

    @Test("ARCHITECTURE rules: plain HTTP off loopback is insecureURL before any traffic", arguments: [
        "http://example.invalid/token",
        "http://localhost:8080/token", // a name, not a loopback literal
        "http://10.0.0.1/token",
        "http://[::2]/token",
        "http://127.0.0.1.example.invalid/token", // a name that starts like a loopback address
        "http://127.0.0.1@example.invalid/token", // user info: the host is example.invalid
        "ftp://127.0.0.1/file",
        "file:///etc/passwd",
    ])
    func insecureURL(string: String) async {
        let error = await Self.transportError(CurlHTTPClient.live(), HTTPRequest(method: .get, url: URL(string: string)!))
        guard case .insecureURL = error else { Issue.record("expected insecureURL, got \(String(describing: error))"); return }
    }

    @Test("insecureURL does not echo the query (it may hold secrets)")
    func insecureURLWithoutQuery() async {
        let error = await Self.transportError(CurlHTTPClient.live(), HTTPRequest(method: .get, url: URL(string: "http://example.invalid/cb?code=secret")!))
        #expect(error == .insecureURL("http://example.invalid/cb"))
    }

    @Test("Loopback plain HTTP on 127.0.0.0/8 other than 127.0.0.1 is allowed (connection refused, not insecureURL)")
    func loopbackRangeAllowed() async throws {
        let port = try Self.closedPort()
        let error = await Self.transportError(CurlHTTPClient.live(), HTTPRequest(method: .get, url: URL(string: "http://127.0.0.2:\(port)/x")!))
        guard case .connection = error else { Issue.record("expected connection, got \(String(describing: error))"); return }
    }

    @Test("Header injection: a header value with CR/LF is refused before sending")
    func headerInjection() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let request = HTTPRequest(method: .get, url: Self.url(server, "/echo"), headers: [HTTPHeader("X-A", "1\r\nX-B: 2")])
        let error = await Self.transportError(CurlHTTPClient.live(), request)
        guard case .connection = error else { Issue.record("expected connection, got \(String(describing: error))"); return }
    }

    @Test("Task cancellation aborts a transfer in flight with cancelled")
    func cancellation() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let client = CurlHTTPClient.live()
        let url = Self.url(server, "/slow?seconds=20")
        let started = Date()
        let task = Task { () async throws(TransportError) -> HTTPResponse in
            try await client.send(HTTPRequest(method: .get, url: url))
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        do {
            let response = try await task.value
            Issue.record("expected cancelled, got HTTP \(response.status)")
        } catch {
            #expect(error as? TransportError == .cancelled)
        }
        #expect(Date().timeIntervalSince(started) < 10) // the server would answer after 20 s
    }

    // MARK: TLS

    @Test("TLS-01: a server whose certificate is issued by an unknown CA is refused (tls); accepted with that CA bundle configured")
    func customCA() async throws {
        let pki = try await TestPKI()
        defer { pki.directory.remove() }
        let server = try await Self.startServer([pki.serverCertificate, pki.serverKey])
        defer { server.stop() }
        let url = Self.url(server, "/echo", scheme: "https")

        let error = await Self.transportError(CurlHTTPClient.live(), HTTPRequest(method: .get, url: url))
        guard case .tls = error else { Issue.record("expected tls, got \(String(describing: error))"); return }

        let trusting = CurlHTTPClient.live(configuration: CurlHTTPConfiguration(caBundlePath: pki.caCertificate))
        let response = try await trusting.send(HTTPRequest(method: .get, url: url))
        #expect(response.status == 200)
    }

    @Test("TLS: SSL_CERT_FILE is used as the CA bundle when no per-provider bundle is set")
    func sslCertFile() async throws {
        let pki = try await TestPKI()
        defer { pki.directory.remove() }
        let server = try await Self.startServer([pki.serverCertificate, pki.serverKey])
        defer { server.stop() }
        let previous = ProcessInfo.processInfo.environment["SSL_CERT_FILE"]
        setenv("SSL_CERT_FILE", pki.caCertificate, 1)
        defer {
            if let previous { setenv("SSL_CERT_FILE", previous, 1) } else { unsetenv("SSL_CERT_FILE") }
        }
        let response = try await CurlHTTPClient.live().send(HTTPRequest(method: .get, url: Self.url(server, "/echo", scheme: "https")))
        #expect(response.status == 200)
    }

    @Test("TLS-01: a certificate for another name is refused (tls) even from a trusted CA")
    func hostnameMismatch() async throws {
        let pki = try await TestPKI(subjectAltName: "DNS:other.invalid")
        defer { pki.directory.remove() }
        let server = try await Self.startServer([pki.serverCertificate, pki.serverKey])
        defer { server.stop() }
        let client = CurlHTTPClient.live(configuration: CurlHTTPConfiguration(caBundlePath: pki.caCertificate))
        let error = await Self.transportError(client, HTTPRequest(method: .get, url: Self.url(server, "/echo", scheme: "https")))
        guard case .tls = error else { Issue.record("expected tls, got \(String(describing: error))"); return }
    }

    @Test("TLS-02, RFC 8996: a server that offers only TLS 1.0/1.1 is refused (tls), even with its CA trusted")
    func oldTLSRefused() async throws {
        let pki = try await TestPKI()
        defer { pki.directory.remove() }
        let server = try await Self.startServer([pki.serverCertificate, pki.serverKey, "tls1.1"])
        defer { server.stop() }
        let client = CurlHTTPClient.live(configuration: CurlHTTPConfiguration(caBundlePath: pki.caCertificate))
        let error = await Self.transportError(client, HTTPRequest(method: .get, url: Self.url(server, "/echo", scheme: "https")))
        guard case .tls = error else { Issue.record("expected tls, got \(String(describing: error))"); return }
    }

    @Test("TLS-04: responses are never cached — a second identical GET reaches the server although it allowed an hour of caching")
    func noResponseCache() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let client = CurlHTTPClient.live()
        let first = try await client.send(HTTPRequest(method: .get, url: Self.url(server, "/count")))
        let second = try await client.send(HTTPRequest(method: .get, url: Self.url(server, "/count")))
        #expect(String(decoding: first.body, as: UTF8.self) == "1")
        #expect(String(decoding: second.body, as: UTF8.self) == "2")
    }

    // MARK: Proxies

    @Test("Proxies: HTTPS_PROXY from the environment is used (CONNECT through it, TLS verified end to end)")
    func httpsProxyHonoured() async throws {
        let host = "authdeck-proxy-test.invalid" // never resolved here: the proxy is asked for it
        let pki = try await TestPKI(subjectAltName: "DNS:\(host)")
        defer { pki.directory.remove() }
        let server = try await Self.startServer([pki.serverCertificate, pki.serverKey])
        defer { server.stop() }
        let proxy = try await Self.startServer(["proxy", "\(server.port)"])
        defer { proxy.stop() }
        try await Self.withEnvironment(["HTTPS_PROXY": "http://127.0.0.1:\(proxy.port)", "https_proxy": nil, "NO_PROXY": nil, "no_proxy": nil, "all_proxy": nil, "ALL_PROXY": nil]) {
            let client = CurlHTTPClient.live(configuration: CurlHTTPConfiguration(caBundlePath: pki.caCertificate))
            let response = try await client.send(HTTPRequest(method: .get, url: URL(string: "https://\(host)/echo")!))
            #expect(response.status == 200)
            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            #expect(echo.headers.first == ["Host", host])
        }
    }

    @Test("Proxies: loopback targets are always reached directly, even with http_proxy set")
    func loopbackBypassesProxy() async throws {
        let server = try await Self.startServer()
        defer { server.stop() }
        let proxy = try await Self.startServer(["proxy", "\(server.port)"])
        defer { proxy.stop() }
        try await Self.withEnvironment(["http_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": nil, "NO_PROXY": nil]) {
            let response = try await CurlHTTPClient.live().send(HTTPRequest(method: .get, url: Self.url(server, "/echo")))
            #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("{"))
        }
        // The proxy fixture itself answers plain requests, so the check above can fail.
        let viaProxy = try await CurlHTTPClient.live().send(HTTPRequest(method: .get, url: Self.url(proxy, "/anything")))
        #expect(String(decoding: viaProxy.body, as: UTF8.self).hasPrefix("via proxy: GET /anything"))
    }

    /// Runs `body` with environment variables set (value) or unset (nil), restoring them after.
    static func withEnvironment(_ variables: [String: String?], _ body: () async throws -> Void) async throws {
        let saved = variables.keys.map { ($0, ProcessInfo.processInfo.environment[$0]) }
        for (name, value) in variables {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        try await body()
    }

    /// A port on 127.0.0.1 with nothing listening.
    static func closedPort() throws -> Int { try FreePort.loopback() }
}

/// A throwaway CA and a server certificate it issued (SAN `IP:127.0.0.1` by default), made with
/// the openssl CLI in a temporary directory.
struct TestPKI {
    let directory: TemporaryDirectory
    var caCertificate: String { directory.path("ca.pem") }
    var serverCertificate: String { directory.path("server.pem") }
    var serverKey: String { directory.path("server.key") }

    init(subjectAltName: String = "IP:127.0.0.1") async throws {
        directory = try TemporaryDirectory()
        let d = directory
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try await runTool(["openssl", "req", "-x509"] + ec + [
            "-keyout", d.path("ca.key"), "-out", d.path("ca.pem"), "-days", "2", "-subj", "/CN=authdeck test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try await runTool(["openssl", "req"] + ec + ["-keyout", d.path("server.key"), "-out", d.path("server.csr"), "-subj", "/CN=authdeck test server"])
        try Data("subjectAltName=\(subjectAltName)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n".utf8)
            .write(to: URL(fileURLWithPath: d.path("server.ext")))
        try await runTool([
            "openssl", "x509", "-req", "-in", d.path("server.csr"), "-CA", d.path("ca.pem"), "-CAkey", d.path("ca.key"),
            "-CAcreateserial", "-out", d.path("server.pem"), "-days", "2", "-extfile", d.path("server.ext"),
        ])
    }
}
