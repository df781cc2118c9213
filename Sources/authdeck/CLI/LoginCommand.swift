import AppCore
import AppCoreLive
import AuthEngine
import AuthEngineLive
import Glibc
import FoundationEssentials
import Synchronization

// gh's shape: per command an options struct made from the parsed arguments (validated before
// anything runs) and a run function over the live session (one file per verb).

// MARK: - login

struct LoginOptions {
    var provider: String?
    var device: Bool
    var scopes: [String]
    var audience: String?
    var resources: [String]
    var name: String?
    var noBrowser: Bool
    /// `--redirect-port`: this sign-in listens on exactly this port.
    var redirectPort: UInt16?
    /// `login URL`: no question before the sign-in (scripts).
    var yes: Bool
    var clientMetadataURL: String?
    var authorizationServer: String?
    /// `--acr-values` / `--max-age`: a step-up sign-in (RFC 9470 §4).
    var stepUp: StepUpRequirement?

    init(_ parsed: ParsedCommand) {
        provider = parsed.positional("provider")
        device = parsed.flag("device")
        scopes = parsed.values("scope")
        audience = parsed.value("audience")
        resources = parsed.values("resource")
        name = parsed.value("name")
        noBrowser = parsed.flag("noBrowser")
        redirectPort = parsed.value("redirectPort").flatMap(RedirectPortOption.parse)
        yes = parsed.flag("yes")
        clientMetadataURL = parsed.value("clientMetadataUrl")
        authorizationServer = parsed.value("authorizationServer")
        let acrValues = (try? StepUpChallenge.values(parsed.value("acrValues"), named: "acr_values")) ?? []
        let maxAge = (try? StepUpChallenge.maxAge(parsed.value("maxAge"))) ?? nil
        if !acrValues.isEmpty || maxAge != nil { stepUp = StepUpRequirement(acrValues: acrValues, maxAge: maxAge) }
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        if parsed.flag("device") && parsed.flag("noBrowser") { return "--device never opens a browser; drop --no-browser" }
        if let name = parsed.value("name"), let problem = AccountResolution.aliasProblem(name) { return problem }
        if parsed.flag("device") && parsed.value("redirectPort") != nil { return "--device has no redirect; drop --redirect-port" }
        if let problem = RedirectPortOption.problem(parsed) { return problem }
        do {
            _ = try StepUpChallenge.values(parsed.value("acrValues"), named: "acr_values")
            _ = try StepUpChallenge.maxAge(parsed.value("maxAge"))
        } catch {
            return "--\(error.parameter == "max_age" ? "max-age" : "acr-values"): \(error.problem)"
        }
        if parsed.flag("device") && (parsed.value("acrValues") != nil || parsed.value("maxAge") != nil) {
            return "--acr-values and --max-age travel in the browser's authorization request; drop --device"
        }
        return nil
    }
}

