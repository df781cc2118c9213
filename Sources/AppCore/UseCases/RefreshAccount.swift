import AuthEngine
import CredentialStore
import FoundationEssentials
import Synchronization

/// What a refresh says while it runs: stderr in the CLI, a flash in the TUI.
public enum RefreshNotice: Equatable, Sendable {
    /// No answer after ``RefreshAccount/providerPatience``; the request is kept (its answer
    /// carries the rotated refresh token) until ``RefreshAccount/requestTimeout``.
    case providerSlow(account: String)
    /// An earlier refresh request (sent at `sentAt`) got no handled answer, so whether the provider
    /// rotated the refresh token is unknown; the same refresh token is sent again now.
    case replayAfterUnknownOutcome(account: String, sentAt: Date)

    /// One line for a person.
    public var message: String {
        switch self {
        case .providerSlow(let account):
            "The provider is slow: no answer to the refresh of \(account) after \(Int(RefreshAccount.providerPatience.timeInterval)) s;"
                + " still waiting (up to \(Int(RefreshAccount.requestTimeout.timeInterval)) s) so that its answer is not lost."
        case .replayAfterUnknownOutcome(let account, let sentAt):
            "The outcome of an earlier refresh of \(account) (sent \(sentAt.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))), no answer)"
                + " is unknown; sending the same refresh token again."
                + " If the provider rotated it then, this fails and \(account) needs sign-in."
        }
    }
}

/// Refreshes an account's access token (RFC 6749 §6), the default one or the one for a
/// `resource` (RFC 8707 §2.2). The rule, in order:
/// 1. take the account's cross-process lock (waiting up to ``lockWait``);
/// 2. re-read the stored secrets and record inside it (another process may have rotated them);
/// 3. unless forced, send nothing when the token now stays valid for `minimumValidity` and no
///    earlier refresh has an unknown outcome (``AccountRecord/refreshSentAt`` set);
/// 4. persist `refreshSentAt` (atomically, under the lock), say so when it was already set (a
///    replay of a refresh token that may be dead), and send the request with
///    ``requestTimeout`` — the lock is held until the answer arrives or the request certainly
///    never left, so no other process sends the same refresh token meanwhile;
/// 5. persist the rotated refresh token and the new access token at once — the provider has
///    issued them, so they are kept even when the new ID token then fails its checks — and clear
///    `refreshSentAt` (it stays set when the outcome stays unknown: a timeout, a broken
///    connection, an unreadable 2xx answer);
/// 6. verify a new ID token (OIDC Core §12.2); on failure keep the previous one and report;
/// 7. publish (return) the new record.
/// `invalid_grant` is persisted as "needs sign-in" for every process; never retried here.
///
/// Each refresh sent is told (``AccountEvents``): `refreshed` and the account's state on
/// success, its state on failure — unless `tellsEvents` is false (`check` tells its own).
public struct RefreshAccount: Sendable {
    let env: AppEnvironment
    let tellsEvents: Bool
    public init(_ env: AppEnvironment, tellsEvents: Bool = true) {
        self.env = env
        self.tellsEvents = tellsEvents
    }

    /// The UI's patience: after this long without an answer the TUI and the CLI say "the
    /// provider is slow" (``RefreshNotice/providerSlow(account:)``).
    public static let providerPatience: Duration = .seconds(5)
    /// The limit of one refresh request (``HTTPRequest/timeout``), far above the UI's patience: a
    /// stalled provider that resumes within it still delivers the rotated refresh token.
    public static let requestTimeout: Duration = .seconds(120)
    /// How long a refresh waits for another process's refresh of the same account.
    public static let lockWait: Duration = requestTimeout + .seconds(10)

    /// - Parameters:
    ///   - resource: the resource indicator of the token to refresh; nil for the default token.
    ///   - minimumValidity: how long the token must stay valid to skip the request (default:
    ///     the policy's refresh margin); only when `force` is false.
    ///   - force: always send a request (`authdeck refresh`, `r` in the TUI).
    ///   - notices: told when the provider is slow and when a refresh token is replayed after an
    ///     unknown outcome; nil: nothing is watched.
    /// - Returns: the updated record.
    /// - Throws: ``AppError``: `.needsSignIn` (no refresh token, `invalid_grant`), `.transient`, …
    public func run(_ id: AccountID, resource: String? = nil, minimumValidity: Duration? = nil, force: Bool,
                    notices: (@Sendable (RefreshNotice) -> Void)? = nil) async throws(AppError) -> AccountRecord {
        try await run(Accounts(env: env).record(id), resource: resource, minimumValidity: minimumValidity, force: force, notices: notices)
    }

