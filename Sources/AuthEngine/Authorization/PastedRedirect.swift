import FoundationEssentials
import TextSupport

/// A line a person pasted back when the browser that finished the sign-in runs on another
/// machine and could not reach the loopback listener (RFC 8252 §7.3): the address the browser
/// ended on ("this site can't be reached" shows it), or the authorization code alone.
public enum PastedRedirect: Sendable, Equatable {
    /// The redirect as the listener would have received it: a GET of the redirect URI's path
    /// with the query's parameters; checked by ``validateAuthorizationResponse(callback:pending:metadata:)``
    /// exactly as a delivered one (`state`, `iss`, one use).
    case callback(RedirectCallback)
    /// The code alone, without `state` or `iss` to compare: ``validateAuthorizationResponse(pastedCode:pending:)``.
    /// The exchange's PKCE verifier (RFC 7636 §4.5) binds it to this request: a code issued for
    /// another request is refused by the token endpoint.
    case codeAlone(AuthorizationCode)
}

/// Why a pasted line is not this sign-in's redirect; the person is asked again.
public enum PastedRedirectProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing but white space.
    case empty
    /// A URL, but not of this sign-in's redirect URI (scheme, host, port and path compared code
    /// unit for code unit: another port is another sign-in).
    case otherRedirectURI(expected: String, actual: String)
    /// Neither a URL, a query nor a code (spaces or control characters in it).
    case unreadable
    /// Looks like part of an address (a host, `/callback`, `:PORT`), not the whole one nor a code.
    case partOfAnAddress
    /// Too short to be an authorization code (fewer than ``minimumCodeLength`` characters).
    case tooShort

    public var description: String {
        switch self {
        case .empty:
            "Nothing was pasted."
        case .otherRedirectURI(let expected, let actual):
            "That address (\(actual)) is not this sign-in's redirect (\(expected)…); paste the address the browser ended on after this"
                + " sign-in."
        case .unreadable:
            "That is neither the address the browser ended on (\("http://127.0.0.1:…/callback?code=…")) nor a code."
        case .partOfAnAddress:
            "That looks like part of an address: paste the whole address from the browser's address bar, http:// included."
        case .tooShort:
            "That is too short to be an authorization code: paste the whole address from the browser's address bar."
        }
    }
}

/// Reads a pasted line (RFC 8252 §7.3 redirect, delivered by hand):
/// - `http(s)://…`: the part before `?` (and without a `#` fragment) must be the redirect URI
///   exactly; the query's form-decoded parameters become a GET ``RedirectCallback`` on its path.
/// - `?code=…&state=…` or `code=…&state=…`: the query alone, on the redirect URI's path.
/// - anything else of visible ASCII (RFC 6749 §4.1.2 `code` is VSCHAR): the code alone.
/// White space around the line is dropped.
public func parsePastedRedirect(_ line: String, redirectURI: URL) -> Result<PastedRedirect, PastedRedirectProblem> {
    let text = line.trimmingWhitespaceAndNewlines()
    guard !text.isEmpty else { return .failure(.empty) }
    guard text.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else { return .failure(.unreadable) }
    let expected = redirectURI.absoluteString
    let path = redirectPath(of: expected)
    func callback(query: Substring) -> Result<PastedRedirect, PastedRedirectProblem> {
        let query = query.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let parameters = FormEncoding.decode(String(query)) else { return .failure(.unreadable) }
        return .success(.callback(RedirectCallback(method: "GET", path: path, parameters: parameters.map { ($0.name, $0.value) })))
    }
    // A fragment is never sent to the listener: cut before anything else, as a browser does.
    let withoutFragment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
    let lowered = withoutFragment.prefix(8).lowercased()
    if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
        let parts = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts[0].utf8.elementsEqual(expected.utf8) else { return .failure(.otherRedirectURI(expected: expected, actual: String(parts[0]))) }
        return callback(query: parts.count > 1 ? parts[1] : "")
    }
    if withoutFragment.hasPrefix("?") { return callback(query: withoutFragment.dropFirst()) }
    // An address without its scheme, or a piece of one.
    if withoutFragment.contains("?") || withoutFragment.contains("/callback") || withoutFragment.hasPrefix("127.0.0.1")
        || withoutFragment.hasPrefix("localhost") || withoutFragment.hasPrefix("[::1]") || text.contains("#") {
        return .failure(.partOfAnAddress)
    }
    // A query alone: any of the parameters a redirect carries (RFC 6749 §4.1.2, §4.1.2.1).
    let names = withoutFragment.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).first ?? "" }
    if withoutFragment.contains("="), names.contains(where: { ["code", "state", "error", "iss"].contains(String($0)) }) {
        return callback(query: withoutFragment)
    }
    guard text.count >= minimumCodeLength else { return .failure(.tooShort) }
    return .success(.codeAlone(AuthorizationCode(text)))
}

/// Codes are random values (RFC 6749 §10.10); a shorter line is a stray word, not one.
public let minimumCodeLength = 8

/// A code pasted alone (``PastedRedirect/codeAlone(_:)``): nothing to compare but that it is not
/// empty. Explicitly without the `state` and `iss` checks (RFC 6749 §10.12, RFC 9207), which
/// need the parameters only a redirect carries; the code exchange's PKCE verifier ties the code
/// to this request instead (RFC 7636 §4.6).
public func validateAuthorizationResponse(pastedCode code: AuthorizationCode, pending: PendingAuthorization) -> ValidatedAuthorizationResponse {
    ValidatedAuthorizationResponse(code: code, issuer: nil, pending: pending)
}
