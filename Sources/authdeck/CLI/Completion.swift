import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import TerminalUI

/// Shell completion scripts generated from the command table: every command and option (nested
/// `provider` subcommands too), shell names for `completion`, themes for `--theme`, the fixed
/// values of `--preset`, `--client-authentication`, `--par` and `--dpop`, file names for `--apple-key`, and the configured account and provider
/// names, which the script asks the binary for (`authdeck __complete accounts|providers|themes`:
/// hidden, reads only the metadata files, never the credential store, so it prints no token and
/// asks for no passphrase). The script runs the same binary it completes (the first word typed),
/// so a full path works without `authdeck` on PATH.
enum Completion {
    /// Names the script asks the binary for.
    enum Source: String, CaseIterable, Sendable {
        case accounts, providers, themes, presets, shells
    }

    static let shells = ["bash", "zsh", "fish"]

    /// One command to complete: its words after the command name (`provider add`).
    struct Entry {
        var key: String
        var command: CommandSpec
        var words: [String]
        var sources: [Source]
    }

    /// The completion for a positional argument of the command at `path`.
    static func source(path: [String], positional: String) -> Source? {
        switch (path, positional) {
        case (_, "account"): .accounts
        case (["login"], "provider"), (["provider", "show"], "name"), (["provider", "remove"], "name"): .providers
        case (["completion"], "shell"): .shells
        default: nil
        }
    }

    /// What follows a value option: fixed words, names from the binary, or file names.
    enum Values { case words([String]), names(Source), files, free }

    static func values(of option: OptionSpec) -> Values {
        switch option.name {
        case "theme": .names(.themes)
        case "preset": .names(.presets)
        case "clientAuthentication": .words(ClientAuthenticationMethod.allCases.map(\.rawValue))
        case "par", "dpop": .words(ProtocolFeatureSetting.allCases.map(\.rawValue))
        case "grant": .words(["client-credentials", "authorization-code"])
        case "clientAssertion": .words(["github-actions", "env=", "file=", "command="])
        case "assertionAudience": .words(ClientAssertionAudience.allCases.map(\.rawValue))
        case "caBundle", "idTokenFile", "appleKey", "clientSecretFile", "privateKeyFile": .files
        default: .free
        }
    }

    static func optionWords(_ command: CommandSpec) -> [String] {
        command.options.flatMap { option in ["--" + option.flagName] + (option.short.map { ["-\($0)"] } ?? []) } + ["--help"]
    }

    /// Every command below the root, depth first (`provider`, then `provider add`, …).
    static func entries(_ root: CommandSpec) -> [Entry] {
        var result: [Entry] = []
        func visit(_ command: CommandSpec, path: [String]) {
            let visible = command.subcommands.filter { !$0.hidden }
            var sources = command.positionals.compactMap { source(path: path, positional: $0.name) }
            var words = visible.map(\.name) + optionWords(command)
            if sources.contains(.shells) {
                words = shells + words
                sources.removeAll { $0 == .shells }
            }
            result.append(Entry(key: path.joined(separator: " "), command: command, words: words, sources: sources))
            for sub in visible { visit(sub, path: path + [sub.name]) }
        }
        for command in root.subcommands where !command.hidden { visit(command, path: [command.name]) }
        return result
    }

    /// Every option of every command, for the value completions.
    static func allOptions(_ root: CommandSpec) -> [OptionSpec] {
        var seen = Set<String>()
        var list: [OptionSpec] = []
        func visit(_ command: CommandSpec) {
            for option in command.options where option.kind != .flag && seen.insert(option.flagName).inserted { list.append(option) }
            for sub in command.subcommands where !sub.hidden { visit(sub) }
        }
        visit(root)
        return list
    }

    static func script(for shell: String, root: CommandSpec) -> String? {
        let top = root.subcommands.filter { !$0.hidden }.map(\.name) + optionWords(root)
        let entries = entries(root)
        let options = allOptions(root)
        switch shell {
        case "bash": return bash(top: top, entries: entries, options: options)
        case "zsh": return zsh(top: top, entries: entries, options: options)
        case "fish": return fish(root: root, entries: entries)
        default: return nil
        }
    }

    static func bash(top: [String], entries: [Entry], options: [OptionSpec]) -> String {
        var values = ""
        for option in options {
            switch Self.values(of: option) {
            case .words(let words):
                values += "        --\(option.flagName)) COMPREPLY=( $(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\") ); return ;;\n"
            case .names(let source):
                values += "        --\(option.flagName)) COMPREPLY=( $(compgen -W \"$(_authdeck_names \(source.rawValue))\" -- \"$cur\") );"
                    + " return ;;\n"
            case .files: values += "        --\(option.flagName)) COMPREPLY=( $(compgen -f -- \"$cur\") ); return ;;\n"
            case .free: break
            }
        }
        var cases = ""
        for entry in entries {
            let names = entry.sources.map { " $(_authdeck_names \($0.rawValue))" }.joined()
            cases += "        \"\(entry.key)\") opts=\"\(entry.words.joined(separator: " "))\(names)\" ;;\n"
        }
        let groups = entries.filter { !$0.command.subcommands.isEmpty && !$0.key.contains(" ") }.map(\.key)
        return """
        # authdeck bash completion: eval "$(authdeck completion bash)"
        _authdeck_names() { "${COMP_WORDS[0]}" __complete "$1" 2>/dev/null; }
        _authdeck() {
            local cur="${COMP_WORDS[COMP_CWORD]}" prev="" opts="" key="${COMP_WORDS[1]}"
            [ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"
            case "$prev" in
        \(values)    esac
            if [ "$COMP_CWORD" -eq 1 ]; then
                opts="\(top.joined(separator: " "))"
            else
                case "$key" in
                    \(groups.isEmpty ? "__none__" : groups.joined(separator: "|"))) [ "$COMP_CWORD" -gt 2 ] && key="$key ${COMP_WORDS[2]}" ;;
                esac
                case "$key" in
        \(cases)        *) opts="" ;;
                esac
            fi
            COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
        }
        complete -o default -F _authdeck authdeck

        """
    }

