import FoundationEssentials

// GitHub's token revocation is not RFC 7009: `DELETE /applications/{client_id}/token` on the REST
// API, authenticated with HTTP basic auth (client id and secret), JSON body `{"access_token": …}`,
// answered 204 (https://docs.github.com/en/rest/apps/oauth-applications#delete-an-app-token).
// `DELETE /applications/{client_id}/grant`, the same request, deletes the whole authorization: every
// token of it, refresh tokens too, and the user's grant of the app
// (https://docs.github.com/en/rest/apps/oauth-applications#delete-an-app-authorization).

/// What a GitHub deletion ends: the access token (`…/token`), or the whole authorization
/// (`…/grant`: the refresh token with it; the user is asked to authorize the app again).
public enum GitHubDeletion: String, Sendable, Equatable {
    case token
    case grant
}

/// The `DELETE {applications}/{client_id}/token` request; `applicationsEndpoint` is
/// `https://api.github.com/applications` (or an emulator's). Needs the client secret: a public
/// client's token can only be revoked by the user, in their GitHub settings.
/// - Throws: `.unsupported(.insecureURL)`.
public func makeGitHubTokenDeletionRequest(applicationsEndpoint: URL, client: ClientConfiguration, secret: ClientSecret,
                                           accessToken: AccessToken, deleting: GitHubDeletion = .token) throws(AuthError) -> HTTPRequest {
    let url = applicationsEndpoint.appendingPathComponent(client.clientID).appendingPathComponent(deleting.rawValue)
    try URLPolicy.requireSecure(url)
    var basic = client
    basic.authentication = .clientSecretBasic(secret)
    var headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/vnd.github+json")]
    var unused: [FormParameter] = []
    basic.authenticate(headers: &headers, form: &unused)
    for extra in client.extraHeaders where !headers.contains(where: { $0.name.equalsIgnoringASCIICase(extra.name) }) { headers.append(extra) }
    let body = JSONValue.object(["access_token": .string(accessToken.exposedValue)]).serialized()
    return HTTPRequest(method: .delete, url: url, headers: headers, body: body)
}

/// 204: revoked; 404: GitHub no longer knows the token (already revoked or expired) — also revoked;
/// anything else is a failure.
/// - Throws: `.httpStatus`.
public func processGitHubTokenDeletionResponse(_ response: HTTPResponse, deleting: GitHubDeletion = .token,
                                               now: Date) throws(AuthError) -> RevocationOutcome {
    if response.status == 204 || response.status == 404 { return .revoked }
    let retryAfter = retryDelay(response, now: now)
    if response.status == 503 { return .serviceUnavailable(retryAfter: retryAfter) }
    throw .httpStatus(HTTPStatusFailure(status: response.status, url: "DELETE /applications/{client_id}/\(deleting.rawValue)",
                                        retryAfter: retryAfter))
}

/// Deletes a GitHub token: request, send, outcome.
public func deleteGitHubToken(applicationsEndpoint: URL, client: ClientConfiguration, secret: ClientSecret, accessToken: AccessToken,
                              deleting: GitHubDeletion = .token, http: HTTPClient, now: Date) async throws(AuthError) -> RevocationOutcome {
    let request = try makeGitHubTokenDeletionRequest(applicationsEndpoint: applicationsEndpoint, client: client, secret: secret,
                                                     accessToken: accessToken, deleting: deleting)
    return try processGitHubTokenDeletionResponse(try await http.perform(request), deleting: deleting, now: now)
}
