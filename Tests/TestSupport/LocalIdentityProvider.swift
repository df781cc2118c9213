// The bundled local OpenID provider (Tests/IdentityProvider, django-oauth-toolkit) for tests.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixture value that must not show up in test output: `description` redacts it and the raw
/// value is read through ``exposedValue`` only.
public struct FixtureSecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The raw value. Never print or log it.
    public let exposedValue: String
    public init(_ value: String) { exposedValue = value }
    public var description: String { "<redacted>" }
    public var debugDescription: String { "FixtureSecret(<redacted>)" }
}

/// A running instance of the bundled local OpenID provider on 127.0.0.1 (see
/// Tests/IdentityProvider/README.md for what it offers).
///
/// Start one per test that needs special settings with ``start(accessTokenLifetime:idTokenLifetime:refreshTokenLifetime:deviceCodeLifetime:deviceInterval:deviceSlowDown:timeout:)``,
/// or share one with `try await LocalIdentityProvider.shared.provider()`. Stop it with
/// ``stop()``; it also stops by itself when the test process exits or dies.
public struct LocalIdentityProvider: Sendable, CustomStringConvertible {
    /// A fixture user (its password is a fixture value, not a secret).
    public struct User: Sendable, Equatable {
        public let username: String
        public let password: String
        /// `name` claim, e.g. "Alice Example".
        public let name: String
        /// `email` claim, e.g. "alice@example.test".
        public let email: String
    }

    /// A registered client (RFC 7591 terms).
    public struct Client: Sendable, Equatable {
        public let clientID: String
        /// `nil` for the public client.
        public let clientSecret: FixtureSecret?
        /// Registered loopback redirect URIs without port (any port matches, RFC 8252 §7.3).
        public let redirectURIs: [URL]
        public let postLogoutRedirectURIs: [URL]
        /// `grant_types` the provider accepts for this client (RFC 6749 / RFC 8628 names).
        public let grantTypes: [String]
    }

    /// Endpoint URLs, as published in discovery.
    public struct Endpoints: Sendable, Equatable {
        public let authorization: URL
        public let token: URL
        public let userinfo: URL
        public let jwks: URL
        public let revocation: URL
        public let introspection: URL
        public let deviceAuthorization: URL
        public let endSession: URL
        /// RFC 8628 `verification_uri`.
        public let verification: URL
        /// Django's login form.
        public let login: URL
    }

    /// The exact `issuer`, `http://127.0.0.1:PORT/o` (no trailing slash).
    public let issuer: URL
    public let port: Int
    /// The provider's pid, which is also its process group id.
    public let pid: Int32
    /// `issuer` + `/.well-known/openid-configuration`.
    public let discoveryURL: URL
    /// RFC 8414 §3.1 metadata URL: `/.well-known/oauth-authorization-server/o`.
    public let authorizationServerMetadataURL: URL
    public let endpoints: Endpoints
    /// `authdeck-native`: public; authorization code, refresh token and device grant.
    public let nativeClient: Client
    /// `authdeck-confidential`: `client_secret_basic` or `client_secret_post`.
    public let confidentialClient: Client
    /// `alice` and `bob`.
    public let users: [String: User]
    /// Access-token lifetime in seconds (of a refresh; see ``signInAccessTokenLifetime``).
    public let accessTokenLifetime: Int
    /// Lifetime in seconds of the access tokens a sign-in gets (authorization code and device
    /// grants); ``accessTokenLifetime`` unless started with another.
    public let signInAccessTokenLifetime: Int
    /// The provider's data directory (its SQLite database and key), for ``mintGrant(prefix:accessTokenExpiresAt:idTokenExpiresAt:)``.
    public let dataDirectory: String
    /// Device code (and user code) lifetime in seconds.
    public let deviceCodeLifetime: Int
    /// Device polling interval in seconds.
    public let deviceInterval: Int
    /// Whether the provider answers `slow_down` to polls sooner than the interval.
    public let deviceSlowDown: Bool
    /// Absolute path of the browser stand-in (usable as `$BROWSER`).
    public let browserPath: String
    /// Absolute path of the device approval helper.
    public let approveDevicePath: String
    /// Seconds the provider took from start to ready, as it measured itself.
    public let startupSeconds: Double
    /// The provider process.
    public let process: FixtureProcess

