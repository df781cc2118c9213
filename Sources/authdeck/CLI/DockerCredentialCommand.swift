import AppCore
import AuthEngine
import FoundationEssentials

// `authdeck docker-credential get|store|erase|list`, also run as `docker-credential-authdeck`
// (a symlink of that name on $PATH): docker's credential-helper protocol (docker-credential-helpers).

extension Commands {
    static let dockerCredential = CommandSpec(
        name: "docker-credential",
        abstract: "Answer docker's credential-helper requests (docker-credential-authdeck) with an account's access token.",
        discussion: "get reads a registry's server URL on stdin and prints {\"ServerURL\",\"Username\",\"Secret\"} (the access token)"
            + " for a registry a provider serves (the google preset: gcr.io, *.gcr.io, *-docker.pkg.dev as oauth2accesstoken);"
            + " an unknown one prints 'credentials not found in native keychain' and exits 1. list prints the registries served;"
            + " store and erase change nothing. Linked or copied as docker-credential-authdeck, the binary takes the operation"
            + " as its first argument.",
        positionals: [PositionalSpec(name: "operation", optional: false, help: "get, store, erase or list (as docker calls it).")],
        validate: { parsed in
            let operation = parsed.positional("operation") ?? ""
            return ["get", "store", "erase", "list"].contains(operation)
                ? nil : "docker-credential takes get, store, erase or list, got '\(operation)'"
        },
        run: { try await dockerCredentialRun($0.positional("operation") ?? "", .current) }
    )
}

/// docker's "not found" answer (`credentials.ErrCredentialsNotFound`), which docker tells apart from a failure.
let dockerCredentialsNotFound = "credentials not found in native keychain"

func dockerCredentialRun(_ operation: String, _ context: CLIContext) async throws -> Int32 {
    let helper = DockerCredentials(context.app)
    switch operation {
    case "list":
        // The agent's providers stay on its machine: a remote lists none (docker then asks per registry).
        if agentSocket(context) != nil { Output.json(.object([:])); return ExitCode.ok }
        let servers = try context.run { () throws(AppError) in try helper.list() }
        var object: [String: JSONValue] = [:]
        for (server, username) in servers { object[server] = .string(username) }
        Output.json(.object(object))
        return ExitCode.ok
    case "store", "erase":
        _ = readHelperRequest(limit: 65_536)
        return ExitCode.ok
    default:
        break
    }
    guard let bytes = readHelperRequest(limit: 4096) else {
        Output.err("docker-credential-authdeck: cannot read the server URL on standard input")
        return ExitCode.failure
    }
    let request: DockerCredentialRequest
    do { request = try DockerCredentialRequest.parse(bytes) } catch {
        Output.err("docker-credential-authdeck: \(error.description); docker sends the registry's URL, e.g. https://gcr.io")
        return ExitCode.usage
    }
    if let socket = agentSocket(context) { return remoteHelperRun(.dockerCredentialGet, bytes, socket, context, docker: request) }
    do {
        guard let credential = try await helper.get(request, environmentAccount: context.environment["AUTHDECK_ACCOUNT"]) else {
            Output.raw(Data((dockerCredentialsNotFound + "\n").utf8))
            return ExitCode.failure
        }
        Output.json(.object(["ServerURL": .string(request.serverURL), "Username": .string(credential.username),
                             "Secret": .string(credential.token.exposedValue)]))
        return ExitCode.ok
    } catch {
        return helperFailure(error, prefix: "docker-credential-authdeck")
    }
}
