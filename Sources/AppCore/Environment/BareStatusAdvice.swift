import AuthEngine
import FoundationEssentials

/// What a bare 4xx (an HTTP status without an RFC 6749 §5.2 error body, as a gateway or a
/// provider that says nothing answers) most likely means at each endpoint, and what to do next.
/// One place for every front end: the use cases wrap their step's error with ``advise(_:at:)``.
public enum BareStatusAdvice {
    /// The step that got the answer, with what the advice names.
    public enum Step: Sendable {
        /// RFC 9126 §2.1, with the `redirect_uri` sent.
        case pushedAuthorization(redirectURI: String, provider: ProviderID)
        /// RFC 6749 §4.1.3, with the `redirect_uri` repeated in the exchange.
        case codeExchange(redirectURI: String, provider: ProviderID)
        /// RFC 6749 §6.
        case refresh(provider: ProviderID)
        /// RFC 7662 §2.1, by a public client or not.
        case introspection(publicClient: Bool)
    }

    /// `error` as the person should read it when it is a bare 4xx at `step`; else `error` mapped as usual.
    public static func advise(_ error: any Error, at step: Step) -> AppError {
        var mapped = ErrorMapping.appError(error)
        guard let status = bareClientErrorStatus(error) else { return mapped }
        switch step {
        case .pushedAuthorization(let redirectURI, let provider), .codeExchange(let redirectURI, let provider):
            let pushed = if case .pushedAuthorization = step { true } else { false }
            mapped.title = pushed
                ? "The provider refused the pushed authorization request with HTTP \(status) and no explanation"
                : "The provider refused the authorization code with HTTP \(status) and no explanation"
            mapped.detail = "The likely cause is the redirect URI: authdeck sent redirect_uri=\(redirectURI), and a provider that compares"
                + " redirect URIs exactly (port included) refuses any URI not registered for the client."
                + (pushed ? " Nothing was opened in the browser." : "")
            mapped.specReference = pushed ? "RFC 9126 §2.3, RFC 6749 §3.1.2.3" : "RFC 6749 §4.1.3"
            mapped.nextStep = "Register \(redirectURI) with the client at the provider, or sign in on the port registered there:"
                + " authdeck login \(provider) --redirect-port PORT (keep it: authdeck provider add … --redirect-port PORT);"
                + " or use the device flow: authdeck login \(provider) --device."
        case .refresh(let provider):
            mapped.title = "The provider refused the refresh with HTTP \(status) and no explanation"
            mapped.detail = "The grant may have ended (revoked, expired or signed out elsewhere), or the provider failed to say why."
            mapped.specReference = "RFC 6749 §6"
            mapped.nextStep = "Try again later; if it persists, sign in again: authdeck login \(provider)."
        case .introspection(let publicClient):
            guard status == 401 || status == 403 else { return mapped }
            mapped.title = "The provider refused the introspection request (HTTP \(status))"
            mapped.detail = publicClient
                ? "Its introspection endpoint does not admit public clients (RFC 7662 §2.1 lets it ask for client authentication);"
                    + " this client has no secret."
                : "It did not accept the client's authentication for introspection."
            mapped.specReference = "RFC 7662 §2.1"
            mapped.nextStep = publicClient
                ? "Decode the token locally instead (authdeck decode), or ask the provider's operator for an introspection client."
                : "Check the client secret: authdeck provider show."
        }
        return mapped
    }

    /// The status of a 4xx answer that came without an OAuth error body (through a refused push too).
    static func bareClientErrorStatus(_ error: any Error) -> Int? {
        let auth: AuthError? = switch error {
        case let error as AuthError: error
        case PushedAuthorizationFailure.refused(let inner): inner
        default: nil
        }
        guard case .httpStatus(let failure)? = auth.map(\.underlying), (400..<500).contains(failure.status), failure.status != 429 else {
            return nil
        }
        return failure.status
    }
}
