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
/// A command that failed: what was wrong, what to do next, and the exit code. `main` prints
/// `error: <message>` and the hint on stderr.
struct CLIFailure: Error {
    var message: String
    var hint: String?
    var exitCode: Int32

    init(_ message: String, hint: String? = nil, exitCode: Int32 = ExitCode.failure) {
        self.message = message
        self.hint = hint
        self.exitCode = exitCode
    }

    /// An ``AppError`` from the live session, with its disposition mapped to the exit code:
    /// `.needsSignIn` → 3, `.storeLocked` → 4, `.fileDamaged` → 5, anything else → 1.
    init(_ error: AppError, hint: String? = nil) {
        let code: Int32
        var next = hint ?? error.nextStep
        switch error.disposition {
        case .needsSignIn:
            code = ExitCode.needsSignIn
            if next == nil { next = "Sign in again with 'authdeck login'." }
        case .storeLocked:
            code = ExitCode.storeLocked
            if next == nil {
                // The passphrase file named and refused (the message says why), else how to give one.
                if let file = CLIContext.current.environment[PassphraseSource.fileVariable], !file.isEmpty {
                    next = PassphraseSource.fileRequirement(path: file) + "."
                } else {
                    next = "Unlock the vault: set AUTHDECK_PASSPHRASE_FILE to a 0600 file holding its passphrase,"
                        + " or run from a terminal to be asked for it."
                }
            }
        case .fileDamaged: code = ExitCode.fileDamaged
        case .other where error.probe != nil:
            code = ExitCode.failure
            if next == nil, let probe = error.probe { next = Self.advice(probe) }
        case .cancelled: code = ExitCode.interrupted
        case .usage: code = ExitCode.usage
        case .transient(let retryAfter): code = ExitCode.failure
            // A local store's timeout brings its own advice (ErrorMapping); this is the network's.
            if next == nil {
                next = retryAfter.map { "This looks temporary: try again in \(Int($0.rounded(.up))) s." }
                    ?? "This looks temporary (network or server); try again."
            }
        default: code = ExitCode.failure
        }
        self.init(error.description, hint: next, exitCode: code)
    }

    /// What to do about a failed discovery probe of `provider add`, in the command line's terms:
    /// `issuer`, the options the issuer was given with (`--issuer`, or a preset's `--domain`).
    static func advice(_ probe: ProviderProbeFailure, issuer: String = "--issuer", action: String = "add") -> String {
        let todo = switch probe.cause {
        case .hostNotFound(let host):
            "The host name \(host) does not resolve: check \(issuer) for a typo, and your DNS or proxy (HTTPS_PROXY)."
        case .noConnection(let host):
            "Nothing accepted a connection at \(host): check the port, that the provider is running, and your proxy (HTTPS_PROXY, NO_PROXY)."
        case .timeout: "Check the network, a firewall or your proxy."
        case .tls: "For a private CA give its PEM bundle with --ca-bundle PATH (or SSL_CERT_FILE)."
        case .interrupted: "Try again; if it persists, check a proxy in between."
        case .tooLarge: "The answer is not a discovery document: check \(issuer)."
        case .plainHTTP: "Only loopback addresses may use http: use the provider's https issuer."
        case .cancelled: "The probe was interrupted."
        case .httpStatus:
            "No discovery document there: check \(issuer) (the provider's issuer identifier, exactly as it publishes it),"
                + " or give the endpoints by hand (--token-endpoint, --authorization-endpoint)."
        case .notJSON: "\(issuer) probably points at a web page, not at the provider's issuer."
        case .issuerMismatch(let published, let configured):
            "The document names the issuer '\(published)', not '\(configured)'; issuers compare code unit for code unit:"
                + " use --issuer \(published) if that is the provider you mean."
        case .invalidDocument: "The discovery document breaks a rule sign-in relies on (above): check \(issuer)."
        }
        return todo + " Add --no-probe to \(action) it anyway (offline, or a provider that is not up yet)."
    }

    static func usage(_ message: String) -> CLIFailure { CLIFailure(message, exitCode: ExitCode.usage) }

    /// A usage error (exit 2) with what to do next.
    init(usageMessage: String, hint: String) { self.init(usageMessage, hint: hint, exitCode: ExitCode.usage) }
}

extension CLIFailure {
    /// What to run to sign in, for the providers configured: add one first when there is none,
    /// else `login` with the provider's name (the only one, or the choice).
    static func signInAdvice(_ providers: [ProviderConfig]) -> String {
        switch providers.count {
        case 0: "Add a provider with 'authdeck provider add NAME --issuer URL --client-id ID' (or --preset NAME), then sign in with 'authdeck login'."
        case 1: "Sign in with 'authdeck login \(providers[0].id.rawValue)'."
        default: "Sign in with 'authdeck login PROVIDER' (providers: \(commaList(providers.map(\.id.rawValue))))."
        }
    }

    /// An account that could not be resolved (``AccountResolution``), worded for the command line;
    /// the next step of "no account" names the `providers` configured.
    init(_ error: AccountResolutionError, providers: [ProviderConfig]) {
        switch error {
        case .noAccounts:
            self.init("No account is signed in", hint: Self.signInAdvice(providers), exitCode: ExitCode.needsSignIn)
        case .noDefault(let known):
            self.init("No active account among \(known.count) accounts (\(known.joined(separator: ", ")))",
                      hint: "Name one (see 'authdeck status') or pick the default with 'authdeck switch ACCOUNT'.", exitCode: ExitCode.usage)
        case .noMatch(let query, let source, let known):
            self.init("No account matches '\(query)'\(source.settingName.map { " (from \($0))" } ?? "")",
                      hint: "Known accounts: \(known.joined(separator: ", ")). See 'authdeck status'.", exitCode: ExitCode.usage)
        case .ambiguous(let query, let source, let matches):
            self.init("'\(query)'\(source.settingName.map { " (from \($0))" } ?? "") matches several accounts: \(matches.joined(separator: ", "))",
                      hint: "Type more of the name, or use the account id.", exitCode: ExitCode.usage)
        case .ruleAccountMissing(let directory, let account):
            self.init("The rule for \(directory) names \(account), which is not signed in",
                      hint: "Sign in to it again, bind another account with 'authdeck bind ACCOUNT --dir \(directory)',"
                          + " or remove the rule with 'authdeck unbind --dir \(directory)'.",
                      exitCode: ExitCode.usage)
        case .rulesUnreadable(let problem):
            self.init("The directory rules cannot be read (\(problem))",
                      hint: "bindings.json holds only the directory rules ('authdeck bind'): fix it or move it aside, or name the account meanwhile.",
                      exitCode: ExitCode.failure)
        }
    }
}
