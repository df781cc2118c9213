// What a newcomer types first, with the exact text authdeck answers: a typo of a command or an
// option, `help`, a theme before a command, `api ACCOUNT` without the URL, an account where
// `login` wants a provider, and the next step that fits the providers there are.
import Foundation
import Testing
import TestSupport

@Suite("CLI: a newcomer's detours", .serialized)
struct NewcomerCLITests {
    /// The commands as the table lists them (the error's list is read from there, not kept twice).
    static let commandList = "login, logout, status, switch, which, bind, unbind, prompt, token, exec, check, git-credential, setup-git, docker-credential, proof, refresh, userinfo, introspect, decode, api, agent, ssh, provider, apple, lock, passphrase, doctor, completion, help"

    @Test("An unknown command gets the nearest command (edit distance) and the list of commands; a word near none gets only the list")
    func unknownCommandSuggests() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let typo = try await home.run(["stauts"])
        #expect(typo.exitCode == 2 && typo.stdout.isEmpty, "\(typo)")
        #expect(typo.stderr == """
            error: unknown command 'stauts' for 'authdeck'; did you mean 'status'?
            Commands: \(Self.commandList). See 'authdeck help'.
            USAGE: authdeck [--version] [--theme <name>] [--read-only] [--accessible] [<subcommand>]

