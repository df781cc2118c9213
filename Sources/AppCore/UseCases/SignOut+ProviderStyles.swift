import AuthEngine
import FoundationEssentials
import Synchronization

// Sign-out for providers that do it their own way (ProviderConfig.revocationStyle / logoutStyle):
// GitHub's token deletion API and Auth0's /v2/logout.
extension SignOut {
    /// The GitHub page where a user revokes an app's access themselves.
    static let gitHubApplicationsSettings = "https://github.com/settings/applications"

    /// GitHub: `DELETE /applications/{client_id}/token` (or `…/grant` for the whole authorization,
    /// refresh token included) with the client secret (basic auth); a public client cannot, and is
    /// told where the user can. Returns whether it failed.
    func revokeGitHubToken(tokens: TokenSet, client: ClientConfiguration, provider: ProviderConfig, deleting: GitHubDeletion,
                           step: @Sendable (SignOutStepResult) -> Void) async -> Bool {
        let secret: ClientSecret
        switch client.authentication {
        case .clientSecretBasic(let s), .clientSecretPost(let s): secret = s
        case .none, .clientAssertion:
            step(SignOutStepResult(.revokeAccessToken, .skipped(
                "GitHub revokes a token only for a client with its secret; this public client's token can be revoked only"
                    + " in your GitHub settings: \(Self.gitHubApplicationsSettings)")))
            return false
        }
        guard let applications = provider.endpoints.revocation else {
            step(SignOutStepResult(.revokeAccessToken, .skipped(
                "no revocation endpoint configured (https://api.github.com/applications); revoke it in \(Self.gitHubApplicationsSettings)")))
            return false
        }
        if tokens.refreshToken != nil, deleting == .token {
            step(SignOutStepResult(.revokeRefreshToken, .skipped(
                "GitHub revokes a refresh token only with the whole authorization: it stays valid there until it expires and is deleted here;"
                    + " 'authdeck logout --revoke-grant' deletes the authorization (DELETE /applications/{client_id}/grant)")))
        }
        let path = "DELETE /applications/{client_id}/\(deleting.rawValue)"
        do {
            let outcome = try await deleteGitHubToken(applicationsEndpoint: applications, client: client, secret: secret,
                                                      accessToken: tokens.accessToken, deleting: deleting, http: env.http(provider), now: env.now())
            if case .serviceUnavailable = outcome {
                step(SignOutStepResult(.revokeAccessToken, .failed(AppError(title: "Revocation not confirmed (HTTP 503)",
                                                                            detail: "The token must be assumed still valid.",
                                                                            disposition: .transient(retryAfter: nil)))))
                return true
            }
            if deleting == .grant {
                step(SignOutStepResult(.revokeAccessToken, .done(
                    "revoked with the whole authorization (\(path)): the refresh token too; the next sign-in asks you to authorize the app again")))
            } else {
                step(SignOutStepResult(.revokeAccessToken, .done("revoked (\(path))")))
            }
            return false
        } catch {
            step(SignOutStepResult(.revokeAccessToken, .failed(ErrorMapping.appError(error))))
            return true
        }
    }

    /// A token the provider does not revoke (``ProviderConfig/revocableTokens``, or its answer
    /// `unsupported_token_type`, RFC 7009 §2.2.1): it stays valid until it expires.
    static func notRevocable(expiresAt: Date?) -> String { "cannot be revoked at this provider; " + validUntil(expiresAt) }

    /// "valid until 2026-12-03 14:00:00 UTC" (or "until it expires" when its end is unknown).
    static func validUntil(_ expiresAt: Date?) -> String {
        expiresAt.map { "valid until \(TimeText.absolute($0, timeZone: .utc))" } ?? "valid until it expires"
    }

    /// What a logout step says when ``BrowserClient/open`` started nothing: no `$BROWSER`
    /// command and no `xdg-open` could be started, or each exited with an error at once.
    static let browserNotStarted =
        "the browser could not be started (no $BROWSER command started, no display for xdg-open, or the command failed);"
            + " the provider session stays open until you sign out on its site"

    /// ``browserNotStarted`` with the page to open by hand (the end-session endpoint, no hint:
    /// the provider may ask to confirm), in the browser that signed in.
    static func browserNotStarted(endSession: URL?) -> String {
        browserNotStarted + (endSession.map { " (\($0.absoluteString) in the browser you signed in with)" } ?? "")
    }

    /// Why the post-logout redirect did not come (RP-Initiated Logout 1.0 §3), after the local secrets went.
    static func logoutListenerError(_ error: RedirectListenerFailure) -> AppError {
        switch error {
        case .timedOut: AppError(title: "The provider's logout page did not redirect back in time",
                                 detail: "Local secrets are already deleted; the provider session may still be open.",
                                 specReference: "RP-Initiated Logout 1.0 §3")
        case .cancelled: AppError(title: "Ending the provider session was cancelled",
                                  detail: "Local secrets are already deleted.", disposition: .cancelled)
        case .failed, .portBusy: ErrorMapping.appError(error)
        }
    }

    /// A provider that compares `post_logout_redirect_uri` exactly (Logto,
    /// ``LogoutStyle/endSessionWithoutRedirect``): the logout page is opened with `client_id`
    /// only, and the step says that nothing can confirm it (no redirect comes back).
    func endSessionWithoutRedirect(metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                                   step: @Sendable (SignOutStepResult) -> Void) async {
        do {
            let pending = try makeEndSessionRequest(metadata: metadata, client: client, idTokenHint: nil,
                                                    postLogoutRedirectURI: nil, crypto: env.crypto)
            guard await env.browser.open(pending.url) else {
                step(SignOutStepResult(.endSession, .skipped(Self.browserNotStarted)))
                return
            }
            step(SignOutStepResult(.endSession, .done(
                "the provider's logout page was opened in the browser; it sends nothing back"
                    + " (post-logout redirect URIs are compared exactly there), so finish there if it asks")))
        } catch {
            step(SignOutStepResult(.endSession, .failed(ErrorMapping.appError(error))))
        }
    }

    /// Auth0 without an advertised end-session endpoint: its `/v2/logout` with `client_id` and
    /// `returnTo` (the loopback listener), in the browser.
    func auth0Logout(metadata: AuthorizationServerMetadata, client: ClientConfiguration, step: @Sendable (SignOutStepResult) -> Void) async {
        do {
            let listener = try env.loopback.listen("/logout-callback")
            defer { listener.close() }
            let pending = try makeAuth0LogoutRequest(issuer: metadata.issuer, client: client, returnTo: listener.redirectURI)
            guard await env.browser.open(pending.url) else {
                step(SignOutStepResult(.endSession, .skipped(Self.browserNotStarted)))
                return
            }
            _ = try await listener.waitForCallback(min(env.browserTimeout, .seconds(120))) { callback in
                decideAuth0LogoutCallback(callback, pending: pending)
            }
            step(SignOutStepResult(.endSession, .done("provider session ended (Auth0 /v2/logout)")))
        } catch {
            step(SignOutStepResult(.endSession, .failed(ErrorMapping.appError(error))))
        }
    }
}
