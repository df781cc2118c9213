// The resource-server fixtures of Tests/ResourceServer (README.md there is the interface): the
// scenario server written from the specs, and the reference mcp SDK's server.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON value from a fixture's log, `Sendable` (JSONSerialization's `Any` is not).
public indirect enum FixtureJSON: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([FixtureJSON])
    case object([String: FixtureJSON])

    init(_ value: Any) {
        switch value {
        case let string as String: self = .string(string)
        case let number as NSNumber:
            // JSONSerialization gives booleans as NSNumbers of type "c" (BOOL), numbers as "q"/"d".
            let type = String(cString: number.objCType)
            self = type == "c" || type == "B" ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]: self = .array(array.map(FixtureJSON.init))
        case let object as [String: Any]: self = .object(object.mapValues(FixtureJSON.init))
        default: self = .null
        }
    }

    /// The string, when this is one.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The strings of an array of strings, else `nil`.
    public var strings: [String]? {
        guard case .array(let values) = self else { return nil }
        let strings = values.compactMap(\.string)
        return strings.count == values.count ? strings : nil
    }
}

/// One request as a fixture's `GET /__log` reports it (Tests/ResourceServer/README.md).
/// Secret form/JSON/query values (`code`, `code_verifier`, `refresh_token`, `access_token`,
/// `token`, `client_secret`, `registration_access_token`, `client_assertion`) read `"<masked>"`.
public struct LoggedRequest: Sendable, Equatable {
    public let seq: Int
    public let method: String
    /// The `Host` header as sent, e.g. `127.0.0.1:41234`.
    public let host: String?
    public let path: String
    public let query: [String: [String]]
    /// The scenario the path belongs to, `nil` outside one (and always for `mcp-server`).
    public let scenario: String?
    /// `resource`, `prm`, `prm-root`, `asm-8414`, `asm-oidc-inserted`, `asm-oidc-appended`,
    /// `authorize`, `token`, `register`, `client-configuration`, `revoke`, `jwks`,
    /// `client-metadata`, `trap`, `control`, `unknown`; `nil` for `mcp-server`.
    public let endpoint: String?
    /// Header names in the order sent (repeats kept; `mcp-server` reports them lower-cased).
    public let headerNames: [String]
    public let hasAuthorization: Bool
    /// The scheme word of `Authorization` (`Bearer`, `DPoP`, `Basic`), `nil` without one.
    public let authorizationScheme: String?
    public let hasCookie: Bool
    public let hasDPoP: Bool
    /// An `application/x-www-form-urlencoded` body's fields, `nil` for other bodies.
    public let form: [String: [String]]?
    /// A JSON object body's members, `nil` otherwise.
    public let json: [String: FixtureJSON]?
    /// The status answered.
    public let status: Int?

    init?(_ entry: [String: Any]) {
        guard let seq = entry["seq"] as? Int, let method = entry["method"] as? String,
              let path = entry["path"] as? String else { return nil }
        self.seq = seq
        self.method = method
        self.path = path
        host = entry["host"] as? String
        query = (entry["query"] as? [String: [String]]) ?? [:]
        scenario = entry["scenario"] as? String
        endpoint = entry["endpoint"] as? String
        headerNames = (entry["headers"] as? [String]) ?? []
        hasAuthorization = entry["authorization"] as? Bool ?? false
        authorizationScheme = entry["authorization_scheme"] as? String
        hasCookie = entry["cookie"] as? Bool ?? false
        hasDPoP = entry["dpop"] as? Bool ?? false
        form = entry["form"] as? [String: [String]]
        json = (entry["json"] as? [String: Any]).map { $0.mapValues(FixtureJSON.init) }
        status = entry["status"] as? Int
    }
}

/// A raw HTTP exchange made with `curl` (no redirect followed, no proxy): the fixtures' own
/// behaviour, headers exactly as sent (repeated `WWW-Authenticate` headers stay apart).
public struct RawHTTPResponse: Sendable {
    public let status: Int
    /// Header (name, value) pairs in order, names as sent.
    public let headers: [(name: String, value: String)]
    public let body: Data

