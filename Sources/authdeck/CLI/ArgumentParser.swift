import FoundationEssentials
import TextSupport

/// A small command-line parser in swift-argument-parser's style: options are declared with
/// camelCase names from which the kebab-case flag is derived (`minValid` → `--min-valid`),
/// every command has a one-sentence abstract, arguments are validated before the command runs,
/// and `--help` works everywhere.
struct OptionSpec: Sendable {
    enum Kind: Sendable { case flag, value, repeated }
    var name: String
    var short: Character?
    var kind: Kind
    var valueName: String
    var help: String

    static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, kind: .flag, valueName: "", help: help)
    }
    static func value(_ name: String, short: Character? = nil, valueName: String, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, kind: .value, valueName: valueName, help: help)
    }
    static func repeated(_ name: String, short: Character? = nil, valueName: String, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, kind: .repeated, valueName: valueName, help: help)
    }

    /// `minValid` → `min-valid`.
    var flagName: String {
        var out = ""
        for character in name {
            if character.isUppercase {
                out += "-" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}

struct PositionalSpec: Sendable {
    var name: String
    var optional: Bool
    var help: String
}

/// A command: its name, abstract, arguments, and either subcommands or a run function.
struct CommandSpec: Sendable {
    var name: String
    var abstract: String
    var discussion: String = ""
    var positionals: [PositionalSpec] = []
    var options: [OptionSpec] = []
    var subcommands: [CommandSpec] = []
    /// The words after `--`, taken as they are (`exec … -- CMD ARGS…`): never parsed as options,
    /// and a `--help` among them is theirs. Nil: `--` only ends the options.
    var trailing: PositionalSpec? = nil
    /// Left out of help and completion (`__complete`, used by the completion scripts).
    var hidden: Bool = false
    /// Checks the parsed values before `run` (argument-parser's `validate()`); a returned
    /// message is a usage error (exit 2).
    var validate: (@Sendable (ParsedCommand) -> String?)? = nil
    var run: (@Sendable (ParsedCommand) async throws -> Int32)?
}

/// The parsed values of one command.
struct ParsedCommand: Sendable {
    var path: [String]
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positionals: [String: String] = [:]
    /// The words after `--` when the command takes them (``CommandSpec/trailing``).
    var trailing: [String] = []

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func values(_ name: String) -> [String] { values[name] ?? [] }
    func positional(_ name: String) -> String? { positionals[name] }
}

/// A usage error: exit code 2, message on stderr with the command's usage line.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var usage: String
    var description: String { "error: \(message)\n\(usage)" }
}

enum ArgumentParser {
    /// Finds the command for `arguments` and parses its options. `--help` anywhere returns the
    /// help text instead.
    static func parse(_ arguments: [String], root: CommandSpec) -> Result<(CommandSpec, ParsedCommand), ParseOutcome> {
        var command = root
        var path = [root.name]
        var rest = arguments[...]
        while let next = rest.first, let sub = command.subcommands.first(where: { $0.name == next }) {
            command = sub
            path.append(next)
            rest = rest.dropFirst()
        }
        // `authdeck help [COMMAND …]`: that command's help, as `COMMAND --help` prints it.
        if path.count == 2, command.name == helpCommand {
            return .failure(helpOf(rest, root: root))
        }
        // A word where a subcommand goes that names none is a usage error whatever follows it:
        // `authdeck doctor --help` must not print the root help and exit 0.
        // The same after the command's own options (`authdeck --theme light doctor --help`).
        let takesSubcommand = !command.subcommands.isEmpty && command.positionals.isEmpty
        if takesSubcommand, let word = firstWord(rest, options: command.options), !(command.run == nil && word == "help"),
           !command.subcommands.contains(where: { $0.name == word }) {
            return .failure(.usage(unknownCommand(word, in: command, path: path)))
        }
        // A command's own words end at `--` when it runs another command (`exec -- curl --help`).
        let own = command.trailing == nil ? rest : rest.prefix { $0 != "--" }
        if own.contains("--help") || own.contains("-h") || (command.run == nil && rest.first == "help") {
            return .failure(.help(helpText(command, path: path)))
        }
        if command.run == nil {
            if let first = rest.first { return .failure(.usage(unknownCommand(first, in: command, path: path))) }
            return .failure(.help(helpText(command, path: path)))
        }
        var parsed = ParsedCommand(path: path)
        var positionals: [String] = []
        var onlyPositionals = false
        while let argument = rest.first {
            rest = rest.dropFirst()
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                if command.trailing != nil {
                    parsed.trailing = Array(rest)
                    break
                }
                onlyPositionals = true
                continue
            }
            var flag = argument
            var inline: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                flag = String(argument[..<eq])
                inline = String(argument[argument.index(after: eq)...])
            }
            let option = command.options.first { "--" + $0.flagName == flag || ($0.short.map { "-\($0)" } == flag) }
            guard let option else { return .failure(.usage(unknownOption(flag, in: command, path: path))) }
            switch option.kind {
            case .flag:
                if inline != nil {
                    return .failure(.usage(UsageError(message: "option '--\(option.flagName)' takes no value",
                                                      usage: usageLine(command, path: path))))
                }
                parsed.flags.insert(option.name)
            case .value, .repeated:
                guard let value = inline ?? rest.first else {
                    return .failure(.usage(UsageError(message: "option '--\(option.flagName)' needs a value (\(option.valueName))",
                                                      usage: usageLine(command, path: path))))
                }
                if inline == nil { rest = rest.dropFirst() }
                if option.kind == .value, parsed.values[option.name] != nil {
                    return .failure(.usage(UsageError(message: "option '--\(option.flagName)' given more than once",
                                                      usage: usageLine(command, path: path))))
                }
                parsed.values[option.name, default: []].append(value)
            }
        }
        if let trailing = command.trailing, parsed.trailing.isEmpty {
            return .failure(.usage(UsageError(message: "missing <\(trailing.name)> after '--'", usage: usageLine(command, path: path))))
        }
        let required = command.positionals.filter { !$0.optional }.count
        if positionals.count < required {
            // Name the first required argument not given (optional ones before it are skipped
            // when there are too few: `api [ACCOUNT] URL` with nothing is missing <url>).
            let missing = command.positionals.filter { !$0.optional }[positionals.count]
            return .failure(.usage(UsageError(message: "missing argument <\(missing.name)>", usage: usageLine(command, path: path))))
        }
        if positionals.count > command.positionals.count {
            let extra = positionals[command.positionals.count]
            // `authdeck --theme light status`: a command after options that belong to this one.
            if command.subcommands.contains(where: { $0.name == extra }) {
                if let validate = command.validate, let message = validate(parsed) {
                    return .failure(.usage(UsageError(message: message, usage: usageLine(command, path: path))))
                }
                let mine = command.options.filter { o in
                    arguments.contains { $0 == "--" + o.flagName || $0.hasPrefix("--" + o.flagName + "=") }
                }
                let named = mine.isEmpty
                    ? "the options before it belong"
                    : commaList(mine.map { "--" + $0.flagName }) + (mine.count == 1 ? " belongs" : " belong")
                return .failure(.usage(UsageError(
                    message: "the command '\(extra)' goes first ('\(path.joined(separator: " ")) \(extra) …'):"
                        + " \(named) to '\(path.joined(separator: " "))' alone",
                    usage: usageLine(command, path: path))))
            }
            return .failure(.usage(UsageError(message: "unexpected argument '\(positionals[command.positionals.count])'",
                                              usage: usageLine(command, path: path))))
        }
        // Optional positionals before a required one (`api [ACCOUNT] URL`) are filled only when
        // there are enough values for the required ones.
        var optionalsLeft = positionals.count - required
        var values = positionals[...]
        for spec in command.positionals {
            if spec.optional {
                guard optionalsLeft > 0 else { continue }
                optionalsLeft -= 1
            }
            guard let value = values.first else { break }
            parsed.positionals[spec.name] = value
            values = values.dropFirst()
        }
        if let validate = command.validate, let message = validate(parsed) {
            return .failure(.usage(UsageError(message: message, usage: usageLine(command, path: path))))
        }
        return .success((command, parsed))
    }

    /// The name of the command that prints another command's help (`authdeck help login`).
    static let helpCommand = "help"

    /// `help [COMMAND …]`: the help text of the command the words name (the root's without
    /// words), or the usage error of the first word that names no command there.
    static func helpOf(_ words: ArraySlice<String>, root: CommandSpec) -> ParseOutcome {
        var command = root
        var path = [root.name]
        for word in words where !word.hasPrefix("-") {
            guard let sub = command.subcommands.first(where: { $0.name == word && !$0.hidden }) else {
                if command.subcommands.isEmpty {
                    let help = root.subcommands.first { $0.name == helpCommand } ?? root
                    return .usage(UsageError(message: "'\(path.joined(separator: " "))' has no subcommand '\(word)'",
                                             usage: usageLine(help, path: [root.name, helpCommand])))
                }
                return .usage(unknownCommand(word, in: command, path: path))
            }
            command = sub
            path.append(word)
        }
        return .help(helpText(command, path: path))
    }

    /// "unknown command 'stauts' for 'authdeck'", the closest command's name when one is near
    /// (edit distance), and the commands there are (from the command table).
    static func unknownCommand(_ word: String, in command: CommandSpec, path: [String]) -> UsageError {
        let names = command.subcommands.filter { !$0.hidden }.map(\.name)
        var message = "unknown command '\(word)' for '\(path.joined(separator: " "))'"
        if let guess = closest(to: word, among: names) { message += "; did you mean '\(guess)'?" }
        message += "\nCommands: \(commaList(names)). See '\(([path[0], helpCommand] + path.dropFirst()).joined(separator: " "))'."
        return UsageError(message: message, usage: usageLine(command, path: path))
    }

    /// "unknown option '--bogus' for 'authdeck token'", the closest option when one is near, and
    /// the options the command has (from the command table), as ``unknownCommand(_:in:path:)`` says it.
    static func unknownOption(_ flag: String, in command: CommandSpec, path: [String]) -> UsageError {
        let known = command.options.map { "--" + $0.flagName } + ["--help"]
        var message = "unknown option '\(flag)' for '\(path.joined(separator: " "))'"
        if let guess = closest(to: flag, among: known) { message += "; did you mean '\(guess)'?" }
        message += "\nOptions: \(commaList(known)). See '\(([path[0], helpCommand] + path.dropFirst()).joined(separator: " "))'."
        return UsageError(message: message, usage: usageLine(command, path: path))
    }

    /// The candidate nearest to `word` by edit distance (Levenshtein; a swap of two neighbours
    /// counts once), when it is near enough to be a typo: at most 1 edit for words up to 4
    /// characters, 2 up to 8, 3 beyond. A candidate that `word` starts (`prov` → `provider`) is
    /// near too.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        let limit = typed.count <= 4 ? 1 : typed.count <= 8 ? 2 : 3
        var best: (name: String, distance: Int)?
        for name in candidates {
            let distance = name.hasPrefix(word) && typed.count >= 3 ? 0 : editDistance(typed, Array(name.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (name, distance) }
        }
        return best?.name
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours, one each.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, table[i - 2][j - 2] + 1) }
                table[i][j] = value
            }
        }
        return table[a.count][b.count]
    }

    /// The first argument that is neither an option nor an option's value (`--theme light`), if any.
    static func firstWord(_ arguments: ArraySlice<String>, options: [OptionSpec]) -> String? {
        var rest = arguments
        while let argument = rest.first {
            rest = rest.dropFirst()
            if argument == "--" { return rest.first }
            guard argument.hasPrefix("-"), argument != "-" else { return argument }
            let takesValue = options.contains { option in
                option.kind != .flag && ("--" + option.flagName == argument || option.short.map { "-\($0)" } == argument)
            }
            if takesValue { rest = rest.dropFirst() }
        }
        return nil
    }

    enum ParseOutcome: Error {
        case help(String)
        case usage(UsageError)
    }

    static func usageLine(_ command: CommandSpec, path: [String]) -> String {
        var parts = ["USAGE:", path.joined(separator: " ")]
        if !command.subcommands.isEmpty && command.run == nil { parts.append("<subcommand>") }
        // Like argument-parser: a long option list is summarised (the OPTIONS section lists it).
        if command.options.count > 6 { parts.append("[<options>]") }
        for option in command.options where command.options.count <= 6 {
            let value = option.kind == .flag ? "" : " <\(option.valueName)>"
            parts.append("[--\(option.flagName)\(value)]" + (option.kind == .repeated ? " ..." : ""))
        }
        for positional in command.positionals { parts.append(positional.optional ? "[<\(positional.name)>]" : "<\(positional.name)>") }
        if !command.subcommands.isEmpty && command.run != nil { parts.append("[<subcommand>]") }
        if let trailing = command.trailing { parts.append("-- <\(trailing.name)> [<argument> ...]") }
        return parts.joined(separator: " ")
    }

    static func helpText(_ command: CommandSpec, path: [String]) -> String {
        var lines = ["OVERVIEW: \(command.abstract)"]
        if !command.discussion.isEmpty { lines += ["", command.discussion] }
        lines += ["", usageLine(command, path: path)]
        if !command.positionals.isEmpty {
            lines += ["", "ARGUMENTS:"]
            for p in command.positionals { lines.append(pad("  <\(p.name)>", p.help)) }
        }
        if let trailing = command.trailing {
            if command.positionals.isEmpty { lines += ["", "ARGUMENTS:"] }
            lines.append(pad("  -- <\(trailing.name)> ...", trailing.help))
        }
        lines += ["", "OPTIONS:"]
        for o in command.options {
            let short = o.short.map { "-\($0), " } ?? ""
            let value = o.kind == .flag ? "" : " <\(o.valueName)>"
            lines.append(pad("  \(short)--\(o.flagName)\(value)", o.help + (o.kind == .repeated ? " (can be repeated)" : "")))
        }
        lines.append(pad("  -h, --help", "Show help information."))
        if !command.subcommands.isEmpty {
            lines += ["", "SUBCOMMANDS:"]
            for s in command.subcommands where !s.hidden { lines.append(pad("  \(s.name)", s.abstract)) }
            lines += ["", "  See '\(path.joined(separator: " ")) <subcommand> --help' for detailed help."]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func pad(_ left: String, _ right: String) -> String {
        left.count >= 30 ? "\(left)\n\(String(repeating: " ", count: 30))\(right)" : left.padded(to: 30) + right
    }
}
