// Logto end to end: the real `authdeck` binary against the Logto emulator
// (Tests/ProviderEmulators/logto.py): several RFC 8707 resources at sign-in, one JWT access token
// per resource by refresh with `resource`, an organization token, userinfo extras, timestamps in
// milliseconds, revocation and the end-session endpoint.
import AuthEngine
import Foundation
import Testing

@Suite("Logto: resources, organization tokens, userinfo extras against its emulator through the CLI", .serialized)
struct LogtoProviderTests {
    static let api = "https://api.example.test"
    static let billing = "https://billing.example.test"

    /// The payload claims of a compact JWS printed by `token` (decoded by `authdeck decode`).
    func claims(_ home: CLIHome, _ token: String) async throws -> [String: Any] {
        let decoded = try jsonObject(try await home.run(["decode", "--json"], stdin: Data(token.utf8)).stdout)
        return try #require(decoded["claims"] as? [String: Any], "not a JWT")
    }

    @Test("Logto: prompt=consent with offline_access, no resource in the code exchange; one JWT per resource by refresh with resource (RFC 8707 2.2), organization token, userinfo extras, ms dates, revoke + end session without a redirect")
    func logtoEndToEnd() async throws {
        let emulator = try await ProviderEmulator.start("logto")
        let issuer = emulator.baseURL + "/oidc"
        var home = try CLIHome()
        defer { home.remove() }
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path
        let added = try await home.run(["provider", "add", "logto", "--preset", "logto", "--domain", "example.logto.app",
                                        "--issuer", issuer, "--client-id", emulator.clientID])
        try #require(added.exitCode == 0, "provider add: \(added)")
        let login = try await home.run(["login", "logto", "--resource", Self.api, "--resource", Self.billing,
                                        "--scope", "email", "--scope", "custom_data", "--scope", "identities", "--scope", "roles",
                                        "--scope", "urn:logto:scope:organizations"])
        try #require(login.exitCode == 0, "login: \(login)")
        var state = try await emulator.state()
        let authorize = try #require((state["authorize_requests"] as? [[String: Any]])?.last)
        #expect(authorize["resources"] as? [String] == [Self.api, Self.billing], "both resource parameters sent")
        #expect(authorize["code_challenge_method"] as? String == "S256")
        #expect(((authorize["scope"] as? String) ?? "").split(separator: " ").contains("offline_access"), "the preset's default scopes")
        // node-oidc-provider drops offline_access without prompt=consent (no refresh token).
        #expect(authorize["prompt"] as? String == "consent", "consent asked with offline_access: \(authorize)")
        let exchange = try #require((state["token_requests"] as? [[String: Any]])?.first { $0["grant_type"] as? String == "authorization_code" })
        #expect(exchange["resource"] is NSNull, "the code exchange leaves resource out, as Logto's SDKs do: \(exchange)")
        // Right after sign-in: the default token is the opaque one, which userinfo takes (a resource's
        // JWT gets 401 invalid_token there).
        let firstUserinfo = try await home.run(["userinfo", "logto"])
        #expect(firstUserinfo.exitCode == 0 && firstUserinfo.stdout.contains("sub: u7x1k9p2q4m6"), "\(firstUserinfo)")

        // The default access token is opaque; each resource's token is a JWT with that aud.
        let opaque = try await home.run(["token", "logto"])
        #expect(opaque.exitCode == 0 && opaque.stdout.split(separator: ".").count != 3, "without resource: opaque")
        for resource in [Self.api, Self.billing] {
            let token = try await home.run(["token", "logto", "--resource", resource])
            try #require(token.exitCode == 0, "token --resource \(resource): \(token)")
            let payload = try await claims(home, token.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(payload["aud"] as? String == resource)
        }
        state = try await emulator.state()
        let refreshes = (state["token_requests"] as? [[String: Any]] ?? []).filter { $0["grant_type"] as? String == "refresh_token" }
        #expect(refreshes.compactMap { $0["resource"] as? String } == [Self.api, Self.billing], "one refresh with resource each")
        // Each per-resource refresh carries the grant's scope (what the account was granted).
        let granted = try #require((try await home.statusJSON().1["accounts"] as? [[String: Any]])?.first?["scopes"] as? [String])
        #expect(refreshes.allSatisfy { ($0["scope"] as? String)?.split(separator: " ").map(String.init) == granted }, "\(refreshes) vs \(granted)")
        let notGranted = try await home.run(["token", "logto", "--resource", "https://other.example.test"])
        #expect(notGranted.exitCode != 0 && notGranted.stderr.contains("authdeck login logto --resource https://other.example.test"),
                "invalid_target names the way out: \(notGranted)")

        // The organization token: refresh with organization_id → aud urn:logto:organization:{id}.
        let organization = try await home.run(["token", "logto", "--organization", "org-acme"])
        try #require(organization.exitCode == 0, "token --organization: \(organization)")
        let orgClaims = try await claims(home, organization.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(orgClaims["aud"] as? String == "urn:logto:organization:org-acme")
        #expect(orgClaims["organization_id"] as? String == "org-acme")
        let lastRequest = try #require((try await emulator.state()["token_requests"] as? [[String: Any]])?.last)
        #expect(lastRequest["organization_id"] as? String == "org-acme" && lastRequest["resource"] is NSNull)
        let unknownOrganization = try await home.run(["token", "logto", "--organization", "org-initech"])
        #expect(unknownOrganization.exitCode != 0, "an organization the user is not in: \(unknownOrganization)")

        // status: one token per resource, each with its own expiry.
        let (_, status) = try await home.statusJSON()
        let account = try #require((status["accounts"] as? [[String: Any]])?.first, "\(status)")
        let tokens = account["accessTokens"] as? [[String: Any]] ?? []
        let resources = Set(tokens.compactMap { $0["resource"] as? String })
        #expect(resources == [Self.api, Self.billing, "urn:logto:organization:org-acme"], "\(tokens)")
        #expect(tokens.allSatisfy { parseRFC3339($0["expiresAt"]) != nil }, "\(tokens)")

        // `refresh` renews every token the account holds, as the accounts screen's `r` does (one
        // use case): the default one first, then one refresh with resource per resource.
        func refreshRequests() async throws -> [[String: Any]] {
            (try await emulator.state()["token_requests"] as? [[String: Any]] ?? []).filter { $0["grant_type"] as? String == "refresh_token" }
        }
        let before = try await refreshRequests().count
        let refresh = try await home.run(["refresh", "logto"])
        #expect(refresh.exitCode == 0, "\(refresh)")
        let all = try await refreshRequests().dropFirst(before)
        #expect(all.count == 4, "the default token and three resources': \(all)")
        #expect(all.first?["resource"] is NSNull || all.first?["resource"] == nil, "the default token first: \(all)")
        #expect(Set(all.dropFirst().compactMap { ($0["resource"] as? String) ?? ($0["organization_id"] as? String).map { "organization " + $0 } })
                == [Self.api, Self.billing, "organization org-acme"], "\(all)")
        // --resource: only that one.
        let beforeOne = try await refreshRequests().count
        let one = try await home.run(["refresh", "logto", "--resource", Self.api])
        #expect(one.exitCode == 0, "\(one)")
        let only = try await refreshRequests().dropFirst(beforeOne)
        #expect(only.count == 1 && only.first?["resource"] as? String == Self.api, "\(only)")
        let unknown = try await home.run(["refresh", "logto", "--resource", "https://unknown.example.com"])
        #expect(unknown.exitCode == 2 && unknown.stderr.contains("holds no access token for the resource 'https://unknown.example.com'"), "\(unknown)")

        // userinfo extras, and created_at / updated_at in milliseconds shown as their dates.
        let userinfo = try await home.run(["userinfo", "logto"])
        try #require(userinfo.exitCode == 0, "userinfo: \(userinfo)")
        for line in [#"custom_data: {"plan":"pro","seats":5}"#, "organizations: [\"org-acme\",\"org-globex\"]",
                     "roles: [\"admin\",\"billing\"]", "identities: {\"github\""] {
            #expect(userinfo.stdout.contains(line), "\(line) in: \(userinfo.stdout)")
        }
        #expect(userinfo.stdout.contains("created_at: 1700000000123 (2023-11-14T22:13:20Z"), "\(userinfo.stdout)")
        #expect(userinfo.stdout.contains("updated_at: 1760000000456 (2025-10-09T08:53:20Z"), "\(userinfo.stdout)")

        // logout: the refresh token revoked, then the end-session endpoint without a
        // post_logout_redirect_uri (Logto compares it exactly: no loopback port would match), said as such.
        let logout = try await home.run(["logout", "logto"])
        #expect(logout.exitCode == 0, "\(logout)")
        #expect(logout.stderr.contains("✓ end provider session: the provider's logout page was opened in the browser"), "\(logout.stderr)")
        var final = try await emulator.state()
        for _ in 0..<100 where final["end_session_requests"] == nil {
            try await Task.sleep(for: .milliseconds(50))
            final = try await emulator.state()
        }
        #expect(final["revoked_refresh_tokens"] as? Int == 1, "\(final)")
        let endSession = try #require((final["end_session_requests"] as? [[String: Any]])?.first, "\(final)")
        #expect(endSession["has_post_logout_redirect_uri"] as? Bool == false && endSession["client_id_matches"] as? Bool == true)
        #expect(final["sessions_ended"] as? Int == 1, "the emulator ended the session: \(final)")
        let (_, after) = try await home.statusJSON()
        #expect((after["accounts"] as? [[String: Any]])?.isEmpty == true)
        await emulator.stop()
    }
}
