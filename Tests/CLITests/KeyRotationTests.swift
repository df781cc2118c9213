import Foundation
import Testing
import TestSupport

/// The real local provider rotates its signing key (OIDC Core §10.1.1) seconds after
/// authdeck fetched its JWKS; the shipped binary finds the new key at once. Each test has its own
/// provider (its key and JWKS are changed) and its own home (its own JWKS cache file).
@Suite("Key rotation against the real local provider (OIDC Core §10.1.1)", .serialized)
struct KeyRotationTests {
    /// The `kid` that verified the account's ID token (`status --json`), or nil.
    static func verifiedKeyID(_ home: CLIHome, handle: String) async throws -> String? {
        let (_, status) = try await home.statusJSON()
        let accounts = try #require(status["accounts"] as? [[String: Any]])
        let account = try #require(accounts.first { $0["handle"] as? String == handle }, "\(handle) in \(accounts.map { $0["handle"] })")
        let signature = (account["idToken"] as? [String: Any])?["signature"] as? [String: Any]
        return signature?["verified"] as? Bool == true ? signature?["keyId"] as? String : nil
    }

    @Test("JWKS-04: the provider rotates its key between two sign-ins seconds apart; the second sign-in verifies with the new key")
    func rotationBetweenTwoSignIns() async throws {
        let idp = try await LocalIdentityProvider.start(fixtureControl: true)
        defer { Task { await idp.stop() } }
        let home = try await signedInHome(idp, user: "alice")
        defer { home.remove() }
        let started = Date()
        let kid = try await idp.rotateSigningKey()
        try await home.login(user: "bob")
        #expect(Date().timeIntervalSince(started) < 30, "inside the old 30 s cool-down, or the test proves nothing")
        #expect(try await Self.verifiedKeyID(home, handle: "local/bob") == kid)
    }

    @Test("JWKS-04: a refresh right after sign-in whose new ID token is signed with a rotated key verifies")
    func rotationBeforeRefresh() async throws {
        let idp = try await LocalIdentityProvider.start(fixtureControl: true)
        defer { Task { await idp.stop() } }
        let home = try await signedInHome(idp, user: "alice")
        defer { home.remove() }
        let kid = try await idp.rotateSigningKey()
        let refresh = try await home.run(["refresh", "alice"])
        #expect(refresh.exitCode == 0, "\(refresh)")
        #expect(try await Self.verifiedKeyID(home, handle: "local/alice") == kid)
    }

    @Test("The JWKS answers 503 during one refresh; the next refresh, seconds later, looks the key up again and verifies")
    func jwksOutageThenNextRefresh() async throws {
        let idp = try await LocalIdentityProvider.start(fixtureControl: true)
        defer { Task { await idp.stop() } }
        let home = try await signedInHome(idp, user: "alice")
        defer { home.remove() }
        let before = try await Self.verifiedKeyID(home, handle: "local/alice")
        let kid = try await idp.rotateSigningKey()
        try await idp.setJWKSStatus(503)
        let failed = try await home.run(["refresh", "alice"])
        #expect(failed.exitCode != 0, "the new ID token could not be checked: \(failed)")
        #expect(failed.stderr.contains("503"), "\(failed)")
        #expect(try await Self.verifiedKeyID(home, handle: "local/alice") == before, "the verified ID token stays")
        try await idp.setJWKSStatus(200)
        let refresh = try await home.run(["refresh", "alice"])
        #expect(refresh.exitCode == 0, "\(refresh)")
        #expect(try await Self.verifiedKeyID(home, handle: "local/alice") == kid)
    }
}
