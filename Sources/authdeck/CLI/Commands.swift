import Foundation

/// Exit codes (documented in README): 0 ok, 1 failure, 2 usage, 3 needs sign-in, 4 store locked.
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let needsSignIn: Int32 = 3
    static let storeLocked: Int32 = 4
}

/// The command table: one place drives parsing, `--help`, and shell completion.
enum Commands {
    static let json = OptionSpec.flag("json", help: "Print JSON (stable schema, RFC 3339 UTC times) instead of text.")

    static func root(run: @escaping @Sendable (ParsedCommand) async throws -> Int32) -> CommandSpec {
        CommandSpec(
            name: "authdeck",
            abstract: "A terminal account and session manager for OAuth 2.0 and OpenID Connect.",
            discussion: "Run without arguments to open the accounts screen.",
            options: [
                .flag("version", help: "Print the version."),
                .value("theme", valueName: "name", help: "The TUI theme (default, light, high-contrast, monochrome, or a file in themes/)."),
                .flag("readOnly", help: "Start the TUI without destructive actions (sign-out)."),
            ],
            subcommands: [completion],
            run: run
        )
    }

    static let completion = CommandSpec(
        name: "completion",
        abstract: "Print a shell completion script.",
        positionals: [PositionalSpec(name: "shell", optional: false, help: "bash, zsh or fish.")],
        run: { parsed in
            guard let shell = parsed.positional("shell"), let script = Completion.script(for: shell, root: Commands.root(run: { _ in 0 })) else {
                FileHandle.standardError.write(Data("error: unknown shell '\(parsed.positional("shell") ?? "")'; expected bash, zsh or fish\n".utf8))
                return ExitCode.usage
            }
            print(script, terminator: "")
            return ExitCode.ok
        }
    )
}

/// Shell completion scripts generated from the command table.
enum Completion {
    static func script(for shell: String, root: CommandSpec) -> String? {
        let commands = root.subcommands.map(\.name)
        func words(_ command: CommandSpec) -> [String] {
            command.subcommands.map(\.name) + command.options.map { "--" + $0.flagName } + ["--help"]
        }
        switch shell {
        case "bash":
            var cases = ""
            for command in root.subcommands {
                cases += "        \(command.name)) opts=\"\(words(command).joined(separator: " "))\" ;;\n"
            }
            return """
            # authdeck bash completion: eval "$(authdeck completion bash)"
            _authdeck() {
                local cur="${COMP_WORDS[COMP_CWORD]}" opts
                if [ "$COMP_CWORD" -eq 1 ]; then
                    opts="\(commands.joined(separator: " ")) --help --version"
                else
                    case "${COMP_WORDS[1]}" in
            \(cases)        *) opts="" ;;
                    esac
                fi
                COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
            }
            complete -F _authdeck authdeck

            """
        case "zsh":
            var cases = ""
            for command in root.subcommands {
                cases += "    \(command.name)) compadd -- \(words(command).joined(separator: " ")) ;;\n"
            }
            return """
            #compdef authdeck
            # authdeck zsh completion: authdeck completion zsh > "${fpath[1]}/_authdeck"
            _authdeck() {
              if (( CURRENT == 2 )); then
                compadd -- \(commands.joined(separator: " ")) --help --version
                return
              fi
              case "${words[2]}" in
            \(cases)  esac
            }
            compdef _authdeck authdeck

            """
        case "fish":
            var lines = ["# authdeck fish completion: authdeck completion fish | source"]
            for command in root.subcommands {
                lines.append("complete -c authdeck -n __fish_use_subcommand -a \(command.name) -d '\(command.abstract.replacingOccurrences(of: "'", with: "\\'"))'")
                for option in command.options {
                    lines.append("complete -c authdeck -n '__fish_seen_subcommand_from \(command.name)' -l \(option.flagName) -d '\(option.help.replacingOccurrences(of: "'", with: "\\'"))'")
                }
            }
            return lines.joined(separator: "\n") + "\n"
        default:
            return nil
        }
    }
}
