import Foundation
import Testing

/// DPoP (RFC 9449) and PAR (RFC 9126) with the real binary against the Auth0 emulator started
/// with `--dpop --par` (it requires pushed requests and nonces, and checks every proof's
/// signature with the `openssl` command).
@Suite("Auth0 emulator with DPoP and PAR (RFC 9449, RFC 9126)", .serialized)
struct DPoPEmulatorTests {
    @Test("Auth0 DPoP + PAR: sign-in (pushed, dpop_jkt, token nonce), status, token note, refresh with the bound key, api with the resource nonce, proof, sign-out")
    func auth0DPoPAndPAR() async throws {
        let emulator = try await ProviderEmulator.start("auth0", ["--dpop", "--par"])
        let issuer = emulator.baseURL + "/"
        var home = try CLIHome()
        defer { home.remove() }
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path

        let added = try await home.run(["provider", "add", "a0", "--issuer", issuer, "--client-id", emulator.clientID])
        try #require(added.exitCode == 0, "provider add: \(added)")
        let login = try await home.run(["login", "a0"])
        try #require(login.exitCode == 0, "login: \(login)")

        let (statusResult, status) = try await home.statusJSON()
        #expect(statusResult.exitCode == 0, "\(statusResult)")
        let account = try #require((status["accounts"] as? [[String: Any]])?.first, "\(status)")
        let dpop = try #require(account["dpop"] as? [String: Any])
        #expect(dpop["senderConstrained"] as? Bool == true)
        let thumbprint = try #require(dpop["thumbprint"] as? String)
        #expect((account["accessTokens"] as? [[String: Any]])?.first?["tokenType"] as? String == "DPoP")
        let statusText = try await home.run(["status"])
        #expect(statusText.stdout.contains("    token binding: DPoP, key \(thumbprint)\n"), "status (text) shows the binding: \(statusText.stdout)")

        var state = try await emulator.state()
        let push = try #require((state["par_requests"] as? [[String: Any]])?.first)
        #expect(push["has_state"] as? Bool == true && push["has_request_uri"] as? Bool == false)
        #expect(push["dpop_jkt"] as? String == thumbprint, "RFC 9449 §10: dpop_jkt is the key's RFC 7638 thumbprint")
        #expect((state["par_authorize"] as? [[String]])?.last == ["client_id", "request_uri"])
        let tokenProofs = (state["dpop_proofs"] as? [[String: Any]] ?? []).filter { ($0["htu"] as? String)?.hasSuffix("/oauth/token") == true }
        #expect(tokenProofs.count == 2, "the first proof lacked the nonce (use_dpop_nonce), the retry carried it")
        #expect(tokenProofs.first?["nonce"] is NSNull && tokenProofs.last?["nonce"] is String)

        let token = try await home.run(["token", "a0"])
        #expect(token.exitCode == 0 && token.stderr.contains("sender-constrained"), "\(token)")

        let refresh = try await home.run(["refresh", "a0"])
        #expect(refresh.exitCode == 0, "refresh: \(refresh)")
        state = try await emulator.state()
        #expect(state["refreshes"] as? Int == 1)

        let api = try await home.run(["api", "a0", emulator.baseURL + "/api/dpop"])
        #expect(api.exitCode == 0, "api: \(api)")
        #expect(try jsonObject(api.stdout)["jkt"] as? String == thumbprint)
        state = try await emulator.state()
        let resourceProofs = (state["dpop_proofs"] as? [[String: Any]] ?? []).filter { ($0["htu"] as? String)?.hasSuffix("/api/dpop") == true }
        #expect(resourceProofs.last?["has_ath"] as? Bool == true && resourceProofs.last?["nonce"] is String)

        let proof = try await home.run(["proof", "GET", emulator.baseURL + "/api/dpop?x=1", "a0", "--json"])
        #expect(proof.exitCode == 0, "\(proof)")
        let proofJSON = try jsonObject(proof.stdout)
        #expect(proofJSON["tokenType"] as? String == "DPoP" && proofJSON["thumbprint"] as? String == thumbprint)
        #expect(proofJSON["htu"] as? String == emulator.baseURL + "/api/dpop")

        let logout = try await home.run(["logout", "a0", "--no-end-session"])
        #expect(logout.exitCode == 0, "logout: \(logout)")
        await emulator.stop()
    }
    @Test("RFC 9449 §8.2: the token endpoint's nonce is kept in the cache directory (0600, per server), so a refresh in a new process sends one request")
    func nonceKeptBetweenProcesses() async throws {
        let emulator = try await ProviderEmulator.start("auth0", ["--dpop"])
        var home = try CLIHome()
        defer { home.remove() }
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path
        let added = try await home.run(["provider", "add", "a0", "--issuer", emulator.baseURL + "/", "--client-id", emulator.clientID])
        try #require(added.exitCode == 0, "provider add: \(added)")
        let login = try await home.run(["login", "a0"])
        try #require(login.exitCode == 0, "login: \(login)")
        func tokenProofs() async throws -> [[String: Any]] {
            (try await emulator.state()["dpop_proofs"] as? [[String: Any]] ?? []).filter { ($0["htu"] as? String)?.hasSuffix("/oauth/token") == true }
        }
        #expect(try await tokenProofs().count == 2, "sign-in: use_dpop_nonce, then the retry")
        let folder = home.root.appendingPathComponent("cache/authdeck/dpop-nonces")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == 1, "one file for the one server: \(files)")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(files[0]).path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        for round in 1...2 {
            let refresh = try await home.run(["refresh", "a0"])
            #expect(refresh.exitCode == 0, "refresh \(round): \(refresh)")
        }
        let proofs = try await tokenProofs()
        #expect(proofs.count == 4, "each refresh (a new process) sent one request")
        #expect(proofs.suffix(2).allSatisfy { $0["nonce"] is String })
        #expect(try await emulator.state()["refreshes"] as? Int == 2)
        await emulator.stop()
    }
}
