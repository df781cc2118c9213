import AuthEngine
import CredentialStore
import FoundationEssentials
import Synchronization

/// Sign-out, each step reported as it ends:
/// 1. revoke the refresh token, then the access token (RFC 7009 §2; skipped with `localOnly`);
/// 2. delete the local secrets and the record, and clear the active account if it was this one —
///    before the provider's logout page, so an interrupted sign-out never leaves revoked tokens
///    behind as if they were valid (kept only when revocation failed and the caller asked);
/// 3. end the provider session (RP-Initiated Logout 1.0) through the browser and a loopback
///    listener, with `id_token_hint` handed on by a one-time page of the listener, never in the
///    browser's argv (``endSessionThroughListener(metadata:client:config:idTokenHint:step:)``),
///    waiting a bounded time (``confirmationWait``) for the provider to confirm.
/// The outcome says what changed locally (``SignOutOutcome``), as ``SignInOutcome`` does: the
/// front ends mirror it and decide nothing themselves.
public struct SignOut: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// Opens the store before a sign-out (the vault asks for its passphrase here). With
    /// `localOnly`, a damaged store does not stop it: the record is removed all the same.
    public func prepare(_ options: SignOutOptions) throws(AppError) {
        do {
            _ = try env.credentials.store().listAccounts()
        } catch let error as SecretStoreError {
            if options.localOnly, error.damage != nil { return }
            throw ErrorMapping.appError(error)
        } catch {
            throw ErrorMapping.appError(error)
        }
    }

    /// - Returns: whether the account was removed locally and whether the active account was
    ///   cleared with it (``SignOutOutcome``); `.notRemoved` when a step failed before the removal.
    public func run(_ id: AccountID, options: SignOutOptions, step: @escaping @Sendable (SignOutStepResult) -> Void) async -> SignOutOutcome {
        let record: AccountRecord
        let store: any SecretStore
        do {
            record = try Accounts(env: env).record(id)
            store = try env.credentials.store()
        } catch {
            step(SignOutStepResult(.deleteLocalSecrets, .failed(error)))
            return .notRemoved
        }
        let key = Accounts.key(record)
        let files = env.files
        let accounts = Accounts(env: env)
        var provider: (metadata: AuthorizationServerMetadata, client: ClientConfiguration, config: ProviderConfig)?
        var idTokenHint: RawIDToken?
        var outcome = SignOutOutcome.notRemoved
        do {
            // Under the account's lock, from reading the secrets to deleting them: a refresh in
            // another process cannot rotate a token in between and leave a live one behind.
            try await store.withAccountLock(key, clock: env.clock) { () async throws -> Void in
                let secrets = (try? store.loadIfPresent(key)) ?? nil
                var revocationFailed = false
                if options.localOnly {
                    step(SignOutStepResult(.revokeRefreshToken, .skipped("--local-only")))
                } else if let secrets, let tokens = TokenConversions.tokenSet(secrets, resource: nil, record: record) {
                    do {
                        let account = try await ProviderAccess(env: env).account(id)
                        provider = (account.metadata, account.client, account.provider)
                        idTokenHint = tokens.idToken
                        // A federated client authenticates at the revocation endpoint as at the token endpoint (RFC 7009 §2.1).
                        let client = try await ClientCredentials(env).authenticated(account.client, provider: account.provider,
                                                                                    metadata: account.metadata)
                        revocationFailed = await revoke(tokens: tokens, metadata: account.metadata, client: client,
                                                        provider: account.provider, revokeGrant: options.revokeGrant, step: step)
                    } catch {
                        revocationFailed = true
                        step(SignOutStepResult(.revokeRefreshToken, .failed(ErrorMapping.appError(error))))
                    }
                }
                if revocationFailed && options.keepSecretsIfRevocationFails {
                    step(SignOutStepResult(.deleteLocalSecrets, .skipped("kept: revocation failed and you asked to keep them")))
                    return
                }
                // Local secrets go before the (browser, possibly slow) end of the provider session, so an
                // interrupted sign-out never leaves revoked tokens behind as if they were valid.
                var unreadable: FileDamage?
                do {
                    try store.delete(key)
                } catch let error as SecretStoreError {
                    // --local-only removes the record even when the secrets cannot be read (a
                    // damaged vault): what is left in the store is for 'authdeck doctor --repair'.
                    guard options.localOnly, let damage = ErrorMapping.damage(error) else { throw error }
                    unreadable = damage
                }
                try files.removeAccount(id)
                let wasActive = try accounts.activeAccount().id == id
                if wasActive { try accounts.saveActiveAccount(nil) }
                outcome = SignOutOutcome(removed: true, clearedActive: wasActive)
                if let unreadable {
                    step(SignOutStepResult(.deleteLocalSecrets, .done(
                        "record removed; the secrets could not be deleted because \(unreadable.file) is damaged (\(unreadable.damage)): "
                             + "'authdeck doctor --repair' drops them")))
                } else {
                    step(SignOutStepResult(.deleteLocalSecrets, .done("deleted from \(store.kind.rawValue)")))
                }
            }
        } catch {
            step(SignOutStepResult(.deleteLocalSecrets, .failed(ErrorMapping.appError(error))))
            return .notRemoved
        }
        guard outcome.removed else { return .notRemoved }
        AccountEvents(env).signed(.signedOut, record)
        if options.endSession, let provider {
            await endSession(metadata: provider.metadata, client: provider.client, config: provider.config, idTokenHint: idTokenHint, step: step)
        }
        return outcome
    }

    /// Reports each revocation step; returns whether any failed.
    private func revoke(tokens: TokenSet, metadata: AuthorizationServerMetadata, client: ClientConfiguration, provider: ProviderConfig,
                        revokeGrant: Bool, step: @Sendable (SignOutStepResult) -> Void) async -> Bool {
        switch provider.revocationStyle ?? .rfc7009 {
        case .githubApplicationToken:
            return await revokeGitHubToken(tokens: tokens, client: client, provider: provider, deleting: revokeGrant ? .grant : .token, step: step)
        case .none:
            step(SignOutStepResult(.revokeRefreshToken, .skipped("the provider cannot revoke tokens; they stay valid until they expire")))
            return false
        case .rfc7009: break
        }
        let report: RevocationReport
        do {
            report = try await revokeTokens(metadata: metadata, client: client, tokens: tokens, http: env.http(provider), now: env.now(),
                                            revocable: provider.revocableTokens ?? ["refresh_token", "access_token"])
        } catch {
            step(SignOutStepResult(.revokeRefreshToken,
                                  .skipped("the provider has no revocation endpoint (RFC 7009); tokens stay valid until they expire")))
            return false
        }
        func outcome(_ result: Result<RevocationOutcome, AuthError>, expiresAt: Date?) -> (SignOutStepResult.Outcome, Bool) {
            switch result {
            case .success(.revoked): return (.done("revoked"), false)
            case .success(.unsupportedTokenType): return (.skipped(Self.notRevocable(expiresAt: expiresAt)), false)
            case .success(.serviceUnavailable):
                return (.failed(AppError(title: "Revocation not confirmed (HTTP 503)", detail: "The token must be assumed still valid.",
                                         specReference: "RFC 7009 §2.2.1", disposition: .transient(retryAfter: nil))), true)
            case .failure(let error) where Self.publicClientRefused(error, metadata: metadata, client: client):
                // Not a fault to retry: this provider lets only confidential clients revoke.
                return (.skipped("the provider does not let a public client revoke tokens (its revocation_endpoint_auth_methods_supported"
                    + " has no 'none'; HTTP 401); \(Self.validUntil(expiresAt))"),
                        false)
            case .failure(let error): return (.failed(ErrorMapping.appError(error)), true)
            }
        }
        var failed = false
        if let refresh = report.refreshToken {
            let (result, didFail) = outcome(refresh, expiresAt: tokens.refreshExpiresAt)
            step(SignOutStepResult(.revokeRefreshToken, result))
            failed = failed || didFail
        } else {
            step(SignOutStepResult(.revokeRefreshToken, .skipped("no refresh token")))
        }
        let (result, didFail) = outcome(report.accessToken, expiresAt: tokens.expiresAt)
        step(SignOutStepResult(.revokeAccessToken, result))
        return failed || didFail
    }

    /// A 401 (bare, or `invalid_client`) from a revocation endpoint whose metadata admits no
    /// public client (RFC 8414 §2 `revocation_endpoint_auth_methods_supported` without `none`), to a public client.
    static func publicClientRefused(_ error: AuthError, metadata: AuthorizationServerMetadata, client: ClientConfiguration) -> Bool {
        guard client.isPublic, metadata.refusesPublicClients(at: .revocation) else { return false }
        switch error {
        case .httpStatus(let failure): return failure.status == 401
        case .errorResponse(let response): return response.status == 401 || response.code == .invalidClient
        default: return false
        }
    }

    private func endSession(metadata: AuthorizationServerMetadata, client: ClientConfiguration, config: ProviderConfig,
                            idTokenHint: RawIDToken?, step: @Sendable (SignOutStepResult) -> Void) async {
        let style = config.logoutStyle ?? .endSession
        if style == .none {
            step(SignOutStepResult(.endSession, .skipped("the provider has no logout page")))
            return
        }
        guard metadata.endSessionEndpoint != nil else {
            if style == .endSessionOrAuth0V2Logout {
                await auth0Logout(metadata: metadata, client: client, step: step)
                return
            }
            step(SignOutStepResult(.endSession, .skipped("the provider has no end_session_endpoint")))
            return
        }
        if style == .endSessionWithoutRedirect {
            await endSessionWithoutRedirect(metadata: metadata, client: client, step: step)
            return
        }
        await endSessionThroughListener(metadata: metadata, client: client, config: config, idTokenHint: idTokenHint, step: step)
    }

    /// How long sign-out waits for the provider to confirm the end of its session (the
    /// post-logout redirect, RP-Initiated Logout 1.0 §3) once its page is open: long enough to
    /// press a "sign out" button there, then the step says that nothing confirmed it.
    public static let confirmationWait: Duration = .seconds(60)

    /// RP-Initiated Logout 1.0 §2 through the browser and a loopback listener on the provider's
    /// port rule (``ProviderConfig/fixedRedirectPort``, `/logout-callback`). With an ID token, the
    /// `id_token_hint` (RECOMMENDED; a provider may end a session only with it) goes in no argv:
    /// the browser opens a one-time page of the listener (`/logout-start/<256-bit random>`, served
    /// once) that answers a 303 to the end-session URL, or, for a provider marked
    /// ``ProviderConfig/postsIDTokenHint`` (Auth0), a form that POSTs it. Waits
    /// ``confirmationWait`` for the redirect back with the sent `state`.
    func endSessionThroughListener(metadata: AuthorizationServerMetadata, client: ClientConfiguration, config: ProviderConfig,
                                   idTokenHint: RawIDToken?, step: @Sendable (SignOutStepResult) -> Void) async {
        do {
            let listener = try env.loopback.listen("/logout-callback", port: config.fixedRedirectPort)
            defer { listener.close() }
            let pending: PendingEndSession
            var start: (path: String, page: RedirectPage)?
            if let idTokenHint, config.postsIDTokenHint == true {
                let form = try makeEndSessionForm(metadata: metadata, client: client, idTokenHint: idTokenHint,
                                                  postLogoutRedirectURI: listener.redirectURI, crypto: env.crypto)
                pending = form.pending
                start = ("/logout-start/" + makeRandomState(crypto: env.crypto), form.page)
            } else {
                pending = try makeEndSessionRequest(metadata: metadata, client: client, idTokenHint: idTokenHint,
                                                    postLogoutRedirectURI: listener.redirectURI, crypto: env.crypto)
                if idTokenHint != nil { start = ("/logout-start/" + makeRandomState(crypto: env.crypto), .redirect(to: pending.url)) }
            }
            let opened: URL
            if let start {
                var components = URLComponents(url: listener.redirectURI, resolvingAgainstBaseURL: false)
                components?.path = start.path
                components?.query = nil
                guard let url = components?.url else { throw AuthError.unsupported(.invalidRedirectURI(listener.redirectURI.absoluteString)) }
                opened = url
            } else {
                opened = pending.url
            }
            guard await env.browser.open(opened) else {
                step(SignOutStepResult(.endSession, .skipped(Self.browserNotStarted(endSession: metadata.endSessionEndpoint))))
                return
            }
            let wait = min(env.browserTimeout, Self.confirmationWait)
            step(SignOutStepResult(.endSession, .started(
                "opened the provider's sign-out page in the browser\(idTokenHint == nil ? "" : " (with id_token_hint)");"
                    + " waiting up to \(wait.components.seconds) s for it to confirm")))
            let served = Mutex(false)
            let onePage = start
            let callback = try await listener.waitForCallback(wait) { callback in
                if let start = onePage, callback.method.exactlyEquals("GET"), callback.path.exactlyEquals(start.path) {
                    // Its answer carries the ID token and its address is in the browser's argv: served
                    // once, and only to this user's connection (another local user racing the browser
                    // gets nothing and uses nothing up).
                    guard callback.peer == .sameUser else { return .ignore }
                    return served.withLock { done in defer { done = true }; return done ? .ignore : .respond(page: start.page) }
                }
                return decideEndSessionCallback(callback, pending: pending).verdict
            }
            try validateEndSessionCallback(callback, pending: pending)
            step(SignOutStepResult(.endSession, .done("provider session ended")))
        } catch RedirectListenerFailure.timedOut {
            step(SignOutStepResult(.endSession, .failed(Self.notConfirmed(metadata: metadata))))
        } catch let error as RedirectListenerFailure {
            step(SignOutStepResult(.endSession, .failed(Self.logoutListenerError(error))))
        } catch {
            step(SignOutStepResult(.endSession, .failed(ErrorMapping.appError(error))))
        }
    }

    /// The honest line when the provider's page did not send the browser back in time.
    static func notConfirmed(metadata: AuthorizationServerMetadata) -> AppError {
        let place = metadata.endSessionEndpoint?.absoluteString ?? metadata.issuer
        var error = AppError(title: "The provider did not confirm the sign-out",
                             detail: "Its session may still be open; the local secrets are already deleted.",
                             specReference: "RP-Initiated Logout 1.0 §3")
        error.nextStep = "Close the session at \(place) if it is still open (in the browser that signed in)."
        return error
    }
}

