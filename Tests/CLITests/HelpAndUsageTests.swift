// Golden `--help` for every command, usage errors (exit 2) and the other exit codes that need
// no provider: a table in gh's style.
import Foundation
import Testing

@Suite("CLI help and usage")
struct HelpAndUsageTests {
    static let commands: [[String]] = [
        [], ["login"], ["logout"], ["status"], ["switch"], ["which"], ["bind"], ["unbind"], ["prompt"], ["token"], ["exec"], ["check"], ["git-credential"], ["setup-git"], ["docker-credential"], ["proof"], ["apple"], ["apple", "client-secret"], ["refresh"], ["userinfo"], ["introspect"],
        ["decode"], ["api"], ["provider"], ["provider", "add"], ["provider", "set"], ["provider", "list"], ["provider", "show"],
        ["provider", "remove"], ["provider", "presets"], ["lock"], ["passphrase"], ["doctor"], ["completion"],
    ]

    @Test("--help of every command matches its golden (argument-parser style)", arguments: commands)
    func help(_ path: [String]) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(path + ["--help"])
        #expect(result.exitCode == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        try assertSnapshot(result.stdout, named: (["authdeck"] + path).joined(separator: "-"))
    }

    @Test("-h is --help")
    func shortHelp() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let long = try await home.run(["token", "--help"])
        let short = try await home.run(["token", "-h"])
        #expect(long.stdout == short.stdout && short.exitCode == 0)
    }

    struct UsageCase: Sendable, CustomStringConvertible {
        var name: String
        var arguments: [String]
        var description: String { name }
    }

    static let usageCases: [UsageCase] = [
        UsageCase(name: "unknown command", arguments: ["frobnicate"]),
        UsageCase(name: "unknown option", arguments: ["status", "--colour"]),
        UsageCase(name: "flag given a value", arguments: ["status", "--json=yes"]),
        UsageCase(name: "option without value", arguments: ["token", "--min-valid"]),
        UsageCase(name: "option given twice", arguments: ["token", "--min-valid", "1", "--min-valid", "2"]),
        UsageCase(name: "--min-valid not a number", arguments: ["token", "--min-valid", "soon"]),
        UsageCase(name: "--min-valid negative", arguments: ["token", "--min-valid=-5"]),
        UsageCase(name: "two output formats", arguments: ["token", "--json", "--exec-credential"]),
        UsageCase(name: "--resource with --id-token", arguments: ["token", "--id-token", "--resource", "https://api.test"]),
        UsageCase(name: "too many arguments", arguments: ["token", "a", "b"]),
        UsageCase(name: "--exchange-for with --resource", arguments: ["token", "--exchange-for", "billing", "--resource", "https://api.test"]),
        UsageCase(name: "--requested-token-type without --exchange-for", arguments: ["token", "--requested-token-type", "jwt"]),
        UsageCase(name: "--requested-token-type unknown", arguments: ["token", "--exchange-for", "billing", "--requested-token-type", "saml"]),
        UsageCase(name: "--exchange-for a URI with a fragment", arguments: ["token", "--exchange-for", "https://api.test/#x"]),
        UsageCase(name: "switch without ACCOUNT", arguments: ["switch"]),
        UsageCase(name: "--device with --no-browser", arguments: ["login", "--device", "--no-browser"]),
        UsageCase(name: "--verify without --issuer", arguments: ["decode", "x.y.z", "--verify", "--audience", "a"]),
        UsageCase(name: "--verify without --audience", arguments: ["decode", "x.y.z", "--verify", "--issuer", "https://op.test"]),
        UsageCase(name: "--issuer without --verify", arguments: ["decode", "x.y.z", "--issuer", "https://op.test"]),
        UsageCase(name: "--nonce and --nonce-sha256", arguments: ["decode", "x.y.z", "--verify", "--issuer", "https://op.test", "--audience", "a", "--nonce", "n", "--nonce-sha256", "n"]),
        UsageCase(name: "api without URL", arguments: ["api"]),
        UsageCase(name: "api with an unknown method", arguments: ["api", "-X", "BREW", "https://api.test/"]),
        UsageCase(name: "api with an Authorization header", arguments: ["api", "-H", "Authorization: Bearer x", "https://api.test/"]),
        UsageCase(name: "provider without subcommand argument", arguments: ["provider", "rename"]),
        UsageCase(name: "provider add without --client-id", arguments: ["provider", "add", "work", "--issuer", "https://op.test"]),
        UsageCase(name: "provider add without issuer or endpoints", arguments: ["provider", "add", "work", "--client-id", "c"]),
        UsageCase(name: "provider add with an unknown preset", arguments: ["provider", "add", "work", "--preset", "myspace", "--client-id", "c"]),
        UsageCase(name: "provider add: non-loopback http issuer refused", arguments: ["provider", "add", "work", "--issuer", "http://op.example.com", "--client-id", "c"]),
        UsageCase(name: "provider add: http endpoint refused", arguments: ["provider", "add", "work", "--token-endpoint", "http://op.example.com/token", "--client-id", "c"]),
        UsageCase(name: "provider add: a host that only starts with 127. is not loopback", arguments: ["provider", "add", "work", "--issuer", "http://127.0.0.1.example.com/o", "--client-id", "c"]),
        UsageCase(name: "provider add: a header with a line break is refused (header injection)", arguments: ["provider", "add", "work", "--issuer", "https://op.test", "--client-id", "c", "--header", "X-A: 1\r\nEvil: 1"]),
        UsageCase(name: "provider add: the name localhost is not a loopback address (RFC 8252 §8.3)", arguments: ["provider", "add", "work", "--issuer", "http://localhost:9/o", "--client-id", "c"]),
        UsageCase(name: "provider add: preset without its --domain", arguments: ["provider", "add", "work", "--preset", "auth0", "--client-id", "c"]),
        UsageCase(name: "provider add: secret method without the secret", arguments: ["provider", "add", "work", "--issuer", "https://op.test", "--client-id", "c", "--client-authentication", "client_secret_post"]),
        UsageCase(name: "completion for an unknown shell", arguments: ["completion", "tcsh"]),
        UsageCase(name: "provider add: issuer with a query (RFC 8414 §2)", arguments: ["provider", "add", "work", "--issuer", "https://op.test/o?x=1", "--client-id", "c"]),
        UsageCase(name: "provider add: issuer with a fragment (RFC 8414 §2)", arguments: ["provider", "add", "work", "--issuer", "https://op.test/o#f", "--client-id", "c"]),
        UsageCase(name: "provider add: issuer with user info", arguments: ["provider", "add", "work", "--issuer", "https://alice:s3cret@op.test/o", "--client-id", "c"]),
        UsageCase(name: "provider add: issuer with port 99999", arguments: ["provider", "add", "work", "--issuer", "https://op.test:99999/o", "--client-id", "c"]),
        UsageCase(name: "provider add: issuer with a trailing newline", arguments: ["provider", "add", "work", "--issuer", "https://op.test/o\n", "--client-id", "c"]),
        UsageCase(name: "provider add: issuer with a trailing space", arguments: ["provider", "add", "work", "--issuer", "https://op.test/o ", "--client-id", "c"]),
        UsageCase(name: "provider add: endpoint with a fragment (RFC 6749 §3.1)", arguments: ["provider", "add", "work", "--token-endpoint", "https://op.test/t#x", "--client-id", "c"]),
        UsageCase(name: "provider add: empty --client-id", arguments: ["provider", "add", "work", "--issuer", "https://op.test/o", "--client-id", ""]),
        UsageCase(name: "provider add: --client-id with a newline", arguments: ["provider", "add", "work", "--issuer", "https://op.test/o", "--client-id", "c\n"]),
        UsageCase(name: "provider add: a preset --domain that makes an issuer with a query", arguments: ["provider", "add", "work", "--preset", "auth0", "--domain", "ex.auth0.com?x=1", "--client-id", "c"]),
        UsageCase(name: "api with user info in the URL", arguments: ["api", "https://alice:s3cret@api.test/"]),
        UsageCase(name: "api with a trailing newline in the URL", arguments: ["api", "https://api.test/items\n"]),
        UsageCase(name: "unknown command followed by --help", arguments: ["wizard", "--help"]),
        UsageCase(name: "unknown command followed by -h", arguments: ["wizard", "-h"]),
        UsageCase(name: "unknown command followed by a command and --help", arguments: ["wizard", "status", "--help"]),
        UsageCase(name: "unknown command followed by --version", arguments: ["wizard", "--version"]),
        UsageCase(name: "unknown provider subcommand followed by --help", arguments: ["provider", "rename", "--help"]),
        UsageCase(name: "unknown command after a root option, with --help", arguments: ["--theme", "light", "wizard", "--help"]),
    ]

    @Test("provider add names what is wrong with the issuer and what to do, and never echoes a password put in it",
          arguments: [
            (["--issuer", "https://op.test/o?x=1"], "has a query ('?x=1'); an issuer identifier has none (RFC 8414 §2)"),
            (["--issuer", "https://op.test/o#f"], "has a fragment ('#f')"),
            (["--issuer", "https://alice:s3cret@op.test/o"], "contains user information (user:password@)"),
            (["--issuer", "https://op.test:99999/o"], "has port 99999, outside 1–65535"),
            (["--issuer", "https://op.test/o\n"], "contains a trailing newline"),
          ])
    func issuerChecks(_ options: [String], _ message: String) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(["provider", "add", "work", "--client-id", "c"] + options)
        #expect(result.exitCode == 2, "\(result)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count >= 3, "message, what to do, usage: \(result.stderr)")
        #expect(!result.stderr.contains("s3cret"))
        let list = try await home.run(["provider", "list", "--json"])
        #expect(!list.stdout.contains("work"), "nothing was saved")
    }

    @Test("api keeps the general URL rules only: a query and a fragment pass the URL check (then: no account, exit 3)")
    func apiURLRules() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(["api", "https://api.test/items?page=2#top"])
        #expect(result.exitCode == 3, "\(result)")
        let secret = try await home.run(["api", "https://alice:s3cret@api.test/"])
        #expect(secret.exitCode == 2 && !secret.stderr.contains("s3cret") && secret.stderr.contains("https://***@api.test/"), "\(secret)")
    }

    @Test("An unknown command is a usage error whatever follows it (wizard --help, wizard -h, provider rename --help)",
          arguments: [["wizard", "--help"], ["wizard", "-h"], ["wizard", "help"], ["provider", "rename", "--help"]])
    func unknownCommandWithHelp(_ arguments: [String]) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(arguments)
        #expect(result.exitCode == 2, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: unknown command '\(arguments[arguments.count - 2])'"), "\(result.stderr)")
        #expect(!result.stderr.contains("OVERVIEW:"))
    }

    @Test("A missing argument is named: api with nothing is missing <url> (the account before it is optional)")
    func missingArgumentIsNamed() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(["api"])
        #expect(result.exitCode == 2 && result.stderr.contains("missing argument <url>"), "\(result)")
        let switchResult = try await home.run(["switch"])
        #expect(switchResult.exitCode == 2 && switchResult.stderr.contains("missing argument <account>"), "\(switchResult)")
    }

    @Test("A duration in seconds is decimal digits: 0x10, 1e3, -5, ' 5', nan and inf are refused by token, exec and check alike",
          arguments: ["0x10", "1e3", "-5", " 5", "nan", "inf", "5.", ".5", "315360001"])
    func durationsAreDecimal(_ text: String) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        for arguments in [["token", "--min-valid", text], ["exec", "--min-valid", text, "--", "true"], ["check", "--backstop", text],
                          ["check", "--ending-soon", text]] {
            let result = try await home.run(arguments)
            #expect(result.exitCode == 2 && result.stderr.contains("must be a number of seconds from 0 to 315360000"), "\(arguments): \(result)")
        }
        let fine = try await home.run(["check", "--backstop", "1.5", "--json"])
        #expect(fine.exitCode != 2, "a fraction is fine: \(fine)")
    }

    @Test("Usage errors exit 2 with the message and the usage line on stderr, nothing on stdout", arguments: usageCases)
    func usageErrors(_ usage: UsageCase) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(usage.arguments, stdin: Data())
        #expect(result.exitCode == 2, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: "), "\(result)")
        // Nothing was written: a usage error comes before any work.
        #expect(!FileManager.default.fileExists(atPath: home.root.appendingPathComponent("config/authdeck/providers.json").path))
    }

    @Test("Without any account: token exits 3 (needs sign-in) and says how to sign in; status exits 0")
    func noAccount() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let token = try await home.run(["token"])
        #expect(token.exitCode == 3, "\(token)")
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("authdeck login"))
        let status = try await home.statusJSON()
        #expect(status.0.exitCode == 0)
        #expect((status.1["accounts"] as? [Any])?.isEmpty == true)
    }

    @Test("A vault whose passphrase is unavailable (no file, no terminal) exits 4 (store locked)")
    func storeLocked() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let missing = home.root.appendingPathComponent("no-such-passphrase-file").path
        let add = try await home.run(["provider", "add", "--no-probe", "p", "--issuer", "https://op.test", "--client-id", "c", "--client-secret-stdin"],
                                     stdin: Data("s3cret".utf8), extra: ["AUTHDECK_PASSPHRASE_FILE": missing])
        #expect(add.exitCode == 4, "\(add)")
        #expect(add.stderr.contains("AUTHDECK_PASSPHRASE_FILE"), "says what to do next")
        #expect(!add.stderr.contains("s3cret"))
    }

    @Test("status with the plaintext store: insecure in --json and a warning line on stderr")
    func plaintextWarning() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(["status", "--json"], extra: ["AUTHDECK_STORE": "plaintext"])
        #expect(result.exitCode == 0, "\(result)")
        let store = try #require(try jsonObject(result.stdout)["store"] as? [String: Any])
        #expect(store["backend"] as? String == "plaintext" && store["insecure"] as? Bool == true)
        #expect(result.stderr.hasPrefix("warning: "), "\(result)")
        let vault = try await home.run(["status", "--json"])
        #expect(vault.stderr.isEmpty, "no warning for the vault")
    }

    @Test("provider add --client-secret-stdin keeps the secret out of argv and the config; remove deletes it")
    func clientSecretLifecycle() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let secret = "cli-test-client-secret-\(UUID().uuidString)"
        let add = try await home.run(["provider", "add", "--no-probe", "conf", "--issuer", "https://op.test", "--client-id", "c", "--client-secret-stdin",
                                      "--client-authentication", "client_secret_post"], stdin: Data((secret + "\n").utf8))
        #expect(add.exitCode == 0, "\(add)")
        let show = try await home.run(["provider", "show", "conf", "--json"])
        #expect(try jsonObject(show.stdout)["clientAuthentication"] as? String == "client_secret_post")
        let config = try String(contentsOf: home.root.appendingPathComponent("config/authdeck/providers.json"), encoding: .utf8)
        #expect(!config.contains(secret) && !show.stdout.contains(secret) && !add.stderr.contains(secret))
        let empty = try await home.run(["provider", "add", "--no-probe", "conf2", "--issuer", "https://op.test", "--client-id", "c", "--client-secret-stdin"], stdin: Data())
        #expect(empty.exitCode == 1, "an empty secret is refused: \(empty)")
        let duplicate = try await home.run(["provider", "add", "conf", "--issuer", "https://op.test", "--client-id", "c"])
        #expect(duplicate.exitCode == 2, "a name in use is an invalid argument: \(duplicate)")
        let remove = try await home.run(["provider", "remove", "conf"])
        #expect(remove.exitCode == 0, "\(remove)")
        let list = try await home.run(["provider", "list", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any])?.isEmpty == true)
        let unknown = try await home.run(["provider", "remove", "conf"])
        #expect(unknown.exitCode == 2, "an unknown provider is an invalid argument: \(unknown)")
    }

    @Test("completion scripts list every command", arguments: ["bash", "zsh", "fish"])
    func completion(_ shell: String) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(["completion", shell])
        #expect(result.exitCode == 0)
        for command in ["login", "logout", "status", "switch", "token", "refresh", "userinfo", "introspect", "decode", "api", "provider",
                        "lock", "passphrase", "completion"] {
            #expect(result.stdout.contains(command), "\(shell) completion lacks \(command)")
        }
    }

    @Test("Presets: provider add --preset fills the documented issuer and quirks", arguments: [
        (["--preset", "auth0", "--domain", "example.eu.auth0.com"], "https://example.eu.auth0.com/"),
        (["--preset", "entra", "--tenant", "contoso.onmicrosoft.com"], "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0"),
        (["--preset", "okta", "--domain", "example.okta.com"], "https://example.okta.com/oauth2/default"),
        (["--preset", "keycloak", "--domain", "sso.example.com", "--tenant", "dev"], "https://sso.example.com/realms/dev"),
        (["--preset", "gitlab"], "https://gitlab.com"),
        (["--preset", "logto", "--domain", "example.logto.app"], "https://example.logto.app/oidc"),
        (["--preset", "google"], "https://accounts.google.com"),
        // Apple's token endpoint needs the client-secret JWT (client_secret_post).
        (["--preset", "apple", "--client-secret-stdin"], "https://appleid.apple.com"),
    ])
    func presets(_ arguments: [String], _ issuer: String) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let add = try await home.run(["provider", "add", "--no-probe", "p", "--client-id", "c"] + arguments,
                                     stdin: arguments.contains("--client-secret-stdin") ? Data("client-secret".utf8) : nil)
        #expect(add.exitCode == 0, "\(add)")
        let show = try await home.run(["provider", "show", "p", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        #expect(object["issuer"] as? String == issuer)
        #expect(object["preset"] as? String == arguments[1])
        #expect(object["plainHTTPLoopback"] as? Bool == false)
    }

    @Test("GitHub preset: manual endpoints, no issuer, Accept: application/json")
    func githubPreset() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let add = try await home.run(["provider", "add", "gh", "--client-id", "c", "--preset", "github"])
        #expect(add.exitCode == 0, "\(add)")
        let show = try await home.run(["provider", "show", "gh", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        #expect(object["issuer"] is NSNull)
        let endpoints = try #require(object["endpoints"] as? [String: Any])
        #expect(endpoints["token"] as? String == "https://github.com/login/oauth/access_token")
        #expect(endpoints["deviceAuthorization"] as? String == "https://github.com/login/device/code")
        #expect((object["headers"] as? [String: String])?["Accept"] == "application/json")
    }
}

@Suite("Terminal safety of the command line's output")
struct CLIOutputSafetyTests {
    @Test("Control characters from outside reach stderr escaped (\\e[2J, OSC 52), never raw")
    func hostileTextIsEscapedOnStderr() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let hostile = "x\u{1B}[2J\u{1B}]52;c;aGk=\u{07}"
        let result = try await home.run(["provider", "show", hostile])
        #expect(result.exitCode != 0)
        #expect(!result.stderr.contains("\u{1B}"), "raw ESC on stderr")
        #expect(!result.stderr.contains("\u{07}"), "raw BEL on stderr")
        #expect(result.stderr.contains("\\e[2J"))
    }

    @Test("A hostile display name is shown escaped by 'provider show' and 'provider list', even on a pipe")
    func hostileTextIsEscapedOnStdout() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let hostile = "Evil\u{1B}[2J\u{1B}]52;c;aGk=\u{07}"
        let add = try await home.run(["provider", "add", "--no-probe", "evil", "--display-name", hostile, "--issuer", "http://127.0.0.1:9/o", "--client-id", "c"])
        #expect(add.exitCode == 0, "\(add)")
        for command in [["provider", "show", "evil"], ["provider", "list"]] {
            let result = try await home.run(command)
            #expect(result.exitCode == 0, "\(result)")
            #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("\u{07}"), "raw control characters from \(command)")
            if command[1] == "show" { #expect(result.stdout.contains("Evil\\e[2J"), "\(command)") }
        }
    }
}

