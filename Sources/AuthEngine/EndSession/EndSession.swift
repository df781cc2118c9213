import FoundationEssentials

/// A started RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2) awaiting its
/// post-logout redirect. `description` hides the URL (it carries the ID token hint).
public struct PendingEndSession: Sendable, Equatable, CustomStringConvertible {
    /// The end-session URL to open in the browser (contains `id_token_hint`).
    public var url: URL
    /// The fresh `state` sent.
    public var state: String
    /// `post_logout_redirect_uri` as sent, or nil when none (LOG-05: no callback expected).
    public var postLogoutRedirectURI: String?

    public var description: String {
        "PendingEndSession(state: \(state), postLogoutRedirectURI: \(postLogoutRedirectURI ?? "none"), url: <redacted>)"
    }
}

/// Builds the end-session URL (RP-Initiated Logout 1.0 §2): `id_token_hint` (an expired one is
/// still sent, LOG-05), `client_id`, `post_logout_redirect_uri` (loopback, same rules as
/// sign-in) and a fresh 256-bit `state`. The endpoint's own query is kept.
/// - Throws: `.unsupported(.missingEndpoint("end_session_endpoint"))` when the provider has none
///   (LOG-04: only local logout and revocation are possible), `.unsupported(.insecureURL / .invalidRedirectURI)`.
public func makeEndSessionRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration, idTokenHint: RawIDToken?,
                                  postLogoutRedirectURI: URL?, crypto: CryptoProvider) throws(AuthError) -> PendingEndSession {
    guard let endpoint = metadata.endSessionEndpoint else { throw .unsupported(.missingEndpoint("end_session_endpoint")) }
    try URLPolicy.requireSecure(endpoint)
    if let postLogoutRedirectURI { try validateRedirectURI(postLogoutRedirectURI) }
    let state = makeRandomState(crypto: crypto)
    var parameters: [FormParameter] = []
    if let idTokenHint { parameters.append(FormParameter("id_token_hint", idTokenHint.exposedValue)) }
    parameters.append(FormParameter("client_id", client.clientID))
    if let postLogoutRedirectURI { parameters.append(FormParameter("post_logout_redirect_uri", postLogoutRedirectURI.absoluteString)) }
    parameters.append(FormParameter("state", state))
    return PendingEndSession(url: URLPolicy.appendingQuery(parameters, to: endpoint), state: state,
                             postLogoutRedirectURI: postLogoutRedirectURI?.absoluteString)
}

/// The end-session request as a form the browser POSTs (RP-Initiated Logout 1.0 §2: a provider
/// takes GET and POST), so that the `id_token_hint` it RECOMMENDS goes in no URL (the browser's
/// argv, its history, a proxy's log): the page, served by the loopback listener, holds the
/// parameters of ``makeEndSessionRequest(metadata:client:idTokenHint:postLogoutRedirectURI:crypto:)``;
/// `pending.url` is the bare endpoint.
/// - Throws: as ``makeEndSessionRequest(metadata:client:idTokenHint:postLogoutRedirectURI:crypto:)``.
public func makeEndSessionForm(metadata: AuthorizationServerMetadata, client: ClientConfiguration, idTokenHint: RawIDToken,
                               postLogoutRedirectURI: URL,
                               crypto: CryptoProvider) throws(AuthError) -> (pending: PendingEndSession, page: RedirectPage) {
    let get = try makeEndSessionRequest(metadata: metadata, client: client, idTokenHint: idTokenHint,
                                        postLogoutRedirectURI: postLogoutRedirectURI, crypto: crypto)
    guard let endpoint = metadata.endSessionEndpoint else { throw .unsupported(.missingEndpoint("end_session_endpoint")) }
    let fields = [FormParameter("id_token_hint", idTokenHint.exposedValue), FormParameter("client_id", client.clientID),
                  FormParameter("post_logout_redirect_uri", postLogoutRedirectURI.absoluteString), FormParameter("state", get.state)]
    let pending = PendingEndSession(url: endpoint, state: get.state, postLogoutRedirectURI: get.postLogoutRedirectURI)
    return (pending, .postForm(title: "Sign out at the provider", message: "Press the button to end your session at the provider.",
                               action: endpoint, fields: fields))
}

/// Checks the post-logout redirect (RP-Initiated Logout 1.0 §3, LOG-02/03): the `state` must
/// be the one sent; otherwise the provider logout is not confirmed (local logout stands).
/// - Throws: `.protocolViolation(.redirectPathMismatch / .endSessionStateMismatch)`.
public func validateEndSessionCallback(_ callback: RedirectCallback, pending: PendingEndSession) throws(AuthError) {
    let expectedPath = pending.postLogoutRedirectURI.map(redirectPath(of:)) ?? "/"
    guard callback.path.exactlyEquals(expectedPath) else {
        throw .protocolViolation(.redirectPathMismatch(expected: expectedPath, actual: callback.path))
    }
    let states = callback.parameters.filter { $0.name.exactlyEquals("state") }.map(\.value)
    guard states.count == 1, states[0].exactlyEquals(pending.state) else {
        throw .protocolViolation(.endSessionStateMismatch(expected: pending.state, actual: states.first))
    }
}

/// The listener's verdict for a post-logout redirect: other paths/methods, and requests without
/// the sent `state` (absent or different: not for this logout), are ignored (404, keep waiting);
/// a request carrying the sent `state` finishes with a "signed out" or "not confirmed" page.
public func decideEndSessionCallback(_ callback: RedirectCallback,
                                     pending: PendingEndSession) -> (verdict: RedirectCallbackVerdict, outcome: Result<Void, AuthError>?) {
    let expectedPath = pending.postLogoutRedirectURI.map(redirectPath(of:)) ?? "/"
    guard callback.method.exactlyEquals("GET"), callback.path.exactlyEquals(expectedPath),
          callback.parameters.contains(where: { $0.name.exactlyEquals("state") && $0.value.exactlyEquals(pending.state) }) else {
        return (.ignore, nil)
    }
    do {
        try validateEndSessionCallback(callback, pending: pending)
        return (.finish(page: .success(title: "Signed out", message: "You can close this tab and return to the terminal.")), .success(()))
    } catch {
        let page = RedirectPage.failure(title: "Logout not confirmed", message: "The provider's answer did not match. Return to the terminal.")
        return (.finish(page: page), .failure(error))
    }
}