    /// As ``run(_:resource:minimumValidity:force:notices:)-(AccountID,_,_,_,_)`` for a record the
    /// caller has read already: only its provider and subject (the lock's key) are taken from
    /// it; the record is read again under the lock. `accounts.json` is read once under the lock
    /// (together with writing `refreshSentAt`) and written once more with the result.
    ///
    /// `rejected`: an access token a server refused (git's `erase`): the refresh is sent when the
    /// stored token is still that one, and skipped when it has changed meanwhile (another process
    /// refreshed already), so however many clients report the same rejection, one request goes out.
    public func run(_ known: AccountRecord, resource: String? = nil, minimumValidity: Duration? = nil, force: Bool,
                    rejected: AccessToken? = nil,
                    notices: (@Sendable (RefreshNotice) -> Void)? = nil) async throws(AppError) -> AccountRecord {
        let sent = Box(false)
        do {
            let record = try await refresh(known, resource: resource, minimumValidity: minimumValidity, force: force, rejected: rejected,
                                           notices: notices, sent: sent)
            if tellsEvents, sent.value { AccountEvents(env).refreshed(record) }
            return record
        } catch {
            // A refusal before anything was sent (no refresh token) is a state too.
            if tellsEvents { AccountEvents(env).refreshFailed(known, error) }
            throw error
        }
    }

