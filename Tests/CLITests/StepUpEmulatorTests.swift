import Foundation
import TestSupport
import Testing

/// Step-up sign-in (RFC 9470) with the real binary against the Auth0 emulator, which honours `acr_values`/`max_age` at
/// `/authorize` and serves `/api/step-up` (401 `insufficient_user_authentication` until the token carries its acr).
@Suite("Step-up sign-in against the Auth0 emulator (RFC 9470)", .serialized)
struct StepUpEmulatorTests {
    static let acr = "urn:emulator:mfa"

    func signedIn(_ mode: String) async throws -> (ProviderEmulator, CLIHome) {
        let emulator = try await ProviderEmulator.start("auth0", ["--step-up", mode])
        var home = try CLIHome()
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path
        let added = try await home.run(["provider", "add", "a0", "--issuer", emulator.baseURL + "/", "--client-id", emulator.clientID])
        try #require(added.exitCode == 0, "provider add: \(added)")
        let login = try await home.run(["login", "a0"])
        try #require(login.exitCode == 0, "login: \(login)")
        return (emulator, home)
    }

    @Test("Script: api exits 8 naming the login; that login sends acr_values and max_age; api then passes; status shows acr")
    func scriptStepsUpByCommand() async throws {
        let (emulator, home) = try await signedIn("honour")
        defer { home.remove() }
        let url = emulator.baseURL + "/api/step-up"
        let refused = try await home.run(["api", "a0", url])
        #expect(refused.exitCode == 8, "\(refused)")
        #expect(refused.stderr.contains("--acr-values '\(Self.acr)' --max-age 300"), "\(refused.stderr)")
        let scope = try #require(refused.stderr.components(separatedBy: "--scope '").dropFirst().first?.components(separatedBy: "'").first)
        #expect(scope.contains("openid"), "the held scopes are kept: \(scope)")

        let stepUp = try await home.run(["login", "a0", "--scope", scope, "--acr-values", Self.acr, "--max-age", "300"])
        #expect(stepUp.exitCode == 0, "\(stepUp)")
        let authorize = try #require((try await emulator.state()["authorize_requests"] as? [[String: Any]])?.last)
        #expect(authorize["acr_values"] as? String == Self.acr && authorize["max_age"] as? String == "300", "\(authorize)")

        let again = try await home.run(["api", "a0", url])
        #expect(again.exitCode == 0, "\(again)")
        let (_, status) = try await home.statusJSON()
        let idToken = try #require(((status["accounts"] as? [[String: Any]])?.first?["idToken"]) as? [String: Any])
        #expect(idToken["acr"] as? String == Self.acr && idToken["authTime"] is String, "\(idToken)")
        let text = try await home.run(["status"])
        #expect(text.stdout.contains("    authentication: acr \(Self.acr), authenticated "), "\(text.stdout)")
        await emulator.stop()
    }

    @Test("At a terminal: api signs in once with acr_values and max_age (the browser stand-in), sends the request again, exit 0")
    func terminalStepsUpOnce() async throws {
        let (emulator, home) = try await signedIn("honour")
        defer { home.remove() }
        let tmux = try TmuxSession(width: 200, height: 40, command: "/bin/bash --norc --noprofile -i", environment: home.environment)
        defer { tmux.kill() }
        try tmux.sendKeys("-l", "\(ShippedBinary.path) api a0 \(emulator.baseURL)/api/step-up; echo DONE-\"\"$?\n")
        // The typed line shows `DONE-""$?`; only the echo prints DONE- and a digit.
        let screen = try await tmux.waitFor("api's end", timeout: 30) { $0.range(of: "DONE-[0-9]", options: .regularExpression) != nil }
        #expect(screen.contains("DONE-0") && screen.contains("asks for a stronger sign-in") && screen.contains("Stepped up"), "\(screen)")
        let state = try await emulator.state()
        let authorize = try #require((state["authorize_requests"] as? [[String: Any]])?.last)
        #expect(authorize["acr_values"] as? String == Self.acr && authorize["max_age"] as? String == "300", "\(authorize)")
        #expect(state["step_up_requests"] as? Int == 2, "the first answer asked, the second passed")
        await emulator.stop()
    }

    @Test("A provider answering a lower acr, or no auth_time though max_age was sent: refused by name, the earlier grant kept",
          arguments: [("lower-acr", "Authentication not strong enough"), ("omit-auth-time", "auth_time")])
    func refusals(mode: String, named: String) async throws {
        let (emulator, home) = try await signedIn(mode)
        defer { home.remove() }
        let before = try await home.run(["token", "a0"])
        let stepUp = try await home.run(["login", "a0", "--acr-values", Self.acr, "--max-age", "300"])
        #expect(stepUp.exitCode == 1 && stepUp.stderr.contains(named), "\(stepUp)")
        let after = try await home.run(["token", "a0"])
        #expect(after.exitCode == 0 && after.stdout == before.stdout, "the earlier grant stays")
        await emulator.stop()
    }
}
