// Damaged files with the real binary and real files: each damage is named with its file,
// nothing is overwritten without `doctor --repair`, and `doctor --repair` moves the damaged
// file aside (0600, its bytes kept) and drops orphaned secrets. No provider is needed.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("CLI: damaged files and doctor", .serialized)
struct DamagedFilesTests {
    /// One account record as authdeck writes it (no tokens: those are in the store).
    static func record(_ subject: String, provider: String = "p") -> String {
        #"{"id":"\#(provider)/\#(subject)","providerID":"\#(provider)","issuer":"https://op.example.test","subject":"\#(subject)","displayName":"\#(subject.capitalized)","requestedScopes":["openid"],"grantedScopes":["openid"],"accessTokens":[],"hasRefreshToken":true,"signedInAt":"2026-11-30T10:00:00Z","storage":"plaintext"}"#
    }

    static let accounts = "[\(record("alice"))]\n"

    /// A home with the provider `p` (client secret in the store) and the record of alice.
    static func home(store: String = "plaintext") async throws -> CLIHome {
        var home = try CLIHome()
        home.environment["AUTHDECK_STORE"] = store
        let added = try await home.run(["provider", "add", "--no-probe", "p", "--issuer", "https://op.example.test", "--client-id", "cid", "--client-secret-stdin"],
                                       stdin: Data("test-client-secret\n".utf8))
        try #require(added.exitCode == 0, "provider add: \(added)")
        try home.write(.state, "accounts.json", accounts)
        return home
    }

    @Test("A truncated accounts.json: status says 'file damaged' naming the file and exits 5; token exits 5; nothing is overwritten")
    func truncatedAccounts() async throws {
        let home = try await Self.home()
        defer { home.remove() }
        let damaged = String(Self.accounts.prefix(60))
        try home.write(.state, "accounts.json", damaged)
        let path = home.path(.state, "accounts.json")
        let status = try await home.run(["status"])
        #expect(status.exitCode == 5, "\(status)")
        #expect(status.stdout.contains("file damaged: \(path): truncated"))
        #expect(status.stderr.contains("authdeck doctor"))
        let (json, object) = try await home.statusJSON()
        #expect(json.exitCode == 5)
        let damage = try #require((object["store"] as? [String: Any])?["damaged"] as? [[String: String]])
        #expect(damage.first?["file"] == path && damage.first?["damage"]?.contains("truncated") == true)
        let token = try await home.run(["token"])
        #expect(token.exitCode == 5 && token.stdout.isEmpty, "\(token)")
        #expect(token.stderr.contains(path) && token.stderr.contains("authdeck doctor"))
        for arguments in [["switch", "alice"], ["logout", "--local-only", "alice"], ["refresh"], ["login", "p", "--no-browser"], ["doctor"]] {
            let result = try await home.run(arguments)
            #expect(result.exitCode == 5, "\(arguments): \(result)")
        }
        #expect(try home.read(.state, "accounts.json") == damaged, "nothing was overwritten")
    }

    @Test("A doubled accounts.json (two documents concatenated) is named as written twice; doctor --repair moves it aside (0600, same bytes)")
    func doubledAccounts() async throws {
        let home = try await Self.home()
        defer { home.remove() }
        let doubled = Self.accounts + Self.accounts
        try home.write(.state, "accounts.json", doubled)
        let status = try await home.run(["status"])
        #expect(status.exitCode == 5)
        #expect(status.stdout.contains("two JSON documents"), "\(status)")
        let doctor = try await home.run(["doctor"])
        #expect(doctor.exitCode == 5)
        #expect(doctor.stdout.contains("damaged  \(home.path(.state, "accounts.json")): two JSON documents"), "\(doctor.stdout)")
        #expect(try home.read(.state, "accounts.json") == doubled, "doctor without --repair changes nothing")
        let repair = try await home.run(["doctor", "--repair"])
        #expect(repair.stderr.contains("✓ move aside \(home.path(.state, "accounts.json"))"), "\(repair)")
        let aside = try #require(home.files(.state).first { $0.hasPrefix("accounts.json.damaged-") })
        #expect(try home.read(.state, aside) == doubled)
        #expect(home.mode(.state, aside) == 0o600)
        let after = try await home.run(["status"])
        #expect(after.exitCode == 0, "\(after)")
    }

