import FoundationEssentials

// Auth0's own logout endpoint, for tenants whose discovery does not advertise the OIDC
// `end_session_endpoint`: `GET {issuer}v2/logout?client_id=…&returnTo=…`
// (https://auth0.com/docs/api/authentication/logout/auth-0-logout). It sends no `state` back.

/// The `/v2/logout` URL for `issuer` (Auth0's, with its trailing slash) returning to `returnTo`
/// (the loopback listener).
/// - Throws: `.unsupported(.insecureURL / .invalidRedirectURI)`.
public func makeAuth0LogoutRequest(issuer: String, client: ClientConfiguration, returnTo: URL) throws(AuthError) -> PendingEndSession {
    let base = issuer.hasSuffix("/") ? issuer : issuer + "/"
    guard let endpoint = URL(string: base + "v2/logout") else { throw .unsupported(.insecureURL(base + "v2/logout")) }
    try URLPolicy.requireSecure(endpoint)
    try validateRedirectURI(returnTo)
    let parameters = [FormParameter("client_id", client.clientID), FormParameter("returnTo", returnTo.absoluteString)]
    return PendingEndSession(url: URLPolicy.appendingQuery(parameters, to: endpoint), state: "", postLogoutRedirectURI: returnTo.absoluteString)
}

/// The listener's verdict on a request after `/v2/logout`: a `GET` of the `returnTo` path ends it
/// (Auth0 sends no `state` to compare); anything else is ignored.
public func decideAuth0LogoutCallback(_ callback: RedirectCallback, pending: PendingEndSession) -> RedirectCallbackVerdict {
    let expectedPath = pending.postLogoutRedirectURI.map(redirectPath(of:)) ?? "/"
    guard callback.method.exactlyEquals("GET"), callback.path.exactlyEquals(expectedPath) else { return .ignore }
    return .finish(page: .success(title: "Signed out", message: "You can close this tab and return to the terminal."))
}