    public var description: String { "LocalIdentityProvider(issuer: \(issuer.absoluteString), pid: \(pid))" }

    /// `Tests/IdentityProvider` in this checkout (from this file's path, or `$AUTHDECK_REPO_ROOT`).
    public static var directory: URL {
        if let root = ProcessInfo.processInfo.environment["AUTHDECK_REPO_ROOT"], !root.isEmpty {
            return URL(fileURLWithPath: root).appendingPathComponent("Tests/IdentityProvider")
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // TestSupport
            .deletingLastPathComponent()  // Tests
            .appendingPathComponent("IdentityProvider")
    }

    /// Starts a new provider on a free port of 127.0.0.1 and waits until discovery answers.
    /// - Parameters (all in seconds; `nil` = the provider's default):
    ///   - accessTokenLifetime: `IDP_ACCESS_TOKEN_SECONDS` (default 3600).
    ///   - signInAccessTokenLifetime: `IDP_SIGN_IN_ACCESS_TOKEN_SECONDS`, the access tokens of a
    ///     sign-in (a refresh gets `accessTokenLifetime`): a short first token expires, or needs a
    ///     refresh, without a long wait, and the refreshed one lasts.
    ///   - idTokenLifetime: `IDP_ID_TOKEN_SECONDS` (default 3600).
    ///   - refreshTokenLifetime: `IDP_REFRESH_TOKEN_SECONDS` (default unlimited).
    ///   - deviceCodeLifetime: `IDP_DEVICE_CODE_SECONDS`, RFC 8628 `expires_in` (default 1800).
    ///   - deviceInterval: `IDP_DEVICE_INTERVAL`, RFC 8628 `interval` (default 5).
    ///   - deviceSlowDown: `IDP_DEVICE_SLOW_DOWN`: answer RFC 8628 §3.5 `slow_down` to a poll
    ///     that comes sooner than the interval in force (each one adds 5 s); the first poll of a
    ///     device code is never too soon.
    ///   - fixtureControl: `IDP_FIXTURE_CONTROL`: serve the test controls
    ///     (``rotateSigningKey()``, ``setJWKSStatus(_:)``).
    ///   - port: `--port` (0: a free one); with `dataDirectory`, a provider stopped can be started
    ///     again as it was (its database, clients and grants kept: an outage that ends).
    ///   - dataDirectory: `--data-dir`, kept after it stops (nil: a new one, removed when it stops).
    ///   - timeout: how long to wait for the ready line.
    /// - Throws: ``FixtureProcessError`` (e.g. `exitedBeforeReady` with the reason, such as a
    ///   missing `.venv`: run `scripts/bootstrap`).
    public static func start(
        accessTokenLifetime: Int? = nil,
        signInAccessTokenLifetime: Int? = nil,
        idTokenLifetime: Int? = nil,
        refreshTokenLifetime: Int? = nil,
        deviceCodeLifetime: Int? = nil,
        deviceInterval: Int? = nil,
        deviceSlowDown: Bool = false,
        logRequests: Bool = false,
        fixtureControl: Bool = false,
        port: Int = 0,
        dataDirectory: String? = nil,
        timeout: Duration = .seconds(90)
    ) async throws -> LocalIdentityProvider {
        var environment: [String: String?] = [
            "IDP_ACCESS_TOKEN_SECONDS": accessTokenLifetime.map(String.init),
            "IDP_SIGN_IN_ACCESS_TOKEN_SECONDS": signInAccessTokenLifetime.map(String.init),
            "IDP_ID_TOKEN_SECONDS": idTokenLifetime.map(String.init),
            "IDP_REFRESH_TOKEN_SECONDS": refreshTokenLifetime.map(String.init),
            "IDP_DEVICE_CODE_SECONDS": deviceCodeLifetime.map(String.init),
            "IDP_DEVICE_INTERVAL": deviceInterval.map(String.init),
            "IDP_DEVICE_SLOW_DOWN": deviceSlowDown ? "1" : nil,
            // Method and path of each request on the provider's stderr (`process.stderrText()`).
            "IDP_LOG_REQUESTS": logRequests ? "1" : nil,
            // The test controls under /fixture/ (``rotateSigningKey()``, ``setJWKSStatus(_:)``).
            "IDP_FIXTURE_CONTROL": fixtureControl ? "1" : nil,
            "IDP_PARENT_PID": nil,
            "PYTHONDONTWRITEBYTECODE": "1",
        ]
        environment["PYTHONUNBUFFERED"] = "1"
        let process = try FixtureProcess.spawn(
            executable: directory.appendingPathComponent("run").path,
            arguments: ["--port", String(port), "--parent-pid", String(getpid())] + (dataDirectory.map { ["--data-dir", $0] } ?? []),
            environment: environment
        )
        do {
            let line = try await process.readFirstLine(timeout: timeout)
            return try LocalIdentityProvider(readyLine: line, process: process)
        } catch {
            await process.terminate()
            throw error
        }
    }

    /// Stops the provider's process group (SIGTERM, then SIGKILL) and reaps it.
    public func stop() async {
        await process.terminate()
    }

    /// Pauses the provider's process group (SIGSTOP): the kernel still accepts TCP connections
    /// and queues their requests, nothing answers — a stalled provider.
    public func pause() { kill(-pid, SIGSTOP) }
    /// Resumes a paused provider (SIGCONT): it then serves the queued requests in turn.
    public func resume() { kill(-pid, SIGCONT) }

    /// Whether the provider's process group still exists.
    public var isRunning: Bool {
        process.exitStatus == nil && FixtureProcess.processGroupExists(pid)
    }

    /// The fixture user `alice` (Alice Example, alice@example.test, `sub` "1").
    public var alice: User { users["alice"]! }
    /// The fixture user `bob` (Bob Example, bob@example.test, `sub` "2").
    public var bob: User { users["bob"]! }

    /// The virtual environment's Python, for other Python fixtures (e.g. a local HTTPS server
    /// run as a ``FixtureProcess``).
    public static var pythonPath: String {
        directory.appendingPathComponent(".venv/bin/python").path
    }

    /// The shared provider (default lifetimes), started on first use and stopped at exit.
    public static let shared = SharedLocalIdentityProvider()

    // MARK: Python tools

    /// What a Python tool did: its exit code (or 128 + signal; -1 if it had to be killed after
    /// the timeout) and its stderr (no secrets: the tools print URL paths and parameter names
    /// only).
    public typealias ToolResult = (exitCode: Int32, stderr: String)

    /// The consent answer given by the browser stand-in (also used for the logout
    /// confirmation and the device page).
    public enum Consent: String, Sendable {
        case allow, deny
    }

    /// Environment variables that make the browser stand-in act as `user` and answer
    /// `consent`; add `BROWSER` = ``browserPath`` to let a client under test open it.
    /// - Parameter log: a file the stand-in appends its log to instead of stderr (useful when
    ///   the client under test is a full-screen program whose terminal it would scribble on).
    public func browserEnvironment(
        user: String = "alice", consent: Consent = .allow, cookieJar: URL? = nil, log: URL? = nil
    ) -> [String: String] {
        var environment = [
            "BROWSER": browserPath,
            "AUTHDECK_TEST_USER": user,
            "AUTHDECK_TEST_CONSENT": consent.rawValue,
        ]
        if let cookieJar { environment["AUTHDECK_TEST_COOKIE_JAR"] = cookieJar.path }
        if let log { environment["AUTHDECK_TEST_BROWSER_LOG"] = log.path }
        return environment
    }

    /// Runs the browser stand-in on `url` (an authorization or end-session URL) as `user`:
    /// it signs in, answers consent, and GETs the first URL off the provider (the client's
    /// loopback listener). Exit code 0 means that listener answered 2xx.
    /// - Parameter cookieJar: a file that keeps the provider session between runs.
    public func runBrowser(
        url: URL, user: String = "alice", consent: Consent = .allow, cookieJar: URL? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> ToolResult {
        // Nothing inherited: no log file (stderr is the result), no jar unless asked for.
        var environment: [String: String?] = ["AUTHDECK_TEST_BROWSER_LOG": nil, "AUTHDECK_TEST_COOKIE_JAR": nil]
        for (name, value) in browserEnvironment(user: user, consent: consent, cookieJar: cookieJar) {
            environment[name] = value
        }
        environment["BROWSER"] = nil
        return try await Self.runTool(browserPath, arguments: [url.absoluteString], environment: environment,
                                      timeout: timeout)
    }

    /// Signs in on the provider's device page as `user` and approves (or denies) `userCode`
    /// (RFC 8628 §3.3). Exit code 0 means the grant ended in the state asked for.
    public func approveDevice(
        userCode: String, user: String = "bob", deny: Bool = false, timeout: Duration = .seconds(60)
    ) async throws -> ToolResult {
        var arguments = ["--issuer", issuer.absoluteString, "--user-code", userCode, "--user", user]
        if deny { arguments.append("--deny") }
        return try await Self.runTool(approveDevicePath, arguments: arguments, environment: [:], timeout: timeout)
    }

    /// Key rotation (OIDC Core §10.1.1) on a provider started with `fixtureControl`: a new RSA
    /// key signs every ID token from now on; the previous keys stay in the JWKS.
    /// - Returns: the new key's `kid`.
    public func rotateSigningKey() async throws -> String {
        let answer = try await fixtureControl(["rotate-signing-key"])
        guard let kid = answer["kid"] as? String else { throw FixtureProcessError.invalidReadyLine(reason: "fixture-control: no kid in \(answer)") }
        return kid
    }

    /// Makes the JWKS answer HTTP `status` with an empty body (200: serve the keys again), on
    /// a provider started with `fixtureControl`.
    public func setJWKSStatus(_ status: Int) async throws {
        _ = try await fixtureControl(["jwks-status", String(status)])
    }

    /// Revokes every refresh and access token of `username` (the person removed the app's access
    /// at the provider), on a provider started with `fixtureControl`; returns how many refresh
    /// tokens were revoked.
    @discardableResult
    public func revokeGrants(of username: String) async throws -> Int {
        let answer = try await fixtureControl(["revoke-grants", username])
        guard let count = answer["revoked"] as? Int else { throw FixtureProcessError.invalidReadyLine(reason: "fixture-control: \(answer)") }
        return count
    }

    /// Makes the access token whose SHA-256 (hex) is `checksum` expire now, its grant left as it
    /// is (introspection then calls it inactive; a refresh still works), on a provider started
    /// with `fixtureControl`. The checksum, not the token, is what crosses argv.
    /// - Returns: how many tokens it expired (0: none had that checksum).
    public func expireAccessToken(checksum: String) async throws -> Int {
        try await fixtureControl(["expire-access-token", checksum])["expired"] as? Int ?? 0
    }

    private func fixtureControl(_ arguments: [String]) async throws -> [String: Any] {
        let origin = "http://127.0.0.1:\(port)"
        let tool = Self.directory.appendingPathComponent("fixture-control").path
        let process = try FixtureProcess.spawn(executable: tool, arguments: ["--origin", origin] + arguments,
                                               environment: ["PYTHONDONTWRITEBYTECODE": "1"])
        let line: String
        do {
            line = try await process.readFirstLine(timeout: .seconds(30))
            await process.terminate()
        } catch {
            await process.terminate()
            throw error
        }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw FixtureProcessError.invalidReadyLine(reason: "fixture-control: \(line)")
        }
        return object
    }

    /// A signed-in grant written straight into the provider's database by `mint-grants`: a
    /// user `<prefix>0001` with an access token, a refresh token of a new family and an ID token
    /// signed by the provider's key as django-oauth-toolkit signs one.
    public struct MintedGrant: Sendable {
        public let username: String
        /// The user's `sub`.
        public let subject: String
        public let accessToken: FixtureSecret
        public let refreshToken: FixtureSecret
        public let idToken: FixtureSecret
    }

    /// Mints one grant (`mint-grants --count 1`; Tests/IdentityProvider/README.md).
    /// - Parameters:
    ///   - prefix: the user name prefix; a new prefix makes a new user.
    ///   - accessTokenExpiresAt: epoch seconds, in the future.
    ///   - idTokenExpiresAt: epoch seconds of the ID token's `exp`; in the past it is back-dated
    ///     (`iat` a minute before): an expired ID token without waiting. `nil`: the provider's lifetime.
    /// - Throws: ``FixtureProcessError`` when the tool fails or prints no grant.
    public func mintGrant(prefix: String, accessTokenExpiresAt: Int, idTokenExpiresAt: Int? = nil,
                          timeout: Duration = .seconds(60)) async throws -> MintedGrant {
        var arguments = ["--data-dir", dataDirectory, "--port", String(port), "--count", "1",
                         "--expires-at", String(accessTokenExpiresAt), "--prefix", prefix]
        if let idTokenExpiresAt { arguments += ["--id-token-expires-at", String(idTokenExpiresAt)] }
        let tool = try FixtureProcess.spawn(
            executable: Self.directory.appendingPathComponent("mint-grants").path, arguments: arguments,
            environment: ["PYTHONDONTWRITEBYTECODE": "1"])
        let line: String
        do {
            line = try await tool.readFirstLine(timeout: timeout)  // its errors carry the tool's stderr
        } catch {
            await tool.terminate()
            throw error
        }
        await tool.waitForExit(timeout: .seconds(10))  // printed after its commit: let it end by itself
        await tool.terminate()
        struct Line: Decodable {
            struct Response: Decodable { let accessToken, refreshToken, idToken: String }
            let username, subject: String
            let tokenResponse: Response
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // Never echo the line: it holds the tokens.
        guard let minted = try? decoder.decode(Line.self, from: Data(line.utf8)) else {
            throw FixtureProcessError.invalidReadyLine(reason: "mint-grants printed something other than a grant")
        }
        return MintedGrant(username: minted.username, subject: minted.subject,
                           accessToken: FixtureSecret(minted.tokenResponse.accessToken),
                           refreshToken: FixtureSecret(minted.tokenResponse.refreshToken),
                           idToken: FixtureSecret(minted.tokenResponse.idToken))
    }

    static func runTool(
        _ path: String, arguments: [String], environment: [String: String?], timeout: Duration
    ) async throws -> ToolResult {
        var environment = environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let process = try FixtureProcess.spawn(executable: path, arguments: arguments, environment: environment)
        var status = await process.waitForExit(timeout: timeout)
        if status == nil {
            await process.terminate()
            status = -1
        } else {
            await process.terminate()  // reaps, closes, and kills anything it left in its group
        }
        let stderr = process.stderrText()
        return (exitCode: status ?? -1, stderr: stderr)
    }
}

/// Lazily starts one provider with default settings for all tests that can share it.
public actor SharedLocalIdentityProvider {
    private var starting: Task<LocalIdentityProvider, any Error>?

    /// The shared provider; started on the first call (a start failure is rethrown to every
    /// caller). It runs until the test process exits.
    public func provider() async throws -> LocalIdentityProvider {
        if let starting { return try await starting.value }
        let task = Task { try await LocalIdentityProvider.start() }
        starting = task
        return try await task.value
    }

    /// Same as ``provider()``: `try await LocalIdentityProvider.shared()`.
    public func callAsFunction() async throws -> LocalIdentityProvider {
        try await provider()
    }
}

extension LocalIdentityProvider {
    private struct ReadyLine: Decodable {
        struct EndpointsLine: Decodable {
            let authorization, token, userinfo, jwks, revocation, introspection: String
            let deviceAuthorization, endSession, verification, login: String
        }
        struct ClientLine: Decodable {
            let clientId: String
            let clientSecret: String?
            let grantTypes: [String]
            let redirectUris: [String]
            let postLogoutRedirectUris: [String]
        }
        struct ClientsLine: Decodable { let native, confidential: ClientLine }
        struct UserLine: Decodable { let username, password, name, email: String }
        struct SettingsLine: Decodable {
            let accessTokenSeconds: Int
            let signInAccessTokenSeconds: Int
            let deviceCodeSeconds: Int
            let deviceInterval: Int
            let deviceSlowDown: Bool
        }
        struct ToolsLine: Decodable { let browser, approveDevice: String }

        let issuer: String
        let port: Int
        let pid: Int32
        let dataDir: String
        let discoveryUrl: String
        let rfc8414Url: String
        let endpoints: EndpointsLine
        let clients: ClientsLine
        let users: [UserLine]
        let settings: SettingsLine
        let tools: ToolsLine
        let startupSeconds: Double
    }

    init(readyLine: String, process: FixtureProcess) throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let line: ReadyLine
        do {
            line = try decoder.decode(ReadyLine.self, from: Data(readyLine.utf8))
        } catch {
            // Never echo the line: it carries the confidential client's secret.
            throw FixtureProcessError.invalidReadyLine(reason: "not the provider's JSON document: \(type(of: error))")
        }
        func url(_ string: String, _ field: String) throws -> URL {
            guard let url = URL(string: string) else {
                throw FixtureProcessError.invalidReadyLine(reason: "\(field) is not a URL")
            }
            return url
        }
        func client(_ client: ReadyLine.ClientLine) throws -> Client {
            Client(
                clientID: client.clientId,
                clientSecret: client.clientSecret.map(FixtureSecret.init),
                redirectURIs: try client.redirectUris.map { try url($0, "redirect_uris") },
                postLogoutRedirectURIs: try client.postLogoutRedirectUris.map { try url($0, "post_logout_redirect_uris") },
                grantTypes: client.grantTypes
            )
        }
        issuer = try url(line.issuer, "issuer")
        port = line.port
        pid = line.pid
        discoveryURL = try url(line.discoveryUrl, "discovery_url")
        authorizationServerMetadataURL = try url(line.rfc8414Url, "rfc8414_url")
        let e = line.endpoints
        endpoints = Endpoints(
            authorization: try url(e.authorization, "authorization"),
            token: try url(e.token, "token"),
            userinfo: try url(e.userinfo, "userinfo"),
            jwks: try url(e.jwks, "jwks"),
            revocation: try url(e.revocation, "revocation"),
            introspection: try url(e.introspection, "introspection"),
            deviceAuthorization: try url(e.deviceAuthorization, "device_authorization"),
            endSession: try url(e.endSession, "end_session"),
            verification: try url(e.verification, "verification"),
            login: try url(e.login, "login")
        )
        nativeClient = try client(line.clients.native)
        confidentialClient = try client(line.clients.confidential)
        users = Dictionary(uniqueKeysWithValues: line.users.map {
            ($0.username, User(username: $0.username, password: $0.password, name: $0.name, email: $0.email))
        })
        accessTokenLifetime = line.settings.accessTokenSeconds
        signInAccessTokenLifetime = line.settings.signInAccessTokenSeconds
        dataDirectory = line.dataDir
        deviceCodeLifetime = line.settings.deviceCodeSeconds
        deviceInterval = line.settings.deviceInterval
        deviceSlowDown = line.settings.deviceSlowDown
        browserPath = line.tools.browser
        approveDevicePath = line.tools.approveDevice
        startupSeconds = line.startupSeconds
        self.process = process
        guard line.pid == process.pid else {
            throw FixtureProcessError.invalidReadyLine(reason: "pid \(line.pid) is not the spawned \(process.pid)")
        }
    }
}