/// One step of signing out and how it went.
public struct SignOutStepResult: Equatable, Sendable {
    public enum Step: String, Equatable, Sendable {
        case revokeRefreshToken = "revoke refresh token"
        case revokeAccessToken = "revoke access token"
        case endSession = "end provider session"
        case deleteLocalSecrets = "delete local secrets"
    }
    public enum Outcome: Equatable, Sendable {
        case done(String)
        case skipped(String)
        case failed(AppError)
        /// Under way and said now (a browser page opened, a bounded wait begun); the step's
        /// result follows in another ``SignOutStepResult``.
        case started(String)
    }
    public var step: Step
    public var outcome: Outcome
    public init(_ step: Step, _ outcome: Outcome) {
        self.step = step
        self.outcome = outcome
    }
}

/// What a sign-out changed locally (``SignOut/run(_:options:step:)``), as ``SignInOutcome`` reports
/// `becameActive`: the state mirrors it.
public struct SignOutOutcome: Equatable, Sendable {
    /// The secrets and the record are gone (`false`: a step failed first; nothing was removed).
    public var removed: Bool
    /// The account was the persisted active account, and now none is (`active.json` cleared).
    public var clearedActive: Bool
    public init(removed: Bool, clearedActive: Bool) {
        self.removed = removed
        self.clearedActive = clearedActive
    }
    /// Nothing removed, the active account unchanged.
    public static let notRemoved = SignOutOutcome(removed: false, clearedActive: false)
}

public struct SignOutOptions: Equatable, Sendable {
    /// Only delete local secrets: no revocation, no end session (`--local-only`).
    public var localOnly: Bool
    /// Open the provider's end-session endpoint (RP-Initiated Logout) in the browser.
    public var endSession: Bool
    /// Keep the local secrets when revocation fails (the user asked to).
    public var keepSecretsIfRevocationFails: Bool
    /// Revoke the whole authorization where the provider revokes a token and its grant apart
    /// (GitHub: `DELETE /applications/{client_id}/grant`, the refresh token with it; `--revoke-grant`).
    public var revokeGrant: Bool
    public init(localOnly: Bool = false, endSession: Bool = true, keepSecretsIfRevocationFails: Bool = false, revokeGrant: Bool = false) {
        self.localOnly = localOnly
        self.endSession = endSession
        self.keepSecretsIfRevocationFails = keepSecretsIfRevocationFails
        self.revokeGrant = revokeGrant
    }
}