@Suite("Vault lock and passphrase change")
struct VaultCommandTests {
    @Test("lock forgets the cached vault key (then exit 4 without a passphrase); passphrase re-encrypts under the new one only")
    func lockAndPassphrase() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        func addProvider(_ name: String, _ extra: [String: String] = [:]) async throws -> Int32 {
            try await home.run(["provider", "add", "--no-probe", name, "--issuer", "http://127.0.0.1:9/o", "--client-id", "c", "--client-secret-stdin"],
                               stdin: Data("fixture-client-secret\n".utf8), extra: extra).exitCode
        }
        let noPassphrase = ["AUTHDECK_PASSPHRASE_FILE": ""]
        #expect(try await addProvider("one") == 0, "creates the vault and caches its key")
        #expect(try await addProvider("two", noPassphrase) == 0, "the cached key needs no passphrase")
        #expect(try await home.run(["lock"]).exitCode == 0)
        #expect(try await addProvider("three", noPassphrase) == 4, "locked: no key, no passphrase")

        let newPassphrase = home.root.appendingPathComponent("new-passphrase")
        _ = FileManager.default.createFile(atPath: newPassphrase.path, contents: Data("a new passphrase\n".utf8), attributes: [.posixPermissions: 0o600])
        #expect(try await home.run(["passphrase"], extra: ["AUTHDECK_NEW_PASSPHRASE_FILE": newPassphrase.path]).exitCode == 0)
        #expect(try await home.run(["lock"]).exitCode == 0)
        #expect(try await addProvider("four") == 4, "the old passphrase no longer opens the vault")
        #expect(try await addProvider("five", ["AUTHDECK_PASSPHRASE_FILE": newPassphrase.path]) == 0)
        let list = try await home.run(["provider", "list"], extra: ["AUTHDECK_PASSPHRASE_FILE": newPassphrase.path])
        #expect(["one", "two", "five"].allSatisfy { list.stdout.contains($0) }, "nothing stored was lost")
    }
}

