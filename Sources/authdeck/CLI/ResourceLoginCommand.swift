import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// MARK: - login URL (a protected resource, RFC 9728)

/// `authdeck login URL`: discovery, the person's confirmation (or `--yes`), then the sign-in.
func resourceLoginRun(_ options: LoginOptions, _ context: CLIContext) async throws -> Int32 {
    let url = options.provider ?? ""
    // Before anything says the URL: a password in it is not shown, sent or stored.
    try context.run { () throws(AppError) in try SignInToResource.refuseCredentials(in: url) }
    if options.stepUp != nil {
        throw CLIFailure(usageMessage: "--acr-values and --max-age go with a provider's name",
                         hint: "Step up the resource's account through its provider: authdeck login PROVIDER --acr-values ACR"
                             + " (authdeck status names it).")
    }
    if options.device || options.audience != nil || !options.resources.isEmpty {
        throw CLIFailure(usageMessage: "--device, --audience and --resource do not go with a resource URL",
                         hint: "The resource is the URL itself: authdeck login \(Output.visible(url)) [--scope SCOPE].")
    }
    let app = context.app
    let useCase = SignInToResource(app)
    var request = ResourceSignInRequest(resourceURL: url, extraScopes: options.scopes, clientMetadataURL: options.clientMetadataURL,
                                        authorizationServer: options.authorizationServer, alias: options.name, noBrowser: options.noBrowser)
    let discovery = try await context.run { () async throws(AppError) in try await useCase.discover(url) }
    let servers = discovery.metadata.authorizationServers
    if request.authorizationServer == nil, servers.count > 1, !options.yes, isatty(STDIN_FILENO) == 1 {
        request.authorizationServer = try pickAuthorizationServer(servers, resource: discovery.resource)
    }
    let plan = try await context.run { () async throws(AppError) in try await useCase.plan(discovery, request) }
    for note in plan.notes { Output.err("note: \(Output.visible(note))") }
    Output.err(Output.visible(plan.summaryLines.joined(separator: "\n")))
    if !options.yes {
        guard isatty(STDIN_FILENO) == 1 else {
            throw CLIFailure(usageMessage: "Not confirmed: standard input is not a terminal",
                             hint: "Add --yes to sign in to \(Output.visible(plan.discovery.resource)) through "
                                 + "\(Output.visible(plan.authorizationServer.issuer)) without asking.")
        }
        Output.errInline("Resource \(Output.visible(plan.discovery.resource)) will be signed in through authorization server "
                         + "\(Output.visible(plan.authorizationServer.issuer)) — continue? [y/N] ")
        let answer = readLine(strippingNewline: true)?.trimmingWhitespace().lowercased() ?? ""
        guard answer == "y" || answer == "yes" else {
            Output.err("Not signed in; nothing was registered or stored.")
            return ExitCode.declined
        }
    }
    try context.unlock()
    let confirmed = request
    let (result, interrupted) = await Interrupt.cancellable { () async -> Result<SignInOutcome, AppError> in
        do throws(AppError) {
            return .success(try await useCase.run(plan, confirmed) { progress in reportSignInProgress(progress) })
        } catch {
            return .failure(error)
        }
    }
    if interrupted {
        Output.err("Sign-in cancelled; no tokens were stored.")
        return ExitCode.interrupted
    }
    switch result {
    case .success(let outcome):
        let record = outcome.record
        for warning in record.tokenWarnings ?? [] { Output.err("warning: \(warning)") }
        let handle = AccountResolution.handle(record)
        let active = outcome.becameActive ? "; it is the active account" : "; switch to it with 'authdeck switch \(handle)'"
        Output.err("Signed in to \(Output.visible(plan.discovery.resource)) (\(handle))\(active).")
        Output.err(storedInText(try context.snapshot().credentialStore))
        return ExitCode.ok
    case .failure(let error):
        if error.disposition == .cancelled {
            Output.err("Sign-in cancelled; no tokens were stored.")
            return ExitCode.interrupted
        }
        throw CLIFailure(error)
    }
}

/// Asks which of several authorization servers to use (RFC 9728 §7.6: the client chooses).
private func pickAuthorizationServer(_ servers: [String], resource: String) throws -> String {
    Output.err("\(Output.visible(resource)) names \(servers.count) authorization servers:")
    for (index, server) in servers.enumerated() { Output.err("  \(index + 1). \(Output.visible(server))") }
    Output.errInline("Which one? [1-\(servers.count)] ")
    guard let text = readLine(strippingNewline: true), let number = Int(text.trimmingWhitespace()), servers.indices.contains(number - 1) else {
        throw CLIFailure(usageMessage: "No authorization server chosen", hint: "Give one with --authorization-server URL.")
    }
    return servers[number - 1]
}