func loginRun(_ options: LoginOptions, _ context: CLIContext) async throws -> Int32 {
    remoteStoreNote(context, "login")
    let app = context.app
    // `authdeck login https://mcp.example.com/mcp`: a URL that is not a configured provider's name.
    if let argument = options.provider, SignInToResource.isResourceURL(argument, providers: (try? context.snapshot().providers) ?? []) {
        return try await resourceLoginRun(options, context)
    }
    if options.yes || options.clientMetadataURL != nil || options.authorizationServer != nil {
        throw CLIFailure(usageMessage: "--yes, --client-metadata-url and --authorization-server go with a resource URL",
                         hint: "Sign in to a resource by its URL: authdeck login https://mcp.example.com/mcp --yes.")
    }
    let providerID: ProviderID
    switch context.result({ () throws(AppError) in try SignIn(app).resolveProvider(options.provider) }) {
    case .success(let id): providerID = id
    case .failure(let error):
        // `authdeck login alice`: an account where a provider goes.
        if error.disposition == .usage, let name = options.provider, let snapshot = try? context.snapshot(),
           let record = try? AccountResolution.resolve(name, accounts: snapshot.accounts, active: nil, environmentAccount: nil) {
            throw CLIFailure(usageMessage: "'\(name)' is an account (\(AccountResolution.handle(record))), not a provider",
                             hint: "login takes a provider: 'authdeck login \(record.providerID.rawValue)' signs in to"
                                 + " \(record.providerID.rawValue) again (as \(record.displayName) or another user).")
        }
        // A typo of a provider's name: the nearest one (edit distance, as for commands).
        if error.disposition == .usage, let name = options.provider, let snapshot = try? context.snapshot(),
           let guess = ArgumentParser.closest(to: name, among: snapshot.providers.map(\.id.rawValue)) {
            throw CLIFailure(error, hint: "Did you mean 'authdeck login \(guess)'?")
        }
        throw CLIFailure(error)
    }
    let snapshot = try context.snapshot()
    try context.unlock()
    let request = SignInRequest(providerID: providerID, flow: options.device ? .device : .browser, extraScopes: options.scopes,
                                audience: options.audience, resources: options.resources, alias: options.name, noBrowser: options.noBrowser,
                                redirectPort: options.redirectPort, stepUp: options.stepUp)
    let (result, interrupted) = await Interrupt.cancellable { () async -> Result<SignInOutcome, AppError> in
        do throws(AppError) {
            // A browser on another machine: its redirect pasted on this terminal (read only when no browser opened here).
            let reader = TerminalLineReader()
            defer { reader?.close() }
            let pasted = reader.map { reader in PastedLines { await PasteInstructions.nextLine(reader) } }
            return .success(try await SignIn(app).run(request, pasted: pasted) { progress in reportSignInProgress(progress) })
        } catch {
            return .failure(error)
        }
    }
    if interrupted {
        Output.err("Sign-in cancelled; nothing was stored.")
        return ExitCode.interrupted
    }
    switch result {
    case .success(let outcome):
        let record = outcome.record
        for warning in record.tokenWarnings ?? [] { Output.err("warning: \(warning)") }
        // Known only now: which account signed in (signing in again as itself with its alias is no conflict).
        let others = snapshot.accounts.filter { $0.id != record.id }
        for note in options.name.map({ AccountResolution.aliasConflicts($0, among: others) }) ?? [] { Output.err("note: \(note)") }
        let next = outcome.becameActive
            ? "; it is the active account"
            : "; switch to it with 'authdeck switch \(record.alias ?? AccountResolution.handle(record))'"
        Output.err("Signed in as \(record.displayName) (\(AccountResolution.handle(record)))\(next).")
        Output.err(storedInText(snapshot.credentialStore))
        return ExitCode.ok
    case .failure(let error):
        if error.disposition == .cancelled {
            Output.err("Sign-in cancelled; nothing was stored.")
            return ExitCode.interrupted
        }
        throw CLIFailure(error, hint: error.disposition == .needsSignIn ? "Start the sign-in again." : nil)
    }
}

/// Where a sign-in's tokens went and why that store ("Tokens stored in the Secret Service
/// (keyring): a Secret Service answered on the session bus; recorded in …/store.json.").
func storedInText(_ store: StoreInfo) -> String {
    "Tokens stored in \(store.label)\(store.reason.map { ": \($0)" } ?? "")."
}