    /// The values of every header named `name` (ASCII case-insensitive), in order.
    public func values(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The body as a JSON object, or `nil`.
    public var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }
}

/// Why a fixture control call failed.
public struct ResourceServerFixtureError: Error, CustomStringConvertible {
    public let description: String
}

/// A running `Tests/ResourceServer/resource-server` (``start(timeout:)``) or
/// `Tests/ResourceServer/mcp-server` (``startMCP(timeout:)``) on 127.0.0.1, in its own process
/// group; stopped by ``stop()``, and when the test process exits or dies.
public struct ResourceServerFixture: Sendable, CustomStringConvertible {
    /// The port on 127.0.0.1.
    public let port: Int
    public let process: FixtureProcess
    /// `http://127.0.0.1:PORT`.
    public var base: String { "http://127.0.0.1:\(port)" }
    public var description: String { "ResourceServerFixture(\(base), pid: \(process.pid))" }

    /// `Tests/ResourceServer` in this checkout (from this file's path, or `$AUTHDECK_REPO_ROOT`).
    public static var directory: URL {
        if let root = ProcessInfo.processInfo.environment["AUTHDECK_REPO_ROOT"], !root.isEmpty {
            return URL(fileURLWithPath: root).appendingPathComponent("Tests/ResourceServer")
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // TestSupport
            .deletingLastPathComponent()  // Tests
            .appendingPathComponent("ResourceServer")
    }

    /// Starts the scenario server (Python standard library).
    /// - Throws: ``FixtureProcessError``, or ``ResourceServerFixtureError`` for a bad ready line.
    public static func start(timeout: Duration = .seconds(30)) async throws -> ResourceServerFixture {
        try await launch("resource-server", timeout: timeout)
    }

    /// Starts the reference SDK's server (in Tests/IdentityProvider/.venv; `scripts/bootstrap`
    /// makes it). Its resource is `base + "/mcp"`, its issuer `base` (no trailing slash).
    /// - Throws: ``FixtureProcessError`` (`exitedBeforeReady` with exit 3 when the venv is missing).
    public static func startMCP(timeout: Duration = .seconds(60)) async throws -> ResourceServerFixture {
        try await launch("mcp-server", timeout: timeout)
    }

    private static func launch(_ name: String, timeout: Duration) async throws -> ResourceServerFixture {
        let process = try FixtureProcess.spawn(
            executable: directory.appendingPathComponent(name).path,
            arguments: ["--parent-pid", String(getpid())],
            environment: ["PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"])
        do {
            let line = try await process.readFirstLine(timeout: timeout)
            let parts = line.split(separator: " ")
            guard parts.count == 2, parts[0] == "READY", let port = Int(parts[1]), port > 0 else {
                throw FixtureProcessError.invalidReadyLine(reason: "expected READY <port>, got \(line.prefix(80))")
            }
            return ResourceServerFixture(port: port, process: process)
        } catch {
            await process.terminate()
            throw error
        }
    }

    /// The protected resource of `scenario`: `http://127.0.0.1:PORT/<scenario>/mcp`.
    public func resourceURL(scenario: String) -> String { "\(base)/\(scenario)/mcp" }

    /// The issuer of `scenario`'s (first) authorization server: `http://127.0.0.1:PORT/<scenario>/as`
    /// (`server: "as2"` for the second one of `two-servers`).
    public func issuer(scenario: String, server: String = "as") -> String { "\(base)/\(scenario)/\(server)" }

    /// RFC 9728 §3.1: the path-inserted protected-resource metadata URL of `scenario`.
    public func protectedResourceMetadataURL(scenario: String) -> String {
        "\(base)/.well-known/oauth-protected-resource/\(scenario)/mcp"
    }

    /// Every request the fixture saw, in order (`GET /__log`).
    public func log() async throws -> [LoggedRequest] {
        let response = try await request("GET", "\(base)/__log")
        guard response.status == 200, let entries = response.jsonObject?["requests"] as? [[String: Any]] else {
            throw ResourceServerFixtureError(description: "GET /__log answered \(response.status)")
        }
        return entries.compactMap(LoggedRequest.init)
    }

    /// Forgets the log (`POST /__control/clear-log`).
    public func clearLog() async throws {
        try await control("\(base)/__control/clear-log", expect: 204)
    }

    /// Makes every current access token of `scenario` expire (`POST /__control/expire`).
    public func expireAccessTokens(scenario: String) async throws {
        try await control("\(base)/__control/expire?scenario=\(scenario)", expect: 204)
    }

    /// Serves `document` (a JSON object's text) at `base/__client-metadata/<name>.json`; a
    /// missing `client_id` is filled in with that URL. Returns the URL (the client id).
    public func publishClientMetadata(name: String, document: String) async throws -> String {
        let response = try await request("POST", "\(base)/__control/client-metadata/\(name)",
                                         headers: ["Content-Type: application/json"], body: Data(document.utf8))
        guard response.status == 201, let url = response.jsonObject?["client_id"] as? String else {
            throw ResourceServerFixtureError(description: "client-metadata \(name) answered \(response.status)")
        }
        return url
    }

    /// `GET /__state`: clients, registration counts and grants per scenario (no token values).
    public func state() async throws -> Data {
        try await request("GET", "\(base)/__state").body
    }

    private func control(_ url: String, expect status: Int) async throws {
        let response = try await request("POST", url)
        guard response.status == status else {
            throw ResourceServerFixtureError(description: "POST \(url) answered \(response.status)")
        }
    }

    /// Stops the process group (SIGTERM, then SIGKILL) and reaps it.
    public func stop() async { await process.terminate() }

    /// One HTTP request with the `curl` command: no redirect followed, no proxy, nothing sent
    /// but `headers` (`"Name: value"` lines) and `body`. For tests of the fixtures themselves.
    /// - Throws: ``ResourceServerFixtureError`` when curl fails (no answer within 20 s).
    public func request(_ method: String, _ url: String, headers: [String] = [], body: Data? = nil) async throws
        -> RawHTTPResponse {
        try await Self.curl(method, url, headers: headers, body: body)
    }

    /// See ``request(_:_:headers:body:)``; usable for any URL.
    public static func curl(_ method: String, _ url: String, headers: [String] = [], body: Data? = nil) async throws
        -> RawHTTPResponse {
        let work = FileManager.default.temporaryDirectory
            .appendingPathComponent("authdeck-curl-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: work) }
        let headerFile = work.appendingPathComponent("headers"), bodyFile = work.appendingPathComponent("body")
        var arguments = ["-sS", "--noproxy", "*", "--max-time", "20", "-X", method, "-D", headerFile.path,
                         "-o", bodyFile.path, "-w", "%{http_code}\\n"]
        for header in headers { arguments += ["-H", header] }
        if let body {
            let input = work.appendingPathComponent("input")
            try body.write(to: input)
            arguments += ["--data-binary", "@" + input.path]
        }
        // `--` so that no URL is ever read as an option.
        arguments += ["--", url]
        let process = try FixtureProcess.spawn(executable: "/usr/bin/curl", arguments: arguments)
        let line: String
        do {
            line = try await process.readFirstLine(timeout: .seconds(30))
        } catch {
            await process.terminate()
            throw ResourceServerFixtureError(description: "curl \(method) \(url): \(error)")
        }
        await process.waitForExit(timeout: .seconds(5))
        await process.terminate()
        guard let status = Int(line), status > 0 else {
            throw ResourceServerFixtureError(description: "curl \(method) \(url): \(process.stderrTail(limit: 300))")
        }
        let rawHeaders = (try? String(contentsOf: headerFile, encoding: .isoLatin1)) ?? ""
        var parsed: [(name: String, value: String)] = []
        for line in rawHeaders.split(separator: "\r\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("HTTP/") { parsed = []; continue }
            guard let colon = line.firstIndex(of: ":") else { continue }
            parsed.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return RawHTTPResponse(status: status, headers: parsed, body: (try? Data(contentsOf: bodyFile)) ?? Data())
    }
}
