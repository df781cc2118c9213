import Foundation

/// `authdeck` with no subcommand: the accounts screen (wired by the TUI work).
func runTUI(_ parsed: ParsedCommand) async -> Int32 {
    FileHandle.standardError.write(Data("authdeck: the accounts screen is not built yet; see 'authdeck --help'\n".utf8))
    return ExitCode.failure
}
