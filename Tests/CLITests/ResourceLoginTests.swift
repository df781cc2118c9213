import Foundation
import Testing
import TestSupport

/// `authdeck login URL` with the real binary against Tests/ResourceServer (one process, a path
/// prefix per scenario; README there) and against the reference `mcp` SDK server: the journey
/// login → token → a request to the resource → refresh → logout, and each refusal.
@Suite("Sign in to a resource by its URL through the binary (RFC 9728, 8414, 7591/7592, 8707, 9207)", .serialized)
struct ResourceLoginTests {
    static func home() throws -> CLIHome {
        var home = try CLIHome()
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path
        return home
    }

    /// The providers configured (`provider list --json` names).
    static func providers(_ home: CLIHome) async throws -> [String] {
        let list = try await home.run(["provider", "list", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8))
        let entries = (object as? [[String: Any]]) ?? ((object as? [String: Any])?["providers"] as? [[String: Any]]) ?? []
        return entries.compactMap { ($0["name"] ?? $0["id"]) as? String }
    }

    @Test("ok: login URL --yes → token → the resource answers it → refresh (resource again) → token --header-json → logout → provider remove deletes the registration")
    func journey() async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        let resource = server.resourceURL(scenario: "ok")

        let login = try await home.run(["login", resource, "--yes"])
        try #require(login.exitCode == 0, "login: \(login)")
        #expect(login.stderr.contains("Authorization server: \(server.issuer(scenario: "ok"))"), "\(login.stderr)")
        var log = try await server.log()
        // Discovery carried no token and no cookie; registered once; resource in both requests.
        for entry in log where ["resource", "prm", "prm-root", "asm-8414", "asm-oidc-inserted", "asm-oidc-appended", "register"].contains(entry.endpoint ?? "") {
            #expect(!entry.hasAuthorization && !entry.hasCookie, "\(entry.method) \(entry.path) carried a credential")
        }
        #expect(log.filter { $0.endpoint == "register" }.count == 1)
        let authorize = try #require(log.first { $0.endpoint == "authorize" })
        #expect(authorize.query["resource"] == [resource])
        let exchange = try #require(log.first { $0.endpoint == "token" })
        #expect(exchange.form?["resource"] == [resource] && exchange.form?["grant_type"] == ["authorization_code"])

        let token = try await home.run(["token"])
        try #require(token.exitCode == 0, "token: \(token)")
        let accessToken = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let answer = try await ResourceServerFixture.curl("GET", resource, headers: ["Authorization: Bearer \(accessToken)"])
        #expect(answer.status == 200, "the resource takes the token: \(answer.status)")
        let api = try await home.run(["api", resource])
        #expect(api.exitCode == 0, "api: \(api)")

        let refresh = try await home.run(["refresh"])
        #expect(refresh.exitCode == 0, "refresh: \(refresh)")
        log = try await server.log()
        let refreshes = log.filter { $0.endpoint == "token" && $0.form?["grant_type"] == ["refresh_token"] }
        #expect(refreshes.count == 1 && refreshes.first?.form?["resource"] == [resource], "RFC 8707: the refresh names the resource")
        let renewed = try await home.run(["token"])
        let renewedToken = renewed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(renewedToken != accessToken)
        #expect(try await ResourceServerFixture.curl("GET", resource, headers: ["Authorization: Bearer \(renewedToken)"]).status == 200)

        let header = try await home.run(["token", "--header-json"])
        try #require(header.exitCode == 0, "token --header-json: \(header)")
        let headerObject = try #require(try JSONSerialization.jsonObject(with: Data(header.stdout.utf8)) as? [String: String])
        #expect(headerObject.keys.sorted() == ["Authorization"])
        let bearer = try #require(headerObject["Authorization"])
        #expect(bearer == "Bearer \(renewedToken)")
        #expect(try await ResourceServerFixture.curl("GET", resource, headers: ["Authorization: \(bearer)"]).status == 200)

        let status = try await home.run(["status", "--json"])
        let account = try #require(((try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["accounts"] as? [[String: Any]])?.first)
        let bound = try #require(account["protectedResource"] as? [String: Any], "\(status.stdout)")
        #expect(bound["resource"] as? String == resource)
        #expect(bound["authorizationServer"] as? String == server.issuer(scenario: "ok"))
        #expect(bound["client"] as? String == "registered")

        let logout = try await home.run(["logout", "--no-end-session"])
        #expect(logout.exitCode == 0, "logout: \(logout)")
        log = try await server.log()
        #expect(log.contains { $0.endpoint == "revoke" }, "logout revokes at the server (RFC 7009)")
        #expect(try await ResourceServerFixture.curl("GET", resource, headers: ["Authorization: \(bearer)"]).status == 401)

