import Foundation
import Testing

@Suite("provider add --par / --dpop (RFC 9126, RFC 9449)")
struct ProtocolSettingsCLITests {
    @Test("PAR/DPoP settings: --par always --dpop never are stored with the provider; a bad value is a usage error")
    func settingsStored() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let bad = try await home.run(["provider", "add", "op", "--issuer", "https://op.example", "--client-id", "c1", "--par", "sometimes"])
        #expect(bad.exitCode == 2 && bad.stderr.contains("--par must be auto, always or never, got 'sometimes'"), "\(bad)")
        let added = try await home.run(["provider", "add", "--no-probe", "op", "--issuer", "https://op.example", "--client-id", "c1", "--par", "always", "--dpop", "never"])
        #expect(added.exitCode == 0, "\(added)")
        let file = home.root.appendingPathComponent("config/authdeck/providers.json")
        let providers = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]])
        #expect(providers.first?["par"] as? String == "always" && providers.first?["dpop"] as? String == "never")
        let show = try await home.run(["provider", "show", "op"])
        #expect(show.stdout.contains("pushed authorization requests (RFC 9126): always\nDPoP (RFC 9449): never\n"), "\(show.stdout)")
    }

    @Test("Sign in with Apple: provider add --apple-key/--apple-team-id/--apple-key-id keeps the key's path and ids (client_secret_post); ids are checked")
    func appleKeyStored() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let bad = try await home.run(["provider", "add", "apple", "--issuer", "https://appleid.apple.com", "--client-id", "com.example.web",
                                      "--apple-key", "/keys/AuthKey.p8", "--apple-team-id", "short", "--apple-key-id", "ABC123DEFG"])
        #expect(bad.exitCode == 2 && bad.stderr.contains("--apple-team-id must be 10 characters"), "\(bad)")
        let added = try await home.run(["provider", "add", "--no-probe", "apple", "--issuer", "https://appleid.apple.com", "--client-id", "com.example.web",
                                        "--apple-key", "/keys/AuthKey.p8", "--apple-team-id", "TEAM123456", "--apple-key-id", "ABC123DEFG"])
        #expect(added.exitCode == 0, "\(added)")
        let file = home.root.appendingPathComponent("config/authdeck/providers.json")
        let providers = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]])
        let apple = try #require(providers.first?["appleClientSecret"] as? [String: Any])
        #expect(apple["keyPath"] as? String == "/keys/AuthKey.p8" && apple["teamID"] as? String == "TEAM123456" && apple["keyID"] as? String == "ABC123DEFG")
        #expect(providers.first?["clientAuthentication"] as? String == "client_secret_post")
        let show = try await home.run(["provider", "show", "apple"])
        #expect(show.stdout.contains("Apple client secret: minted from /keys/AuthKey.p8 (team id TEAM123456, key id ABC123DEFG), renewed before it expires"), "\(show.stdout)")
        #expect(show.stdout.contains("DPoP (RFC 9449): auto"), "unset is the default auto: \(show.stdout)")
    }
}