@Sendable func reportSignInProgress(_ progress: SignInProgress) {
    switch progress {
    case .discovering:
        break
    case .waitingForBrowser(let url, let opened):
        if opened {
            Output.err("Opened the browser to sign in; waiting for it to finish (Ctrl-C cancels).")
            Output.err("If nothing opened, visit:\n  \(url.absoluteString)")
            Output.err(PasteInstructions.providerRefused)
        } else {
            Output.err("Open this URL in a browser to sign in (Ctrl-C cancels):\n  \(url.absoluteString)")
        }
    case .exchangingCode:
        Output.err("Exchanging the authorization code…")
    case .deviceCode(let display):
        Output.err("To sign in, visit \(display.verificationURI.absoluteString)")
        Output.err("and enter the code: \(display.userCode)")
        if let complete = display.verificationURIComplete {
            Output.err("(or open \(complete.absoluteString))")
        }
        for note in display.notes { Output.err("note: \(note)") }
        if Output.stderrIsTerminal,
           let qr = DeviceQRCode.terminalText(for: (display.verificationURIComplete ?? display.verificationURI).absoluteString) {
            Output.err(qr)
        }
        Output.err("The code expires at \(Times.rfc3339(display.expiresAt)); waiting for approval (Ctrl-C cancels)…")
    case .devicePending:
        break
    case .deviceSlowDown(let interval):
        Output.err("The provider asked to poll more slowly (every \(interval.components.seconds)s).")
    case .verifying:
        break
    case .waitingForPaste(let redirectURI, let fixedPort):
        for line in PasteInstructions.lines(redirectURI: redirectURI, fixedPort: fixedPort, environment: CLIContext.current.environment) {
            Output.err(line)
        }
    case .pastedLineRefused(let reason):
        Output.err("\(reason) Paste it again, or press Ctrl-C to cancel.")
    case .pastedRedirectAccepted:
        Output.err("Got the redirect you pasted.")
    }
}

/// What a person with the browser on another machine reads while the sign-in waits: paste the
/// address the browser ended on (or the code); in an SSH session with a registered port, the
/// one `ssh -L` line that lets that browser deliver the redirect itself.
enum PasteInstructions {
    static func lines(redirectURI: URL, fixedPort: Bool, environment: [String: String]) -> [String] {
        var lines = [
            "After you sign in, the browser goes to \(redirectURI.absoluteString)?code=…",
            "If it cannot reach this machine (\"This site can't be reached\"), copy the whole address from its address bar and paste it here"
                + " (not shown), then press Enter; the code alone works too.",
        ]
        if fixedPort, let port = redirectURI.port, environment["SSH_CONNECTION"] != nil {
            lines.append("Or, from the machine with the browser, forward the port and it finishes by itself:"
                + " ssh -L \(port):127.0.0.1:\(port) \(sshDestination(environment))")
        }
        lines.append(providerRefused)
        lines.append("Redirect address or code:")
        return lines
    }

    /// The authorization endpoint's refusal reaches only the browser (RFC 6749 §4.1.2.1: never a
    /// redirect to an unverified URI): what the person does when the page shows one.
    static let providerRefused = "If the provider's page shows an error about the redirect URI, press Ctrl-C: register the URI"
        + " 'authdeck provider show' lists exactly (or sign in with --redirect-port PORT on the port it has registered), or use --device."

    /// `[-p PORT] user@address` of this machine as the person's ssh reached it: the server's
    /// address and port from `SSH_CONNECTION` ("client-ip client-port server-ip server-port"), else
    /// the host name; the login name.
    static func sshDestination(_ environment: [String: String]) -> String {
        let connection = (environment["SSH_CONNECTION"] ?? "").split(separator: " ").map(String.init)
        var host: String
        if connection.count == 4 {
            host = connection[2].contains(":") ? "[\(connection[2])]" : connection[2]
        } else {
            var name = [CChar](repeating: 0, count: 256)
            host = gethostname(&name, name.count) == 0
                ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "THIS-HOST"
        }
        let port = connection.count == 4 && connection[3] != "22" ? "-p \(connection[3]) " : ""
        let user = environment["USER"] ?? environment["LOGNAME"]
        return Output.visible(port + (user.map { "\($0)@\(host)" } ?? host))
    }

    /// The next pasted line, as the sign-in reads it: a line the terminal cut (longer than its
    /// canonical-mode limit) is said and skipped; the end of input (Ctrl-D) is said once.
    static func nextLine(_ reader: TerminalLineReader) async -> String? {
        while let line = await reader.nextLine() {
            guard line.utf8.count < TerminalLineReader.canonicalLineLimit else {
                Output.err("That line reached the terminal's limit of \(TerminalLineReader.canonicalLineLimit) bytes and was cut;"
                    + " paste the code alone (the value after code=) instead.")
                continue
            }
            return line
        }
        if !Task.isCancelled { Output.err("No more input here; waiting for the redirect to reach this machine (Ctrl-C cancels).") }
        return nil
    }
}
