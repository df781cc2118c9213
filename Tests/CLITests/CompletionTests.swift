// `authdeck completion bash|zsh|fish`: every command and option, account names for the
// commands that take ACCOUNT, provider names, shells for `completion`, themes for `--theme`; the
// names come from the hidden `__complete`, which never prints a token.
import Foundation
import Testing
import TestSupport

/// Every `--flag` in a help text.
private func flags(inHelp text: String) -> Set<String> {
    let regex = try! NSRegularExpression(pattern: #"(?<![\w-])--[a-z][a-z0-9-]*"#)
    let ns = text as NSString
    return Set(regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { ns.substring(with: $0.range) })
}

/// Runs the bash completion function for `words` (the last one is being completed) and returns
/// what it offers.
private func bashComplete(_ home: CLIHome, _ words: [String]) async throws -> [String] {
    let script = """
    eval "$("$AUTHDECK" completion bash)"
    COMP_WORDS=("$AUTHDECK" "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
    _authdeck
    printf '%s\\n' "${COMPREPLY[@]}"
    """
    var environment = home.environment
    environment["AUTHDECK"] = authdeckBinary
    let r = try TestSupport.TmuxSession.spawnAndWait(["bash", "-c", script, "bash"] + words, environment: environment)
    try #require(r.status == 0, "bash: \(r.output)")
    return r.output.split(separator: "\n").map(String.init)
}

@Suite("Shell completion", .serialized)
struct CompletionTests {
    static let commandPaths: [[String]] = [
        ["login"], ["logout"], ["status"], ["switch"], ["token"], ["refresh"], ["userinfo"], ["introspect"], ["decode"], ["api"],
        ["provider", "add"], ["provider", "list"], ["provider", "show"], ["provider", "remove"], ["lock"], ["passphrase"], ["completion"], [],
    ]

    @Test("Every option of every command (from its --help) is in each script; the hidden helper is not offered as a command",
          arguments: ["bash", "zsh", "fish"])
    func everyOption(_ shell: String) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let script = try await home.run(["completion", shell])
        try #require(script.exitCode == 0, "\(script)")
        for path in Self.commandPaths {
            let help = try await home.run(path + ["--help"]).stdout
            for flag in flags(inHelp: help) where flag != "--help" {
                let name = String(flag.dropFirst(2))
                // fish spells options as `-l name`.
                let present = shell == "fish" ? script.stdout.contains("-l \(name) ") : script.stdout.contains(flag)
                #expect(present, "\(shell): \((["authdeck"] + path).joined(separator: " ")) \(flag) is missing")
            }
        }
        for word in ["bash zsh fish", "__complete", "names accounts", "names providers", "names themes", "add", "remove"] {
            #expect(script.stdout.contains(word), "\(shell) lacks \(word)")
        }
        let help = try await home.run(["--help"])
        #expect(!help.stdout.contains("__complete"), "hidden from help")
        if shell == "bash" {
            let offered = try await bashComplete(home, [""])
            #expect(!offered.contains("__complete"))
            #expect(Set(["login", "provider", "completion", "--theme", "--read-only", "--version"]).isSubset(of: offered), "\(offered)")
        }
    }

    @Test("bash: shells for completion, themes for --theme, presets, provider subcommands and names")
    func bashFixedValues() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let add = try await home.run(["provider", "add", "--no-probe", "work", "--issuer", "https://op.test/o", "--client-id", "c"])
        try #require(add.exitCode == 0, "\(add)")
        #expect(try await bashComplete(home, ["completion", ""]).filter { !$0.hasPrefix("-") } == ["bash", "zsh", "fish"])
        #expect(Set(["default", "light", "high-contrast", "monochrome"]).isSubset(of: try await bashComplete(home, ["--theme", ""])))
        #expect(try await bashComplete(home, ["provider", "add", "x", "--preset", "ke"]) == ["keycloak"])
        #expect(try await bashComplete(home, ["provider", "add", "x", "--client-authentication", ""]) == ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"])
        #expect(Set(["add", "list", "show", "remove"]).isSubset(of: try await bashComplete(home, ["provider", ""])))
        #expect(try await bashComplete(home, ["provider", "show", "w"]) == ["work"])
        #expect(try await bashComplete(home, ["login", "wo"]) == ["work"])
        #expect(try await bashComplete(home, ["token", "--min"]) == ["--min-valid"])
    }

    @Test("bash: --par and --dpop offer auto always never (RFC 9126, RFC 9449); --apple-key completes file names")
    func protocolSettingWords() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        #expect(try await bashComplete(home, ["provider", "add", "x", "--par", ""]) == ["auto", "always", "never"])
        #expect(try await bashComplete(home, ["provider", "add", "x", "--dpop", "a"]) == ["auto", "always"])
        let zsh = try await home.run(["completion", "zsh"])
        #expect(zsh.stdout.contains("--par) compadd -- auto always never") && zsh.stdout.contains("--dpop) compadd -- auto always never"), "\(zsh.stdout)")
        #expect(zsh.stdout.contains("--apple-key) _files"))
    }

    @Test("Account names (alias and provider/username) for switch, token, refresh, logout, userinfo, introspect, api; never a token")
    func accountNames() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        try await home.addLocalProvider(idp)
        try await home.login(user: "alice", extra: ["--name", "work-alice"])
        let names = try await home.run(["__complete", "accounts"])
        #expect(names.exitCode == 0, "\(names)")
        #expect(names.stdout.split(separator: "\n") == ["work-alice", "local/alice"], "\(names.stdout)")
        let token = try await home.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(token.count > 10)
        #expect(!names.stdout.contains(token))
        for command in ["switch", "token", "refresh", "logout", "userinfo", "introspect", "api"] {
            let offered = try await bashComplete(home, [command, ""])
            #expect(offered.contains("local/alice") && offered.contains("work-alice"), "\(command): \(offered)")
            #expect(!offered.contains(token))
        }
        #expect(try await bashComplete(home, ["switch", "work"]) == ["work-alice"])
        // No passphrase is needed: __complete reads metadata only.
        let locked = try await home.run(["__complete", "accounts"], extra: ["AUTHDECK_PASSPHRASE_FILE": ""])
        #expect(locked.exitCode == 0 && locked.stdout.contains("local/alice"), "\(locked)")
    }
}