            """, "\(typo.stderr)")
        let far = try await home.run(["frobnicate"])
        #expect(far.stderr.hasPrefix("error: unknown command 'frobnicate' for 'authdeck'\nCommands: \(Self.commandList)."), "\(far.stderr)")
        let sub = try await home.run(["provider", "ad"])
        #expect(sub.stderr.hasPrefix("error: unknown command 'ad' for 'authdeck provider'; did you mean 'add'?\nCommands: add, set, list, show, remove, presets. See 'authdeck help provider'."),
                "\(sub.stderr)")
        let option = try await home.run(["logout", "--local-onyl"])
        #expect(option.exitCode == 2 && option.stderr.hasPrefix("error: unknown option '--local-onyl' for 'authdeck logout'; did you mean '--local-only'?\nOptions: "), "\(option.stderr)")
    }

    @Test("An unknown option gets the nearest option and the command's options (from the table), with where its help is")
    func unknownOptionListsOptions() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let far = try await home.run(["token", "--bogus"])
        #expect(far.exitCode == 2 && far.stdout.isEmpty, "\(far)")
        #expect(far.stderr.hasPrefix("""
            error: unknown option '--bogus' for 'authdeck token'
            Options: --min-valid, --resource, --organization, --id-token, --json, --exec-credential, --header-json, --exchange-for, --requested-token-type, --help. See 'authdeck help token'.
            USAGE: authdeck token
            """), "\(far.stderr)")
        let near = try await home.run(["provider", "add", "--isuer", "https://op.test"])
        #expect(near.stderr.hasPrefix("error: unknown option '--isuer' for 'authdeck provider add'; did you mean '--issuer'?\nOptions: --preset, --domain,"),
                "\(near.stderr)")
        #expect(near.stderr.contains("See 'authdeck help provider add'."), "\(near.stderr)")
    }

    @Test("authdeck help [COMMAND …] prints what COMMAND --help prints; an unknown one is a usage error with a suggestion")
    func helpCommand() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        for path in [[], ["login"], ["provider"], ["provider", "add"]] {
            let help = try await home.run(["help"] + path)
            let direct = try await home.run(path + ["--help"])
            #expect(help.exitCode == 0 && help.stderr.isEmpty, "\(help)")
            #expect(help.stdout == direct.stdout && help.stdout.hasPrefix("OVERVIEW: "), "help \(path)")
        }
        let root = try await home.run(["help"])
        #expect(root.stdout.contains("\n  help                        Show the help of a command (authdeck help provider add).\n"), "\(root.stdout)")
        let typo = try await home.run(["help", "stauts"])
        #expect(typo.exitCode == 2 && typo.stderr.hasPrefix("error: unknown command 'stauts' for 'authdeck'; did you mean 'status'?\n"), "\(typo)")
    }

    @Test("--theme before a command: a bad theme is named with the themes there are; a good one says the command goes first")
    func themeBeforeCommand() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let bad = try await home.run(["--theme", "nope", "status"])
        #expect(bad.exitCode == 2, "\(bad)")
        #expect(bad.stderr.hasPrefix("error: unknown theme 'nope'; the themes are default, light, high-contrast, monochrome (a file NAME.json in $XDG_CONFIG_HOME/authdeck/themes adds one)\n"),
                "\(bad.stderr)")
        let alone = try await home.run(["--theme", "nope"])
        #expect(alone.exitCode == 2 && alone.stderr.hasPrefix("error: unknown theme 'nope'"), "before the screen starts: \(alone)")
        let good = try await home.run(["--theme", "light", "status"])
        #expect(good.exitCode == 2 && good.stderr.hasPrefix("error: the command 'status' goes first ('authdeck status …'): --theme belongs to 'authdeck' alone\n"),
                "\(good.stderr)")
    }

    @Test("api with one argument: it is the <url> (no --url option exists), and an account goes before it")
    func apiWithAnAccountOnly() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(["api", "bob"])
        #expect(result.exitCode == 2, "\(result)")
        #expect(result.stderr.hasPrefix("""
            error: <url> 'bob' is not an absolute URL (expected https://…)
            Give the URL to call (https://…); an account goes before it: authdeck api bob https://api.example.com/items.

            """), "\(result.stderr)")
        #expect(!result.stderr.contains("--url"))
    }

    @Test("No account: the next step names the provider that is configured, never 'add a provider' when one exists")
    func nextStepFitsTheProviders() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let none = try await home.run(["token"])
        #expect(none.stderr == "error: No account is signed in\nAdd a provider with 'authdeck provider add NAME --issuer URL --client-id ID' (or --preset NAME), then sign in with 'authdeck login'.\n",
                "\(none.stderr)")
        let add = try await home.run(["provider", "add", "--no-probe", "work", "--issuer", "https://op.test", "--client-id", "c"])
        #expect(add.exitCode == 0, "\(add)")
        let status = try await home.run(["status"])
        #expect(status.stderr == "No account is signed in. Sign in with 'authdeck login work'.\n", "\(status.stderr)")
        let token = try await home.run(["token"])
        #expect(token.exitCode == 3 && token.stderr == "error: No account is signed in\nSign in with 'authdeck login work'.\n", "\(token.stderr)")
        _ = try await home.run(["provider", "add", "--no-probe", "home", "--issuer", "https://op2.test", "--client-id", "c"])
        let two = try await home.run(["status"])
        #expect(two.stderr == "No account is signed in. Sign in with 'authdeck login PROVIDER' (providers: home, work).\n", "\(two.stderr)")
    }

    @Test("login ACCOUNT: said to be an account of its provider, with the login that signs in there again")
    func loginGivenAnAccount() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let result = try await home.run(["login", "alice"])
        #expect(result.exitCode == 2, "\(result)")
        #expect(result.stderr.hasPrefix("""
            error: 'alice' is an account (local/alice), not a provider
            login takes a provider: 'authdeck login local' signs in to local again (as Alice Example or another user).

            """), "\(result.stderr)")
        #expect(!result.stderr.contains("Unknown provider"))
        // A typo of the provider's name: the nearest one.
        let typo = try await home.run(["login", "locl"])
        #expect(typo.exitCode == 2 && typo.stderr.hasPrefix("error: Unknown provider 'locl': Configured providers: local.\nDid you mean 'authdeck login local'?\n"),
                "\(typo.stderr)")
        // Removing a provider with accounts names them as status does, with the logout for each.
        let remove = try await home.run(["provider", "remove", "local"])
        #expect(remove.stderr == "error: Provider 'local' still has 1 signed-in account (local/alice): Log it out first with 'authdeck logout local/alice'.\n",
                "\(remove.stderr)")
    }

    @Test("A vault with no passphrase source and no terminal: the reason in words (no raw errno), what to do said once")
    func lockedVaultSaysWhyOnce() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        var environment = home.environment
        environment["AUTHDECK_PASSPHRASE_FILE"] = nil
        // setsid: no controlling terminal, as in cron or CI.
        let result = try await RunningCommand(["-w", authdeckBinary, "provider", "add", "--no-probe", "p", "--issuer", "https://op.test", "--client-id", "c",
                                               "--client-secret-stdin"], environment: environment, stdin: Data("s3cret".utf8),
                                              executable: "/usr/bin/setsid").wait()
        #expect(result.exitCode == 4, "\(result)")
        #expect(result.stderr == """
            error: The credential store is locked: no vault passphrase: no terminal to ask on (/dev/tty: No such device or address (ENXIO))
            Unlock the vault: set AUTHDECK_PASSPHRASE_FILE to a 0600 file holding its passphrase, or run from a terminal to be asked for it.

            """, "\(result.stderr)")
        #expect(!result.stderr.contains("errno"))
        // A refused passphrase file: what is wrong in the message, the requirement once in the hint.
        let loose = home.root.appendingPathComponent("loose-passphrase").path
        _ = FileManager.default.createFile(atPath: loose, contents: Data("x".utf8), attributes: [.posixPermissions: 0o644])
        let refused = try await home.run(["provider", "add", "--no-probe", "p", "--issuer", "https://op.test", "--client-id", "c", "--client-secret-stdin"],
                                         stdin: Data("s3cret".utf8), extra: ["AUTHDECK_PASSPHRASE_FILE": loose])
        #expect(refused.exitCode == 4, "\(refused)")
        #expect(refused.stderr.components(separatedBy: "0600").count == 2, "said once: \(refused.stderr)")
        #expect(refused.stderr.hasSuffix("AUTHDECK_PASSPHRASE_FILE must name a regular file of yours with mode 0600 holding the vault passphrase (chmod 600 \(loose)).\n"),
                "\(refused.stderr)")
    }
}
