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
/// Whether `url` is plain HTTP on a loopback address (accepted, and marked as such).
/// The engine's one rule: plain http only on a loopback IP literal (127.0.0.0/8, ::1).
func isLoopbackHTTP(_ url: URL) -> Bool { URLPolicy.isLoopbackHTTP(url) }

/// https, or plain http on loopback, and the configured-URL rules for `role` (no whitespace or
/// control characters, no user info, a real port; for an issuer no query or fragment, for an
/// endpoint no fragment; `.request`, the default for `api URL` and `decode --issuer`, only the
/// general rules): anything else is a usage error saying what to do instead.
/// `named` is how the command line spells the value: `--issuer` for an option, `<url>` for an argument.
func checkSecureURL(_ text: String, named: String, role: URLPolicy.ConfiguredURLRole = .request, hint: String? = nil) throws -> URL {
    switch URLPolicy.validateConfigured(text, role: role) {
    case .success(let url): return url
    case .failure(let violation):
        throw CLIFailure(usageMessage: "\(named) '\(Output.visible(URLPolicy.redactingUserInfo(text)))' \(violation)", hint: hint ?? violation.hint)
    }
}

/// The first violation of a provider configuration as a usage error (`provider add`).
func checkProviderConfig(_ config: ProviderConfig) throws {
    if let violation = config.validate().first { throw CLIFailure(usageMessage: violation.description, hint: violation.hint) }
}

/// What is wrong with a `--resource` value (RFC 8707 §2), in the engine's words; nil when it is
/// a resource indicator. A user name or password in it is never echoed.
func resourceIndicatorProblem(_ resource: String) -> String? {
    do throws(AuthError) {
        try validateResourceIndicator(resource)
        return nil
    } catch {
        return "--resource: \(PresentableError(from: error).detail)"
    }
}