@Suite("Exit codes of a locked store (README table)")
struct LockedStoreExitCodeTests {
    @Test("A refused passphrase file (mode 0644, symbolic link, directory) exits 4 like a missing one, naming the file and the fix",
          arguments: ["0644", "symlink", "directory"])
    func refusedPassphraseFile(_ kind: String) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let good = home.root.appendingPathComponent("passphrase").path
        let refused = home.root.appendingPathComponent("refused-passphrase").path
        switch kind {
        case "0644":
            _ = FileManager.default.createFile(atPath: refused, contents: Data("cli test vault passphrase".utf8), attributes: [.posixPermissions: 0o644])
        case "symlink":
            try FileManager.default.createSymbolicLink(atPath: refused, withDestinationPath: good)
        default:
            try FileManager.default.createDirectory(atPath: refused, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        let add = try await home.run(["provider", "add", "--no-probe", "p", "--issuer", "https://op.test", "--client-id", "c", "--client-secret-stdin"],
                                     stdin: Data("s3cret".utf8), extra: ["AUTHDECK_PASSPHRASE_FILE": refused])
        #expect(add.exitCode == 4, "\(add)")
        #expect(add.stderr.contains(refused) && add.stderr.contains("0600"), "\(add.stderr)")
        #expect(!add.stderr.contains("s3cret") && !add.stderr.contains("cli test vault passphrase"))
    }

    @Test("After 'authdeck lock' with no passphrase source, status --json says locked: true; with the key cached or a passphrase file, false")
    func statusAfterLock() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let add = try await home.run(["provider", "add", "--no-probe", "p", "--issuer", "http://127.0.0.1:9/o", "--client-id", "c", "--client-secret-stdin"],
                                     stdin: Data("fixture-client-secret\n".utf8))
        try #require(add.exitCode == 0, "\(add)")
        let noPassphrase = ["AUTHDECK_PASSPHRASE_FILE": ""]
        func locked(_ extra: [String: String]) async throws -> Bool? {
            let result = try await home.run(["status", "--json"], extra: extra)
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return (object?["store"] as? [String: Any])?["locked"] as? Bool
        }
        #expect(try await locked(noPassphrase) == false, "the key is cached")
        #expect(try await home.run(["lock"]).exitCode == 0)
        #expect(try await locked(noPassphrase) == true, "no cached key, no passphrase source")
        #expect(try await locked([:]) == false, "the passphrase file opens it (and caches the key again)")
        #expect(try await locked(noPassphrase) == false)
    }
}

@Suite("decode --json schema")
struct DecodeSchemaTests {
    @Test("Every kind of token has the same keys: kind, header, claims, times, verification", arguments: [
        "opaque-token-value",
        "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a.b.c.d",  // a JWE (5 parts)
        "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.",                        // alg none, unverified
    ])
    func sameKeys(_ token: String) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(["decode", "--json", "-"], stdin: Data(token.utf8))
        #expect(result.exitCode == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(["kind", "header", "claims", "times", "verification"]).isSubset(of: Set(object.keys)), "\(object.keys.sorted())")
    }
}
