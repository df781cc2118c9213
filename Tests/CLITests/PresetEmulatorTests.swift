// The other presets (Google, Microsoft Entra ID, Okta, Keycloak, GitLab) through the real binary
// against their emulators (Tests/ProviderEmulators/oidc_presets.py): `provider add --preset` with
// the issuer moved to the emulator, discovery, sign-in, refresh, and each provider's quirk.
import Foundation
import Testing

@Suite("Preset emulators: Google, Entra, Okta, Keycloak, GitLab through the CLI", .serialized)
struct PresetEmulatorTests {
    struct Started {
        let emulator: ProviderEmulator
        let issuer: String
        var home: CLIHome
    }

    /// Starts the emulator, makes a home whose $BROWSER approves, and adds provider `name`.
    func start(_ mode: String, emulatorArguments: [String] = [], addArguments: (String) -> [String], stdin: Data? = nil) async throws -> Started {
        let emulator = try await ProviderEmulator.start(mode, emulatorArguments)
        let ready = try #require(try await emulator.state()["token_requests"] as? [Any])
        #expect(ready.isEmpty)
        var home = try CLIHome()
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path
        let issuer = try await issuerOf(emulator, mode)
        let added = try await home.run(["provider", "add", mode, "--client-id", emulator.clientID] + addArguments(issuer), stdin: stdin)
        try #require(added.exitCode == 0, "provider add: \(added)")
        return Started(emulator: emulator, issuer: issuer, home: home)
    }

    func issuerOf(_ emulator: ProviderEmulator, _ mode: String) async throws -> String {
        switch mode {
        case "entra": emulator.baseURL + "/common/v2.0"
        case "okta": emulator.baseURL + "/oauth2/aus-custom"
        case "keycloak": emulator.baseURL + "/realms/staff"
        default: emulator.baseURL
        }
    }

    func account(_ home: CLIHome) async throws -> [String: Any] {
        let (_, status) = try await home.statusJSON()
        return try #require((status["accounts"] as? [[String: Any]])?.first, "\(status)")
    }

    @Test("Google: desktop client secret, access_type=offline and prompt=consent sent; a refresh answer without refresh_token keeps the old one")
    func googleRefreshKeepsRefreshToken() async throws {
        let s = try await start("google", addArguments: { ["--preset", "google", "--issuer", $0, "--client-secret-stdin"] },
                                stdin: Data("google-desktop-secret\n".utf8))
        defer { s.home.remove() }
        let login = try await s.home.run(["login", "google"])
        try #require(login.exitCode == 0, "login: \(login)")
        let authorize = try #require((try await s.emulator.state()["authorize_requests"] as? [[String: Any]])?.last)
        #expect(authorize["access_type"] as? String == "offline" && authorize["prompt"] as? String == "consent")
        for round in 1...2 {
            let refreshed = try await s.home.run(["refresh", "google"])
            #expect(refreshed.exitCode == 0, "refresh \(round): \(refreshed)")
        }
        #expect(try await s.emulator.state()["refreshes"] as? Int == 2, "the kept refresh token worked twice")
        #expect((try await account(s.home)["refreshToken"] as? [String: Any])?["present"] as? Bool == true)
        await s.emulator.stop()
    }

