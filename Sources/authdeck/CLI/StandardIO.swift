import AppCore
import AppCoreLive
import Synchronization
import AuthEngine
import CredentialStore
import CredentialStoreLive
import Dispatch
import FoundationEssentials
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif
/// A secret handed over on stdin (`--client-secret-stdin`, `login --code -`): read from a pipe or
/// file as it is; on a terminal asked for with `prompt` and no echo (never shown as typed).
/// - Throws: ``CLIFailure`` when the terminal cannot be read.
func readSecretFromStandardInput(prompt: String) throws -> String {
    guard isatty(STDIN_FILENO) == 1 else {
        return String(decoding: readStandardInput(), as: UTF8.self).trimmingWhitespaceAndNewlines()
    }
    do {
        return try PassphraseSource.promptWithoutEcho(prompt).trimmingWhitespaceAndNewlines()
    } catch {
        throw CLIFailure("Could not read the secret from the terminal: \(error)", hint: "Pipe it in instead, e.g. '< secret-file'.")
    }
}

/// Reads all of stdin (client secrets, `decode -`, `api -d @-`). A read error (stdin a
/// directory, EIO) is one line on stderr and exit 1, never a trap.
func readStandardInput() -> Data {
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(STDIN_FILENO, &chunk, chunk.count)
        if n > 0 {
            data.append(contentsOf: chunk[0..<n])
        } else if n == 0 {
            return data
        } else if errno != EINTR {
            let code = errno
            Output.err("authdeck: cannot read standard input: \(Output.describe(errno: code))")
            exit(ExitCode.failure)
        }
    }
}

/// The running executable (`/proc/self/exe`), whatever argv[0] says: it may be missing (argc 0,
/// seen under an LD_PRELOAD library), empty (Linux passes "" for an empty argv), or a bare name
/// found through PATH (which would make paths relative to the working directory).
func executableURL() -> URL {
    if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: CommandLine.arguments.first ?? "authdeck")
}

/// Makes sure descriptors 0, 1 and 2 are open before anything else opens a file. A closed one
/// (`authdeck token >&-`) would otherwise be handed to the next file opened (the store, a lock),
/// and a token written to "stdout" would land in that file. A closed 0 is reopened on /dev/null
/// for reading (empty input); a closed 1 or 2 is reopened on /dev/null **read-only**, so it keeps
/// its number taken while writes to it still fail (EBADF) and `Output` reports that stdout is
/// closed instead of pretending the result was delivered.
func reserveStandardDescriptors() {
    for fd in Int32(0)...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
        let opened = open("/dev/null", O_RDONLY)
        if opened >= 0 && opened != fd {
            _ = dup2(opened, fd)
            close(opened)
        }
    }
}