    static func zsh(top: [String], entries: [Entry], options: [OptionSpec]) -> String {
        var values = ""
        for option in options {
            switch Self.values(of: option) {
            case .words(let words): values += "    --\(option.flagName)) compadd -- \(words.joined(separator: " ")); return ;;\n"
            case .names(let source):
                values += "    --\(option.flagName)) names=(${(f)\"$(_authdeck_names \(source.rawValue))\"}); compadd -a names; return ;;\n"
            case .files: values += "    --\(option.flagName)) _files; return ;;\n"
            case .free: break
            }
        }
        var cases = ""
        for entry in entries {
            let names = entry.sources.map { "names+=(${(f)\"$(_authdeck_names \($0.rawValue))\"}); " }.joined()
            cases += "    \"\(entry.key)\") \(names)compadd -- \(entry.words.joined(separator: " ")) ;;\n"
        }
        let groups = entries.filter { !$0.command.subcommands.isEmpty && !$0.key.contains(" ") }.map(\.key)
        return """
        #compdef authdeck
        # authdeck zsh completion: authdeck completion zsh > "${fpath[1]}/_authdeck"
        _authdeck_names() { ${words[1]} __complete "$1" 2>/dev/null }
        _authdeck() {
          local key="${words[2]}" prev="${words[CURRENT-1]}"
          local -a names
          case "$prev" in
        \(values)  esac
          if (( CURRENT == 2 )); then
            compadd -- \(top.joined(separator: " "))
            return
          fi
          case "$key" in
            \(groups.isEmpty ? "__none__" : groups.joined(separator: "|"))) (( CURRENT > 3 )) && key="$key ${words[3]}" ;;
          esac
          case "$key" in
        \(cases)  esac
          (( ${#names} )) && compadd -a names
        }
        compdef _authdeck authdeck

        """
    }

    static func fish(root: CommandSpec, entries: [Entry]) -> String {
        func quoted(_ text: String) -> String { "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'" }
        var lines = [
            "# authdeck fish completion: authdeck completion fish | source",
            "function __authdeck_names",
            "    set -l cmd (commandline -opc)[1]",
            "    command $cmd __complete $argv 2>/dev/null",
            "end",
            "complete -c authdeck -f",
        ]
        func optionLines(_ command: CommandSpec, condition: String) {
            for option in command.options {
                var line = "complete -c authdeck -n \(quoted(condition)) -l \(option.flagName)"
                if let short = option.short { line += " -s \(short)" }
                switch values(of: option) {
                case .words(let words) where option.kind != .flag: line += " -x -a \(quoted(words.joined(separator: " ")))"
                case .names(let source) where option.kind != .flag: line += " -x -a \(quoted("(__authdeck_names \(source.rawValue))"))"
                case .files where option.kind != .flag: line += " -r -F"
                default: if option.kind != .flag { line += " -r" }
                }
                lines.append(line + " -d \(quoted(option.help))")
            }
        }
        optionLines(root, condition: "__fish_use_subcommand")
        for command in root.subcommands where !command.hidden {
            lines.append("complete -c authdeck -n __fish_use_subcommand -a \(command.name) -d \(quoted(command.abstract))")
        }
        for entry in entries {
            let path = entry.key.split(separator: " ").map(String.init)
            var condition = path.map { "__fish_seen_subcommand_from \($0)" }.joined(separator: "; and ")
            let subs = entry.command.subcommands.filter { !$0.hidden }
            if !subs.isEmpty {
                let notYet = "\(condition); and not __fish_seen_subcommand_from \(subs.map(\.name).joined(separator: " "))"
                for sub in subs { lines.append("complete -c authdeck -n \(quoted(notYet)) -a \(sub.name) -d \(quoted(sub.abstract))") }
                condition = notYet
            }
            optionLines(entry.command, condition: condition)
            if entry.key == "completion" { lines.append("complete -c authdeck -n \(quoted(condition)) -a \(quoted(shells.joined(separator: " ")))") }
            for source in entry.sources {
                lines.append("complete -c authdeck -n \(quoted(condition)) -a \(quoted("(__authdeck_names \(source.rawValue))"))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The names `__complete` prints for `source`, one per line: account aliases and handles
    /// (provider/username), provider names, theme names, shells. Metadata files only.
    static func names(_ source: Source, files: MetadataFiles, environment: [String: String]) -> [String] {
        switch source {
        case .accounts:
            let accounts = (try? files.accounts()) ?? []
            return accounts.flatMap { record in (record.alias.map { [$0] } ?? []) + [AccountResolution.handle(record)] }
        case .providers:
            return ((try? files.providers()) ?? []).map(\.id.rawValue)
        case .themes:
            return ThemeCatalog(directories: themeDirectories(environment)).names()
        case .presets:
            return PresetFiles.catalog(environment: environment).names
        case .shells:
            return shells
        }
    }
}