        let providers = try await Self.providers(home)
        let name = try #require(providers.first)
        let remove = try await home.run(["provider", "remove", name])
        #expect(remove.exitCode == 0 && remove.stderr.contains("Deleted its client registration"), "\(remove)")
        log = try await server.log()
        #expect(log.contains { $0.endpoint == "client-configuration" && $0.method == "DELETE" && $0.authorizationScheme == "Bearer" })
        await server.stop()
    }

    @Test("Signing in to the same resource again reuses its provider and its registration: registered once per server")
    func registeredOnce() async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        let resource = server.resourceURL(scenario: "ok")
        for _ in 0..<2 {
            let login = try await home.run(["login", resource, "--yes"])
            try #require(login.exitCode == 0, "login: \(login)")
        }
        #expect(try await server.log().filter { $0.endpoint == "register" }.count == 1)
        #expect(try await Self.providers(home).count == 1)
        await server.stop()
    }

    @Test("Found and signed in", arguments: ["no-param", "root-metadata", "oidc-inserted", "oidc-appended", "second-challenge", "second-challenge-header",
                                              "second-challenge-dpop", "challenge-case"])
    func signsIn(_ scenario: String) async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        let resource = server.resourceURL(scenario: scenario)
        let login = try await home.run(["login", resource, "--yes"])
        try #require(login.exitCode == 0, "login \(scenario): \(login)")
        let token = try await home.run(["token"])
        let answer = try await ResourceServerFixture.curl("GET", resource, headers: ["Authorization: Bearer \(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines))"])
        #expect(answer.status == 200, "\(scenario): the resource takes the token")
        let log = try await server.log()
        #expect(!log.contains { $0.endpoint == "trap" }, "a parameter quoted inside another challenge is not followed")
        await server.stop()
    }

    /// Each refusal: a non-zero exit, the reason on stderr, no provider configured, no browser.
    @Test("Refused, each with its reason", arguments: [
        ("wrong-resource-host", "Protected resource mismatch"), ("wrong-resource-path", "Protected resource mismatch"),
        ("wrong-resource-slash", "Protected resource mismatch"), ("wrong-resource-lookalike", "Protected resource mismatch"),
        ("wrong-issuer", "Issuer mismatch"), ("no-s256", "S256"), ("no-pkce-methods", "S256"),
        ("redirect-other-host", "another origin"), ("redirect-other-host-as", "another origin"),
        ("registration-no-client-id", "client_id"), ("registration-refused", "the fixture refuses every redirect URI in this scenario"),
        ("registration-refused-metadata", "invalid_client_metadata"),
    ])
    func refused(_ scenario: String, _ reason: String) async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        let login = try await home.run(["login", server.resourceURL(scenario: scenario), "--yes"])
        #expect(login.exitCode != 0, "\(scenario) was signed in: \(login)")
        #expect(login.stderr.contains(reason), "\(scenario): \(login.stderr)")
        let log = try await server.log()
        #expect(!log.contains { $0.endpoint == "authorize" }, "\(scenario): no browser was opened")
        #expect(!log.contains { ($0.host ?? "").hasPrefix("localhost") }, "\(scenario): nothing was asked of another host")
        if !scenario.hasPrefix("registration") { #expect(!log.contains { $0.endpoint == "register" }, "\(scenario): nothing was registered") }
        #expect(try await Self.providers(home).filter { !$0.isEmpty }.isEmpty || scenario.hasPrefix("iss"), "\(scenario): no provider configured")
        await server.stop()
    }

    @Test("Refused after the redirect: another iss, or none whatever the metadata says (RFC 9207 required); no code exchanged", arguments: ["iss-other", "iss-missing"])
    func issuerOnRedirect(_ scenario: String) async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        let login = try await home.run(["login", server.resourceURL(scenario: scenario), "--yes"])
        #expect(login.exitCode != 0, "\(scenario) was signed in: \(login)")
        #expect(login.stderr.contains("Issuer mismatch on redirect") || login.stderr.contains("Missing issuer on redirect"), "\(scenario): \(login.stderr)")
        #expect(!(try await server.log()).contains { $0.endpoint == "token" }, "no code was exchanged")
        await server.stop()
    }

    @Test("Without a terminal and without --yes nothing is registered or opened")
    func confirmationNeeded() async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        let login = try await home.run(["login", server.resourceURL(scenario: "ok")])
        #expect(login.exitCode == 2, "\(login)")
        #expect(login.stderr.contains("--yes"), "\(login.stderr)")
        let log = try await server.log()
        #expect(!log.contains { $0.endpoint == "register" || $0.endpoint == "authorize" })
        await server.stop()
    }

    @Test("Answering n to the plan at a terminal exits 6 (declined), not 130 (Ctrl-C); nothing registered or opened")
    func declinedAtTheQuestion() async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        // A terminal on stdin (script(1) runs the binary on a pseudo-terminal), the answer typed there.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(authdeckBinary)' login '\(server.resourceURL(scenario: "ok"))'", "/dev/null"]
        process.environment = home.environment
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try await Task.sleep(for: .seconds(2))
        input.fileHandleForWriting.write(Data("n\n".utf8))
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 6, "\(text)")
        #expect(text.contains("Not signed in"), "\(text)")
        let log = try await server.log()
        #expect(!log.contains { $0.endpoint == "register" || $0.endpoint == "authorize" })
        #expect(try await Self.providers(home).isEmpty)
        await server.stop()
    }

    @Test("two-servers: the person names one with --authorization-server")
    func twoServers() async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        let resource = server.resourceURL(scenario: "two-servers")
        let unnamed = try await home.run(["login", resource, "--yes"])
        #expect(unnamed.exitCode == 2 && unnamed.stderr.contains("--authorization-server"), "\(unnamed)")
        let second = server.issuer(scenario: "two-servers", server: "as2")
        let login = try await home.run(["login", resource, "--yes", "--authorization-server", second])
        #expect(login.exitCode == 0, "\(login)")
        #expect(try await server.log().contains { $0.endpoint == "authorize" && $0.path.hasPrefix("/two-servers/as2/") })
        await server.stop()
    }

    @Test("no-dcr: a client id metadata document given with --client-metadata-url is the client_id")
    func clientMetadataDocument() async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        let resource = server.resourceURL(scenario: "no-dcr")
        let refused = try await home.run(["login", resource, "--yes"])
        #expect(refused.exitCode != 0 && refused.stderr.contains("--client-metadata-url"), "\(refused)")
        let document = try await server.publishClientMetadata(name: "authdeck", document: #"{"client_name":"authdeck","redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"],"response_types":["code"]}"#)
        let login = try await home.run(["login", resource, "--yes", "--client-metadata-url", document])
        #expect(login.exitCode == 0, "\(login)")
        #expect(try await server.log().first { $0.endpoint == "authorize" }?.query["client_id"] == [document])
        await server.stop()
    }

    @Test("insufficient-scope: api names the missing scope and the one step-up command, which works")
    func stepUp() async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        let resource = server.resourceURL(scenario: "insufficient-scope")
        let login = try await home.run(["login", resource, "--yes"])
        try #require(login.exitCode == 0, "login: \(login)")
        let admin = resource + "/admin"
        let api = try await home.run(["api", admin])
        #expect(api.exitCode != 0 && api.stderr.contains("lacks mcp:admin"), "\(api)")
        let command = "authdeck login \(resource) --scope 'mcp:read mcp:admin'"
        #expect(api.stderr.contains(command), "\(api.stderr)")
        let stepUp = try await home.run(["login", resource, "--scope", "mcp:read mcp:admin", "--yes"])
        #expect(stepUp.exitCode == 0, "\(stepUp)")
        let again = try await home.run(["api", admin])
        #expect(again.exitCode == 0, "\(again)")
        await server.stop()
    }

    @Test("dpop: signed in with DPoP; the token is not handed over as a static header")
    func dpop() async throws {
        let server = try await ResourceServerFixture.start()
        let home = try Self.home()
        defer { home.remove() }
        let resource = server.resourceURL(scenario: "dpop")
        let login = try await home.run(["login", resource, "--yes"])
        try #require(login.exitCode == 0, "login: \(login)")
        let api = try await home.run(["api", resource])
        #expect(api.exitCode == 0, "api with a proof: \(api)")
        let header = try await home.run(["token", "--header-json"])
        #expect(header.exitCode != 0 && header.stdout.isEmpty && header.stderr.contains("DPoP"), "\(header)")
        await server.stop()
    }

    @Test("The reference mcp SDK server: login URL → token → the MCP endpoint answers it → refresh → logout")
    func referenceServer() async throws {
        let server = try await ResourceServerFixture.startMCP()
        let home = try Self.home()
        defer { home.remove() }
        let resource = server.base + "/mcp"
        let login = try await home.run(["login", resource, "--yes"])
        try #require(login.exitCode == 0, "login: \(login)")
        let initialize = Data(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"authdeck-test","version":"1"}}}"#.utf8)
        func call(_ token: String) async throws -> Int {
            try await ResourceServerFixture.curl("POST", resource, headers: ["Authorization: Bearer \(token)", "Content-Type: application/json",
                                                                            "Accept: application/json, text/event-stream"], body: initialize).status
        }
        let token = try await home.run(["token"])
        try #require(token.exitCode == 0, "token: \(token)")
        #expect(try await call(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == 200)
        let refresh = try await home.run(["refresh"])
        #expect(refresh.exitCode == 0, "refresh: \(refresh)")
        let renewed = try await home.run(["token"])
        #expect(try await call(renewed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == 200)
        // The SDK's revocation endpoint (2.3.0) requires client_secret even of a public client it
        // registered with token_endpoint_auth_method none: revocation is refused there, which
        // logout reports (exit 1) after deleting the local secrets.
        let logout = try await home.run(["logout", "--no-end-session"])
        #expect(logout.stderr.contains("delete local secrets: deleted"), "logout: \(logout)")
        #expect(logout.exitCode == 0 || logout.stderr.contains("client_secret: Field required"), "logout: \(logout)")
        let (_, status) = try await home.statusJSON()
        #expect((status["accounts"] as? [Any])?.isEmpty == true)
        await server.stop()
    }
}