    @Test("A damaged vault (one flipped byte): status exits 5 naming it; logout --local-only removes the record; doctor --repair moves it aside")
    func damagedVault() async throws {
        let home = try await Self.home(store: "vault")
        defer { home.remove() }
        let vault = home.path(.data, "secrets.vault")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: vault))
        bytes[bytes.count - 3] ^= 0x01
        try home.write(.data, "secrets.vault", bytes)
        let status = try await home.run(["status"])
        #expect(status.exitCode == 5, "\(status)")
        #expect(status.stdout.contains("status: file damaged"))
        #expect(status.stdout.contains("file damaged: \(vault): authentication failed"))
        let (_, object) = try await home.statusJSON()
        let accounts = try #require(object["accounts"] as? [[String: Any]])
        #expect(accounts.first?["status"] as? String == "file damaged")
        let logout = try await home.run(["logout", "--local-only", "alice"])
        #expect(logout.exitCode == 0, "\(logout)")
        #expect(logout.stderr.contains("doctor --repair"))
        #expect(try home.read(.state, "accounts.json").contains("alice") == false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: vault)) == bytes, "the damaged vault is not written over")
        let repair = try await home.run(["doctor", "--repair"])
        #expect(repair.stderr.contains("✓ move aside \(vault)"), "\(repair)")
        let aside = try #require(home.files(.data).first { $0.hasPrefix("secrets.vault.damaged-") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.path(.data, aside))) == bytes)
        #expect(home.mode(.data, aside) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: vault))
    }

    @Test("A corrupt active.json blocks nothing: a warning on stderr, the only account is the default; switch keeps the damaged file aside")
    func corruptActive() async throws {
        let home = try await Self.home()
        defer { home.remove() }
        try home.write(.state, "active.json", "{\"account\": 12")
        let status = try await home.run(["status"])
        #expect(status.exitCode == 0, "\(status)")
        #expect(status.stderr.contains("warning: \(home.path(.state, "active.json")) is damaged"))
        let token = try await home.run(["token", "alice"])
        #expect(token.exitCode != 5, "active.json does not block: \(token)")
        // One account and no readable active one: that account is the default (AccountResolution).
        let byDefault = try await home.run(["token"])
        #expect(byDefault.exitCode == token.exitCode, "\(byDefault)")
        #expect(!byDefault.stderr.contains("No active account"), "\(byDefault.stderr)")
        let switched = try await home.run(["switch", "alice"])
        #expect(switched.exitCode == 0, "\(switched)")
        #expect(try home.read(.state, "active.json").contains("\"account\": \"p/alice\""))
        let aside = try #require(home.files(.state).first { $0.hasPrefix("active.json.damaged-") })
        #expect(try home.read(.state, aside) == "{\"account\": 12")
        #expect(home.mode(.state, aside) == 0o600)
    }

    @Test("doctor lists orphaned secrets and doctor --repair deletes them, keeping the configured provider's client secret")
    func orphanedSecrets() async throws {
        let home = try await Self.home()
        defer { home.remove() }
        let secrets = #"{"version": 1, "accounts": [{"provider": "p", "account": "", "secrets": {"clientSecret": "test-client-secret", "resourceAccessTokens": {}}}, {"provider": "p", "account": "alice", "secrets": {"refreshToken": "test-rt-alice", "resourceAccessTokens": {}}}, {"provider": "p", "account": "bob", "secrets": {"refreshToken": "test-rt-bob", "resourceAccessTokens": {}}}, {"provider": "gone", "account": "", "secrets": {"clientSecret": "test-old", "resourceAccessTokens": {}}}]}"#
        try home.write(.data, "secrets.insecure.json", secrets)
        let doctor = try await home.run(["doctor", "--json"])
        #expect(doctor.exitCode == 1, "\(doctor)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [String: Any])
        #expect(report["orphanedSecrets"] as? [String] == ["gone (client secret)", "p/bob"])
        #expect(report["healthy"] as? Bool == false)
        #expect(!doctor.stdout.contains("test-rt") && !doctor.stderr.contains("test-rt"), "no secret in the output")
        let repair = try await home.run(["doctor", "--repair"])
        #expect(repair.exitCode == 0, "\(repair)")
        #expect(repair.stderr.contains("✓ delete orphaned secret p/bob"))
        let left = try home.read(.data, "secrets.insecure.json")
        #expect(!left.contains("test-rt-bob") && !left.contains("test-old"))
        #expect(left.contains("test-rt-alice") && left.contains("test-client-secret"))
        let again = try await home.run(["doctor"])
        #expect(again.exitCode == 0 && again.stdout.contains("orphaned secrets: none"), "\(again)")
    }
}