    @Test("Google device flow: the device answer's verification_url is shown (RFC 8628 3.2 names it verification_uri)")
    func googleDeviceVerificationURL() async throws {
        let s = try await start("google", addArguments: { ["--preset", "google", "--issuer", $0, "--client-secret-stdin"] },
                                stdin: Data("google-desktop-secret\n".utf8))
        defer { s.home.remove() }
        let login = try s.home.start(["login", "google", "--device"])
        let userCode = await login.waitForStderr(#"enter the code: (\S+)"#)
        let code = try #require(userCode, "no user code on stderr: \(login.stderrText)")
        #expect(login.stderrText.contains("\(s.emulator.baseURL)/device"), "the verification_url is shown: \(login.stderrText)")
        try await s.emulator.device("approve", userCode: code)
        let finished = await login.wait(timeout: 40)
        #expect(finished.exitCode == 0, "\(finished)")
        #expect((try await account(s.home)["refreshToken"] as? [String: Any])?["present"] as? Bool == true)
        await s.emulator.stop()
    }

    @Test("DEV-03: a relative verification_uri_complete is dropped with a note; verification_uri and the code are printed and the device sign-in completes")
    func relativeVerificationURIComplete() async throws {
        let s = try await start("google", emulatorArguments: ["--verification-uri-complete", "relative"],
                                addArguments: { ["--preset", "google", "--issuer", $0, "--client-secret-stdin"] },
                                stdin: Data("google-desktop-secret\n".utf8))
        defer { s.home.remove() }
        let login = try s.home.start(["login", "google", "--device"])
        let userCode = await login.waitForStderr(#"enter the code: (\S+)"#)
        let code = try #require(userCode, "no user code on stderr: \(login.stderrText)")
        #expect(login.stderrText.contains("To sign in, visit \(s.emulator.baseURL)/device\n"), "verification_uri is printed: \(login.stderrText)")
        #expect(login.stderrText.contains("note: The provider's verification_uri_complete is a relative reference, not an absolute URI"), "\(login.stderrText)")
        #expect(!login.stderrText.contains("(or open"), "the unusable URI is not offered")
        try await s.emulator.device("approve", userCode: code)
        let finished = await login.wait(timeout: 40)
        #expect(finished.exitCode == 0, "\(finished)")
        await s.emulator.stop()
    }

    @Test("Entra common: discovery issuer with {tenantid} accepted and replaced by tid only for a marked multi-tenant authority; keys without alg; expires_in as a string")
    func entraTenantTemplate() async throws {
        var s = try await start("entra", addArguments: { ["--preset", "entra", "--issuer", $0, "--no-probe"] })
        defer { s.home.remove() }
        let refused = try await s.home.run(["login", "entra"])
        #expect(refused.exitCode != 0, "off Microsoft's hosts and unmarked, {tenantid} is not replaced: \(refused)")
        #expect(try await s.home.run(["provider", "remove", "entra"]).exitCode == 0)
        // The probe of `provider add` reads discovery as sign-in does: unmarked, it is refused at once.
        let probed = try await s.home.run(["provider", "add", "entra", "--preset", "entra", "--issuer", s.issuer, "--client-id", s.emulator.clientID])
        #expect(probed.exitCode == 1 && probed.stderr.contains("{tenantid}"), "\(probed)")
        let added = try await s.home.run(["provider", "add", "entra", "--preset", "entra", "--issuer", s.issuer,
                                          "--client-id", s.emulator.clientID, "--multi-tenant-entra"])
        try #require(added.exitCode == 0, "\(added)")
        s.home.environment["AUTHDECK_ACCOUNT"] = nil
        let login = try await s.home.run(["login", "entra"])
        try #require(login.exitCode == 0, "login: \(login)")
        let account = try await account(s.home)
        let idToken = try #require(account["idToken"] as? [String: Any])
        #expect((idToken["signature"] as? [String: Any])?["verified"] as? Bool == true, "\(idToken)")
        let access = try #require(account["accessToken"] as? [String: Any])
        #expect(access["expiresAt"] is String, "expires_in \"3599\" read as seconds: \(access)")
        let refreshed = try await s.home.run(["refresh", "entra"])
        #expect(refreshed.exitCode == 0, "\(refreshed)")
        await s.emulator.stop()
    }

    @Test("Okta: --tenant selects a custom authorization server (issuer /oauth2/{server}); sign-in and refresh")
    func oktaCustomAuthorizationServer() async throws {
        let emulator = try await ProviderEmulator.start("okta", ["--tenant", "aus-custom"])
        var home = try CLIHome()
        defer { home.remove() }
        home.environment["BROWSER"] = ProviderEmulator.directory.appendingPathComponent("browser").path
        // A user preset pointing the okta preset's {domain} at the emulator over loopback HTTP.
        let folder = URL(fileURLWithPath: home.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("authdeck/presets")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let preset = try String(contentsOf: packageRoot.appendingPathComponent("presets/okta.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"https://{domain}/oauth2/{tenant}\"", with: "\"http://{domain}/oauth2/{tenant}\"")
        try Data(preset.utf8).write(to: folder.appendingPathComponent("okta.json"))
        let host = String(emulator.baseURL.dropFirst("http://".count))
        let added = try await home.run(["provider", "add", "okta", "--preset", "okta", "--domain", host, "--tenant", "aus-custom",
                                        "--client-id", emulator.clientID])
        try #require(added.exitCode == 0, "\(added)")
        let shown = try jsonObject(try await home.run(["provider", "show", "okta", "--json"]).stdout)
        #expect(shown["issuer"] as? String == emulator.baseURL + "/oauth2/aus-custom")
        let login = try await home.run(["login", "okta"])
        try #require(login.exitCode == 0, "login: \(login)")
        #expect(try await account(home)["issuer"] as? String == emulator.baseURL + "/oauth2/aus-custom")
        #expect(try await home.run(["refresh", "okta"]).exitCode == 0)
        await emulator.stop()
    }

    @Test("Keycloak: refresh_expires_in gives the refresh-token countdown; realm and client roles in the ID token; a JWKS enc key with the sig key's kid is skipped")
    func keycloakRefreshCountdownRolesDuplicateKid() async throws {
        let s = try await start("keycloak", addArguments: { ["--preset", "keycloak", "--domain", "sso.example", "--tenant", "staff", "--issuer", $0] })
        defer { s.home.remove() }
        let login = try await s.home.run(["login", "keycloak"])
        try #require(login.exitCode == 0, "login: \(login)")
        let account = try await account(s.home)
        #expect(((account["idToken"] as? [String: Any])?["signature"] as? [String: Any])?["verified"] as? Bool == true)
        let refresh = try #require(account["refreshToken"] as? [String: Any])
        let left = try #require(refresh["secondsLeft"] as? Int, "\(refresh)")
        #expect(left > 1700 && left <= 1800, "refresh_expires_in 1800")
        let id = try await s.home.run(["token", "keycloak", "--id-token"])
        let claims = try #require(try jsonObject(try await s.home.run(["decode", "--json"], stdin: Data(id.stdout.utf8)).stdout)["claims"] as? [String: Any])
        #expect((claims["realm_access"] as? [String: Any])?["roles"] as? [String] == ["offline_access", "staff"])
        #expect(((claims["resource_access"] as? [String: Any])?[s.emulator.clientID] as? [String: Any])?["roles"] as? [String] == ["editor"])
        #expect(try await s.home.run(["refresh", "keycloak"]).exitCode == 0)
        await s.emulator.stop()
    }

    @Test("Keycloak's refresh_expires_in (1800 s) within --ending-soon: check says ending_soon once, with the date, to the hook; a threshold below it is recovered")
    func keycloakEndingSoon() async throws {
        let s = try await start("keycloak", addArguments: { ["--preset", "keycloak", "--domain", "sso.example", "--tenant", "staff", "--issuer", $0] })
        defer { s.home.remove() }
        try #require(try await s.home.run(["login", "keycloak"]).exitCode == 0)
        let log = s.home.root.appendingPathComponent("events.log")
        let arguments = ["check", "--backstop", "0", "--ending-soon", "3600", "--json", "--hook", "echo \"$AUTHDECK_EVENT\" >> '\(log.path)'"]
        var told: [[String]] = []
        for round in 1...2 {
            let result = try await s.home.run(arguments)
            #expect(result.exitCode == 0, "ending soon is not a failure (round \(round)): \(result)")
            let account = try #require(try CheckCommandTests.accounts(result).first)
            #expect(account["verdict"] as? String == "ending_soon", "\(account)")
            let ends = try #require(parseRFC3339(account["endsAt"]), "\(account)")
            #expect(ends.timeIntervalSinceNow > 1700 && ends.timeIntervalSinceNow <= 1800, "refresh_expires_in from the refresh: \(ends)")
            told.append(account["told"] as? [String] ?? [])
        }
        #expect(told == [["refreshed", "ending_soon"], ["refreshed"]], "told once")
        let text = try await s.home.run(["check", "--ending-soon", "3600"])
        #expect(text.stdout.hasPrefix("ending_soon") && text.stdout.contains("the refresh token ends soon (20"), "the date: \(text.stdout)")
        let later = try await s.home.run(["check", "--ending-soon", "600", "--json", "--hook", "echo \"$AUTHDECK_EVENT\" >> '\(log.path)'"])
        #expect((try CheckCommandTests.accounts(later).first?["told"] as? [String]) == ["recovered"], "\(later)")
        #expect(try String(contentsOf: log, encoding: .utf8) == "refreshed\nending_soon\nrefreshed\nrecovered\n")
        await s.emulator.stop()
    }

    @Test("GitLab: every refresh rotates the refresh token; authdeck always sends the newest (a reused one would be invalid_grant)")
    func gitLabRotationEveryRefresh() async throws {
        let s = try await start("gitlab", addArguments: { ["--preset", "gitlab", "--issuer", $0] })
        defer { s.home.remove() }
        let login = try await s.home.run(["login", "gitlab"])
        try #require(login.exitCode == 0, "login: \(login)")
        for round in 1...3 {
            let refreshed = try await s.home.run(["refresh", "gitlab"])
            #expect(refreshed.exitCode == 0, "refresh \(round): \(refreshed)")
        }
        let state = try await s.emulator.state()
        #expect(state["refreshes"] as? Int == 3)
        #expect(state["refresh_reuse"] as? Int == 0, "a spent refresh token was never sent again")
        await s.emulator.stop()
    }
}