    /// ``run(_:resource:minimumValidity:force:rejected:notices:)``'s refresh; `sent` set when a
    /// request went out.
    private func refresh(_ known: AccountRecord, resource: String?, minimumValidity: Duration?, force: Bool, rejected: AccessToken?,
                         notices: (@Sendable (RefreshNotice) -> Void)?, sent: Box<Bool>) async throws(AppError) -> AccountRecord {
        let id = known.id
        let accounts = Accounts(env: env)
        let replayOf = Box<Date?>(nil)
        do {
            let account = try await ProviderAccess(env: env).account(known)
            let (provider, metadata, client) = (account.provider, account.metadata, account.client)
            let store = try env.credentials.store()
            let env = self.env
            let key = Accounts.key(known)
            return try await store.withAccountLock(key, timeout: Self.lockWait, clock: env.clock) { () async throws -> AccountRecord in
                let current = try store.load(key)
                // Re-read inside the lock (another process may have refreshed) and, when a request
                // is to be sent, persist `refreshSentAt` in the same update of the file.
                var plan: Plan?
                let marked = try accounts.update(id) { (record: inout AccountRecord) throws(AppError) in
                    plan = try prepare(record, current: current, resource: resource, minimumValidity: minimumValidity, force: force,
                                       rejected: rejected, provider: provider, metadata: metadata, client: client)
                    // An exchange sends no refresh token: nothing of the grant can be lost with its answer.
                    if let plan, plan.exchange == nil { record.refreshSentAt = env.now() }
                }
                guard let plan else { return marked }
                let request: HTTPRequest
                do {
                    if let planned = plan.request {
                        request = planned
                    } else if let exchange = plan.exchange {
                        request = try await TokenExchange(env).request(exchange, secrets: current, record: marked, provider: provider,
                                                                       metadata: metadata, client: client)
                    } else {
                        request = try await ClientCredentials(env).renewalRequest(marked, provider: provider, metadata: metadata, resource: resource)
                    }
                } catch {
                    // Nothing was sent: what was known before stays known.
                    _ = try accounts.update(id) { $0.refreshSentAt = plan.unknownOutcome }
                    throw error
                }
                sent.set(true)
                let unknownOutcome = plan.unknownOutcome
                let http = plan.dpop.map { env.http(provider).withDPoP($0) } ?? env.http(provider)
                if let unknownOutcome, plan.exchange == nil {
                    replayOf.set(unknownOutcome)
                    notices?(.replayAfterUnknownOutcome(account: marked.displayName, sentAt: unknownOutcome))
                }
                let response: HTTPResponse
                do throws(TransportError) {
                    response = try await send(request, through: http, account: marked.displayName, notices: notices)
                } catch {
                    if !error.requestMayHaveArrived {
                        // Certainly never sent: what was known before stays known.
                        _ = try accounts.update(id) { $0.refreshSentAt = unknownOutcome }
                    }
                    throw AuthError.transport(error)
                }
                let tokens = plan.tokens
                var refreshed: TokenSet
                do {
                    refreshed = try plan.exchange.map { (target) throws(AuthError) in
                        try processTokenExchangeResponse(response, previous: tokens, target: target, now: env.now())
                    } ?? processRefreshResponse(response, previous: tokens, now: env.now(), dpopProofSent: plan.dpop != nil)
                } catch {
                    // An error response settles this request. `invalid_grant` also settles an
                    // earlier unknown outcome (the grant is gone, recorded in the same write);
                    // any other error (5xx, 429, …) leaves it as unknown as before. An unreadable
                    // success may have rotated the token: the marker stays.
                    if !(200..<300).contains(response.status) {
                        let ended = (error as? AuthError)?.invalidatesGrant == true && plan.exchange == nil
                        let now = env.now()
                        _ = try accounts.update(id) { record in
                            record.refreshSentAt = ended ? nil : unknownOutcome
                            if ended, record.needsSignInSince == nil { record.needsSignInSince = now }
                        }
                    }
                    throw error
                }
                try DPoP.checkTokenType(refreshed.tokenType, proofSent: plan.dpop != nil, setting: provider.dpop ?? .auto)
                let newIDToken = refreshed.idToken != tokens.idToken ? refreshed.idToken : nil
                refreshed.idToken = tokens.idToken
                // Persist the rotated tokens before anything can fail or wait (crash safety: the
                // secrets first, then the record). A new ID token whose key is at hand is verified
                // first (CPU only, no I/O) and saved in the same write; one that needs a JWKS fetch
                // is verified after the rotated tokens are stored, then saved in a second write.
                var secrets = TokenConversions.merge(refreshed, into: current, resource: resource)
                var verifiedInfo: IDTokenInfo?
                var refusal: (any Error)?
                let original = TokenConversions.storedClaims(current)
                let refused = ProviderAccess.NetworkRefused()
                if let newIDToken {
                    do {
                        let verified = try await ProviderAccess.$withoutNetwork.withValue(refused) {
                            try await verifyRefreshedIDToken(newIDToken, original: original, tokens: refreshed, metadata: metadata,
                                                             client: client, provider: provider)
                        }
                        secrets.idToken = StoredIDToken(newIDToken.exposedValue)
                        verifiedInfo = TokenConversions.idTokenInfo(verified)
                    } catch {
                        // A refusal that no fetch could change is final; otherwise verified below.
                        if !refused.wanted { refusal = error }
                    }
                }
                try store.save(secrets, for: key)
                if let newIDToken, verifiedInfo == nil, refusal == nil {
                    do {
                        let verified = try await verifyRefreshedIDToken(newIDToken, original: original, tokens: refreshed,
                                                                        metadata: metadata, client: client, provider: provider)
                        secrets.idToken = StoredIDToken(newIDToken.exposedValue)
                        try store.save(secrets, for: key)
                        verifiedInfo = TokenConversions.idTokenInfo(verified)
                    } catch {
                        // The previous verified ID token stays; the account says why the new one was refused.
                        refusal = error
                    }
                }
                // The result, in one write: new tokens, the marker cleared, the ID token (or why not).
                let problem = refusal.map { ErrorMapping.appError($0).description }
                let rotated = Self.rotated(from: tokens.refreshToken, to: refreshed.refreshToken)
                let saved = try accounts.update(id) { record in
                    let before = record
                    TokenConversions.apply(refreshed, resource: resource, to: &record)
                    record.needsSignInSince = nil
                    if plan.exchange == nil { record.refreshSentAt = nil }
                    if let verifiedInfo {
                        record.idToken = verifiedInfo
                        record.idTokenProblem = nil
                    }
                    if let problem { record.idTokenProblem = problem }
                    // The default token's refresh is the one whose changes are kept: a resource's
                    // token refreshed after it (`runAll`) would otherwise hide them.
                    if resource == nil {
                        record.lastRefreshChanges = RefreshChanges.between(before, record, resource: nil, refreshTokenRotated: rotated)
                    }
                    let answered = record.lastRefreshAt ?? env.now()
                    record.recentRefreshes = Array(((before.recentRefreshes ?? []) + [answered]).suffix(AccountRecord.recentRefreshesKept))
                }
                if let refusal { throw refusal }
                return saved
            }
        } catch {
            // Only the provider ending the grant (invalid_grant, another identity) is kept for
            // every process; a local condition (no refresh token, a secret not in this store) is
            // reported, never stored.
            var appError = BareStatusAdvice.advise(error, at: .refresh(provider: known.providerID))
            let exchange = TokenAudience.exchangeTarget(ofKey: resource)
            if let authError = error as? AuthError {
                if let exchange {
                    TokenExchange.hint(&appError, authError: authError, target: exchange, record: known)
                } else {
                    Self.targetHint(&appError, authError: authError, resource: resource, record: known)
                }
            }
            if let authError = error as? AuthError, authError.invalidatesGrant, exchange == nil {
                accounts.markNeedsSignIn(id)
                if let sentAt = replayOf.value {
                    let sent = sentAt.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
                    appError.detail += (appError.detail.isEmpty ? "" : " ")
                        + "This refresh token was sent again after an earlier refresh (sent \(sent)) got no answer:"
                        + " the provider most likely rotated it then."
                }
            }
            throw appError
        }
    }