@Suite("CLI: doctor in completion")
struct DoctorCompletionTests {
    @Test("Completion scripts offer doctor and its --repair and --json options", arguments: ["bash", "zsh", "fish"])
    func completion(_ shell: String) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(["completion", shell])
        #expect(result.exitCode == 0)
        #expect(result.stdout.contains("doctor") && result.stdout.contains("repair"), "\(shell)")
    }
}

extension CLIHome {
    enum Area: String { case config, state, data }

    func path(_ area: Area, _ name: String) -> String { root.appendingPathComponent("\(area.rawValue)/authdeck/\(name)").path }

    func write(_ area: Area, _ name: String, _ text: String) throws { try write(area, name, Data(text.utf8)) }

    func write(_ area: Area, _ name: String, _ data: Data) throws {
        let directory = root.appendingPathComponent("\(area.rawValue)/authdeck")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = path(area, name)
        if FileManager.default.fileExists(atPath: path) {
            try data.write(to: URL(fileURLWithPath: path))
        } else {
            #expect(FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]))
        }
    }

    func read(_ area: Area, _ name: String) throws -> String { try String(contentsOfFile: path(area, name), encoding: .utf8) }

    func files(_ area: Area) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("\(area.rawValue)/authdeck").path)) ?? []
    }

    func mode(_ area: Area, _ name: String) -> mode_t {
        var st = stat()
        return stat(path(area, name), &st) == 0 ? st.st_mode & 0o777 : 0
    }
}

@Suite("TUI: damaged files (real binary under tmux)", .serialized)
struct DamagedFilesTUITests {
    @Test("With a truncated accounts.json the accounts screen says 'file damaged', names the file and says to run 'authdeck doctor' (not 'No accounts' or 'No provider configured')")
    func damagedAccounts() async throws {
        try #require(TestSupport.TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        let home = try await DamagedFilesTests.home()
        defer { home.remove() }
        let damaged = String(DamagedFilesTests.accounts.prefix(60))
        try home.write(.state, "accounts.json", damaged)
        let command = "env TERM=tmux-256color '\(authdeckBinary.replacingOccurrences(of: "'", with: #"'\''"#))'; echo TUI-EXIT-STATUS=$?; exec sleep 600"
        let t = try TestSupport.TmuxSession(width: 120, height: 30, command: command, environment: home.environment)
        defer { t.kill() }
        let screen = try await t.waitFor("file damaged") { $0.contains("file damaged") && $0.contains("run 'authdeck doctor'") }
        #expect(screen.contains("accounts.json"))
        #expect(!screen.contains("No accounts"))
        try t.sendKeys("l")
        try await Task.sleep(for: .milliseconds(500))
        let afterSignIn = try t.capture()
        #expect(afterSignIn.contains("file damaged") && !afterSignIn.contains("No provider configured"), "\(afterSignIn)")
        try t.sendKeys("q")
        _ = try await t.waitFor("exit") { $0.contains("TUI-EXIT-STATUS=") }
        #expect(try home.read(.state, "accounts.json") == damaged, "the TUI wrote nothing over it")
    }
}
