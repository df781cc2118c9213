import AuthEngine
import CredentialStore
import FoundationEssentials

/// The one mapping from the engine's and the store's typed errors to what the app shows
/// (``AppError``). Messages come from ``PresentableError`` and never hold a token.
public enum ErrorMapping {
    static func appError(_ error: AuthError) -> AppError {
        let presentable = PresentableError(from: error)
        let disposition: AppError.Disposition
        if case .transport(.cancelled) = error {
            disposition = .cancelled
        } else if error.invalidatesGrant || error.requiresInteraction {
            // Both end in an interactive `authdeck login` (mfa_required: a refresh cannot do MFA).
            disposition = .needsSignIn
        } else if error.isTransient {
            disposition = .transient(retryAfter: error.retryAfter)
        } else if error.isSecurityRelevant {
            disposition = .securityRelevant
        } else {
            disposition = .other
        }
        // A name that does not resolve is as likely a typo as a network down: never only "temporary".
        var nextStep: String?
        if case .transport(let transport) = error.underlying, let host = transport.unresolvedHost {
            nextStep = "The host name \(host) does not resolve (DNS): check the provider's address for a typo ('authdeck provider show'),"
                + " then your network, DNS or proxy (HTTPS_PROXY)."
        }
        return AppError(title: oneLine(presentable.title), detail: oneLine(presentable.detail), specReference: presentable.specReference,
                        disposition: disposition, nextStep: nextStep)
    }

    /// Error texts are one line: a line break from outside (an `error_description`) could
    /// otherwise print a line that looks like authdeck's own (`error: run …`).
    static func oneLine(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline }) else { return text }
        return text.split(omittingEmptySubsequences: false, whereSeparator: { $0.isNewline }).joined(separator: "\\n")
    }

    static func appError(_ error: SecretStoreError) -> AppError {
        if let damage = error.damage { return FileDamage(file: damage.file ?? "A Secret Service item", damage: damage.description).appError }
        switch error {
        case .locked(let cause):
            // Only the Secret Service throws `.locked` (the vault's are the passphrase's cases).
            return AppError(title: "The keyring is locked", detail: cause.message, disposition: .storeLocked, nextStep: keyringLockedNextStep)
        case .wrongPassphrase, .passphraseUnavailable:
            return AppError(title: "The credential store is locked", detail: "\(error)", disposition: .storeLocked)
        case .timeout(let operation, _):
            // A local store, not the network: what to check depends on what did not answer.
            let next = operation.hasPrefix("Secret Service")
                ? "The Secret Service (the keyring daemon on the session bus) did not answer: check that it is running and not stuck,"
                    + " then try again, or keep secrets in the encrypted vault instead (AUTHDECK_STORE=vault)."
                : "Another authdeck process holds the lock; try again when it has finished."
            return AppError(title: "The credential store did not answer in time", detail: "\(error)", disposition: .transient(retryAfter: nil),
                            nextStep: next)
        case .cancelled:
            return .cancelled
        case .notFound(let key):
            return AppError(title: "No stored secrets for \(key)", detail: "", disposition: .needsSignIn)
        default:
            return AppError(title: "Credential store error", detail: "\(error)", disposition: .other)
        }
    }

    /// What to do about a locked keyring (any front end).
    public static let keyringLockedNextStep =
        "Unlock the keyring (log in to the desktop session, or unlock the login keyring in your keyring tool, e.g. seahorse)"
            + " and try again; a sign-in waits at the keyring's unlock prompt when one can be shown."

    static func appError(_ error: RedirectListenerFailure) -> AppError {
        switch error {
        case .cancelled:
            return .cancelled
        case .timedOut:
            return AppError(title: "The browser sign-in timed out",
                            detail: "No redirect reached the loopback listener in time; start the sign-in again.",
                            specReference: "RFC 8252 §8.3", disposition: .other)
        case .failed(let detail):
            return AppError(title: "The loopback redirect listener failed", detail: detail, specReference: "RFC 8252 §7.3", disposition: .other)
        case .portBusy(let port, let holder):
            var error = AppError(title: "Port \(port) on 127.0.0.1 is in use\(holder.map { " by \($0)" } ?? "")",
                                 detail: "This sign-in listens on exactly this port of 127.0.0.1 (the provider's --redirect-port, or the"
                                     + " one given for this sign-in), so no other port is tried.",
                                 specReference: "RFC 6749 §3.1.2.3", disposition: .other)
            error.nextStep = "Stop what listens on port \(port) and try again, or sign in once on another port registered with the"
                + " provider: --redirect-port PORT."
            return error
        }
    }

    /// RFC 9126 §2.3: a refused push; nothing was opened in the browser.
    static func appError(_ error: PushedAuthorizationFailure) -> AppError {
        let reference = "RFC 9126 §2.3"
        switch error {
        case .invalidRequest(let description):
            return AppError(title: "The provider refused the pushed authorization request (invalid_request)",
                            detail: oneLine(description ?? "Check the provider's scopes, audience and redirect settings.")
                                + " Nothing was opened in the browser.", specReference: reference)
        case .invalidClient(let description):
            return AppError(title: "The provider did not accept the client's authentication (invalid_client)",
                            detail: oneLine(description ?? "Check the client id and secret: authdeck provider show.")
                                + " Nothing was opened in the browser.", specReference: reference)
        case .tooManyRequests(let retryAfter):
            return AppError(title: "The provider is rate-limiting pushed authorization requests (HTTP 429)",
                            detail: retryAfter.map { "It asks to wait \(Int($0.rounded(.up))) s (Retry-After)." } ?? "",
                            specReference: reference, disposition: .transient(retryAfter: retryAfter))
        case .missingMember(let name):
            let wanted = name == "expires_in" ? "a positive number of seconds" : "a non-empty string"
            return AppError(title: "The pushed authorization response has no usable \(name)",
                            detail: "The provider answered the push without `\(name)` as \(wanted); nothing was opened in the browser.",
                            specReference: "RFC 9126 §2.2", disposition: .securityRelevant)
        case .refused(let inner):
            return appError(inner)
        }
    }

    /// The damage a store error reports (corrupt or truncated), nil for any other error.
    public static func damage(_ error: SecretStoreError) -> FileDamage? {
        error.damage.map { FileDamage(file: $0.file ?? "A Secret Service item", damage: $0.description) }
    }

    public static func appError(_ error: any Error) -> AppError {
        switch error {
        case let error as AuthError: appError(error)
        case let error as SecretStoreError: appError(error)
        case let error as RedirectListenerFailure: appError(error)
        case let error as PushedAuthorizationFailure: appError(error)
        case let error as AppError: error
        case is CancellationError: .cancelled
        default: AppError(title: "Unexpected error", detail: String(describing: type(of: error)), disposition: .other)
        }
    }
}