    /// What a refresh sends, decided from the record read under the lock.
    private struct Plan {
        /// The marker found in the record: an earlier request with an unknown outcome.
        var unknownOutcome: Date?
        var tokens: TokenSet
        /// nil: a machine account's client-credentials request, made when it is sent.
        var request: HTTPRequest?
        var dpop: DPoPSigner?
        /// A token exchange (RFC 8693) for this target: its request is made when it is sent.
        var exchange: TokenExchangeTarget? = nil
    }

    /// The request to send for `latest` (read under the lock), or nil when the token stays valid
    /// long enough and nothing needs settling (not forced, no marker, not "needs sign-in").
    /// Pure: nothing is written, so a refusal here leaves the file as it was.
    /// - Throws: no refresh token (`.needsSignIn`), a DPoP-bound grant without its key, request errors.
    private func prepare(_ latest: AccountRecord, current: AccountSecrets, resource: String?, minimumValidity: Duration?, force: Bool,
                         rejected: AccessToken?, provider: ProviderConfig, metadata: AuthorizationServerMetadata,
                         client: ClientConfiguration) throws(AppError) -> Plan? {
        // The lock is ours: a marker left in the file belongs to a process that is gone.
        let unknownOutcome = latest.refreshSentAt
        let validity = minimumValidity.map(\.timeInterval) ?? env.policy.refreshMargin
        if let rejected, unknownOutcome == nil, latest.needsSignInSince == nil,
           current.accessToken(for: resource)?.token.exposedValue.utf8.elementsEqual(rejected.exposedValue.utf8) != true {
            return nil
        }
        if !force, rejected == nil, unknownOutcome == nil, latest.needsSignInSince == nil,
           let expiresAt = current.accessToken(for: resource)?.expiresAt,
           expiresAt.timeIntervalSince(env.now()) > validity {
            return nil
        }
        if let exchange = TokenAudience.exchangeTarget(ofKey: resource),
           let tokens = TokenConversions.tokenSet(current, resource: resource, record: latest) {
            // RFC 8693: the subject token exchanged again; the account's grant is not touched.
            return Plan(unknownOutcome: unknownOutcome, tokens: tokens, request: nil, dpop: nil, exchange: exchange)
        }
        if latest.isMachine == true, let tokens = TokenConversions.tokenSet(current, resource: resource, record: latest) {
            // RFC 6749 §4.4.3: no refresh token; a new client-credentials request, made under the
            // lock with its client authentication made now (a fresh assertion, RFC 7523 §2.2).
            return Plan(unknownOutcome: unknownOutcome, tokens: tokens, request: nil, dpop: nil)
        }
        guard let tokens = TokenConversions.tokenSet(current, resource: resource, record: latest), let refreshToken = tokens.refreshToken else {
            throw AppError(title: "No refresh token for \(latest.displayName)",
                           detail: "The provider issued none (ask for the offline_access scope, or check the provider's settings); its"
                               + " access token works until it expires, then sign in again: authdeck login \(latest.providerID).",
                           disposition: .needsSignIn)
        }
        do {
            let organization = TokenAudience.organizationID(ofKey: resource)
            // A per-audience token (RFC 8707 §2.2, Logto) is asked for with the grant's scope as it
            // was granted (RFC 6749 §6: within the original grant), so the provider issues the
            // token for the resource's scopes of this grant rather than guessing.
            var request = try makeRefreshTokenRequest(metadata: metadata, client: client, refreshToken: refreshToken,
                                                      scopes: resource == nil ? nil : Self.grantScopes(latest),
                                                      resource: organization == nil ? resource ?? provider.protectedResource?.resource : nil,
                                                      organizationID: organization)
            request.timeout = Self.requestTimeout
            // RFC 9449 §5: a key-bound grant is refreshed only with a proof from the same (stored) key.
            let dpop = try DPoPAccess.signer(env: env, secrets: current)
            if dpop == nil, tokens.tokenType.equalsIgnoringASCIICase("DPoP") { throw DPoPAccess.keyMissing(latest) }
            return Plan(unknownOutcome: unknownOutcome, tokens: tokens, request: request, dpop: dpop)
        } catch let error as AppError {
            throw error
        } catch {
            throw ErrorMapping.appError(error)
        }
    }

