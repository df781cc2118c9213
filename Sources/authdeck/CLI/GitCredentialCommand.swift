import AppCore
import AuthEngine
import FoundationEssentials
import Glibc

// `authdeck git-credential get|store|erase`: git's credential helper (gitcredentials(7)),
// installed by `authdeck setup-git`.

extension Commands {
    static let gitCredential = CommandSpec(
        name: "git-credential",
        abstract: "Answer git's credential requests (gitcredentials(7)) with an account's access token.",
        discussion: "Installed by 'authdeck setup-git'. get: for a host a provider serves ('provider add --git-host'),"
            + " prints username= and password= (the access token, refreshed under the account lock when it expires within a minute)"
            + " and password_expiry_utc=; with capability[]=authtype (git 2.46 and later) authtype=Bearer and credential= instead."
            + " The account: the username in the remote URL when it names one, else the one the repository resolves to"
            + " (see 'authdeck which'), else the only account of the host's provider. A host no provider serves gets nothing and exit 0."
            + " store does nothing; erase (the token was rejected) refreshes it once, under the lock."
            + " Never a browser, never a refresh or ID token.",
        positionals: [PositionalSpec(name: "operation", optional: false, help: "get, store or erase (as git calls it).")],
        validate: { parsed in
            let operation = parsed.positional("operation") ?? ""
            return ["get", "store", "erase"].contains(operation) ? nil : "git-credential takes get, store or erase, got '\(operation)'"
        },
        run: { try await gitCredentialRun($0.positional("operation") ?? "", .current) }
    )
}

/// Reads a credential helper's request: up to `limit` bytes, to the end of input or git's blank line.
func readHelperRequest(limit: Int) -> [UInt8]? {
    var data: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while data.count <= limit {
        let count = read(STDIN_FILENO, &chunk, chunk.count)
        if count > 0 {
            data.append(contentsOf: chunk[0..<count])
            if data.count >= 2, data.suffix(2).elementsEqual([10, 10]) || data == [10] { break }
        } else if count == 0 {
            break
        } else if errno != EINTR {
            return nil
        }
    }
    return data
}

/// A credential helper's failure on stderr, worded as the CLI words it; the exit code.
func helperFailure(_ failure: CredentialHelperFailure, prefix: String) -> Int32 {
    let mapped: CLIFailure = switch failure {
    case .resolution(let error, let providers): CLIFailure(error, providers: providers)
    case .problem(let error): CLIFailure(error)
    }
    Output.err("\(prefix): \(mapped.message)\(mapped.hint.map { "\n\($0)" } ?? "")")
    return mapped.exitCode
}

func gitCredentialRun(_ operation: String, _ context: CLIContext) async throws -> Int32 {
    guard let bytes = readHelperRequest(limit: GitCredentialRequest.maximumSize) else {
        Output.err("authdeck git-credential: cannot read the request on standard input")
        return ExitCode.failure
    }
    if operation == "store" { return ExitCode.ok }
    let request: GitCredentialRequest
    do { request = try GitCredentialRequest.parse(bytes) } catch {
        Output.err("authdeck git-credential: \(error.description); git sends key=value lines ending with a blank line")
        return ExitCode.usage
    }
    if let socket = agentSocket(context) {
        return remoteHelperRun(operation == "erase" ? .gitCredentialErase : .gitCredentialGet, bytes, socket, context, git: request)
    }
    let helper = GitCredentials(context.app)
    let environmentAccount = context.environment["AUTHDECK_ACCOUNT"]
    do {
        if operation == "erase" {
            if let record = try await helper.erase(request, environmentAccount: environmentAccount) {
                Output.err("authdeck: \(request.host ?? "the server") refused the access token of \(AccountResolution.describe(record));"
                    + " the next request gets a refreshed one")
            }
            return ExitCode.ok
        }
        guard let credential = try await helper.get(request, environmentAccount: environmentAccount) else { return ExitCode.ok }
        return printGitCredential(request, username: credential.username, token: credential.token, expiresAt: credential.expiresAt)
    } catch {
        return helperFailure(error, prefix: "authdeck git-credential")
    }
}

/// git's answer: username and password (or, to a git that takes it, a Bearer credential) and the expiry.
func printGitCredential(_ request: GitCredentialRequest, username: String, token secret: AccessToken, expiresAt: Date?) -> Int32 {
    do {
        let token = secret.exposedValue
        let credential = (username: username, expiresAt: expiresAt)
        // A value with a line break would inject keys of its own into git's protocol.
        func holdsLineBreak(_ text: String) -> Bool { text.utf8.contains { $0 == 10 || $0 == 13 || $0 == 0 } }
        guard !holdsLineBreak(token), !holdsLineBreak(credential.username) else {
            Output.err("authdeck git-credential: the access token or username holds a line break; nothing was sent")
            return ExitCode.failure
        }
        var lines: [String] = []
        if request.takesAuthtype {
            lines += ["capability[]=authtype", "authtype=Bearer", "credential=\(token)", "ephemeral=1"]
        } else {
            lines += ["username=\(credential.username)", "password=\(token)"]
        }
        if let expiresAt = credential.expiresAt { lines.append("password_expiry_utc=\(Int(expiresAt.timeIntervalSince1970))") }
        Output.raw(Data((lines.joined(separator: "\n") + "\n").utf8))
        return ExitCode.ok
    }
}