    /// Whether the answer brought a new refresh token (RFC 6749 §6 rotation; compared code unit
    /// for code unit); nil when there is none either way (a machine account).
    static func rotated(from old: RefreshToken?, to new: RefreshToken?) -> Bool? {
        guard let new else { return old == nil ? nil : false }
        guard let old else { return true }
        return !old.exposedValue.exactlyEquals(new.exposedValue)
    }

    /// The scopes of the account's grant: as granted, or as requested when the provider named none.
    static func grantScopes(_ record: AccountRecord) -> [String]? {
        let scopes = record.grantedScopes.isEmpty ? record.requestedScopes : record.grantedScopes
        return scopes.isEmpty ? nil : scopes
    }

    /// `invalid_target` for a per-audience refresh (RFC 8707 §2): the grant does not cover that
    /// resource (or organization); only a sign-in that asks for it helps, so the error says how.
    static func targetHint(_ error: inout AppError, authError: AuthError, resource: String?, record: AccountRecord) {
        guard let resource, case .errorResponse(let response) = authError, response.code == .invalidTarget else { return }
        let how = TokenAudience.organizationID(ofKey: resource) != nil
            ? "sign in again with the urn:logto:scope:organizations scope: authdeck login \(record.providerID) --scope urn:logto:scope:organizations"
            : "sign in again asking for it: authdeck login \(record.providerID) --resource \(resource)"
        error.detail += (error.detail.isEmpty ? "" : " ") + "The account's grant does not include \(resource); \(how)."
        if error.specReference == nil { error.specReference = "RFC 8707 §2" }
    }

    /// Sends `request`; when `notices` is set, says once that the provider is slow after
    /// ``providerPatience`` (the env's `sleep`) without an answer. The request is never
    /// abandoned for slowness: only its own ``HTTPRequest/timeout`` ends it.
    private func send(_ request: HTTPRequest, through http: HTTPClient, account: String,
                      notices: (@Sendable (RefreshNotice) -> Void)?) async throws(TransportError) -> HTTPResponse {
        guard let notices else { return try await http.send(request) }
        let answered = Box(false)
        let watcher = Task { [env] in
            do { try await env.sleep(Self.providerPatience) } catch { return }
            if !Task.isCancelled, !answered.value { notices(.providerSlow(account: account)) }
        }
        defer {
            answered.set(true)
            watcher.cancel()
        }
        return try await http.send(request)
    }

    private func verifyRefreshedIDToken(_ raw: RawIDToken, original: IDTokenClaims?, tokens: TokenSet, metadata: AuthorizationServerMetadata,
                                        client: ClientConfiguration, provider: ProviderConfig) async throws(AuthError) -> VerifiedIDToken {
        try await validateRefreshedIDToken(raw, original: original, metadata: metadata, client: client, tokens: tokens, crypto: env.crypto,
                                           now: env.now(), jwksCache: ProviderAccess(env: env).jwksCache(provider, metadata: metadata))
    }
}

extension Duration {
    /// The duration in seconds.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

/// A value shared between a use case and the closures it runs (thread-safe).
private final class Box<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func set(_ value: Value) { storage.withLock { $0 = value } }
}
