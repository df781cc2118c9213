import AuthEngine
import FoundationEssentials

/// A value that is fetched on request (userinfo, introspection).
public enum Loadable<Value: Equatable & Sendable>: Equatable, Sendable {
    case idle
    case loading
    case loaded(Value)
    case failed(AppError)
}

/// Where an account's refresh stands.
public enum RefreshPhase: Equatable, Sendable {
    case idle
    /// Waiting for one of the ``RefreshQueue/maxInFlight`` slots, in ``AppState/refreshQueue``.
    case queued
    /// A refresh request is in flight; `attempt` counts transient failures before it (0 = first).
    case inFlight(attempt: Int)
    /// A transient failure; the next attempt is due at `at`.
    case retryScheduled(at: Date, attempt: Int)
    /// The grant is gone (`invalid_grant`): only an interactive sign-in helps. Never retried.
    case needsSignIn
    /// A non-retryable failure (a protocol violation): automatic refresh stops until asked.
    case halted
}

/// The status shown per account (README, `status` values).
public enum AccountStatus: Equatable, Sendable {
    case valid
    case expiringSoon
    case refreshing
    /// Waiting for a refresh slot (``RefreshQueue/maxInFlight`` are in flight).
    case queued
    case expired
    case needsSignIn
    case refreshFailed(retryAt: Date)
    case storeLocked
    /// The secrets' file cannot be read because it is damaged (`authdeck doctor`).
    case fileDamaged
    /// A refresh request was sent and no answer handled (another process is waiting for it, or
    /// died or gave up): whether the provider rotated the refresh token is unknown; the next
    /// `token` or refresh sends it again and says so.
    case refreshOutcomeUnknown
    /// A refresh request was sent by another process that still holds the account's lock: its
    /// answer is being waited for (the lock is held until it arrives or the connection is dead).
    case refreshingElsewhere

    /// The label in the accounts pane and `status`, e.g. "refresh failed, retrying in 8s".
    public func label(now: Date) -> String {
        switch self {
        case .valid: "valid"
        case .expiringSoon: "expiring soon"
        case .refreshing: "refreshing"
        case .queued: "queued"
        case .expired: "expired"
        case .needsSignIn: "needs sign-in"
        case .refreshFailed(let at):
            TimeText.secondsUntil(at, now: now) > 0
                ? "refresh failed, retrying in \(TimeText.duration(TimeText.secondsUntil(at, now: now)))"
                : "refresh failed, retrying"
        case .storeLocked: "store locked"
        case .fileDamaged: "file damaged"
        case .refreshOutcomeUnknown: "refresh outcome unknown"
        case .refreshingElsewhere: "refreshing (another process)"
        }
    }

    /// Whether the stored access token may be handed out (`token`, `api`, copy): not for an
    /// account that needs sign-in, whose grant the provider ended (``TokenForScripts`` refuses
    /// it), so its expiry is no countdown to show.
    public var accessTokenUsable: Bool { self != .needsSignIn }

    /// "not usable (sign in again)": what the screens and `status` show instead of the access
    /// token's expiry when ``accessTokenUsable`` is false.
    public static let unusableAccessTokenText = "not usable (sign in again)"

    /// Whether `status` should exit non-zero for it. An idle account whose access token expired
    /// while its refresh token is still good (`.expired`) does not: the next `token` (or the
    /// TUI) refreshes it without the user doing anything (README exit codes).
    public var needsAttention: Bool {
        switch self {
        case .valid, .expiringSoon, .refreshing, .queued, .refreshingElsewhere, .expired: false
        case .needsSignIn, .refreshFailed, .storeLocked, .fileDamaged, .refreshOutcomeUnknown: true
        }
    }
}

/// One account in the list: its metadata plus what the session is doing with it.
/// A use of an account's access token from the accounts screen. One whose token expires within
/// ``TokenUse/minimumValidity`` (or whose last refresh has an unknown outcome) waits for a refresh
/// through the refresh queue instead of refreshing on its own: every refresh of the screen goes
/// through ``RefreshQueue`` (at most four at once, single flight, its result shown at once).
public enum TokenUse: Equatable, Sendable {
    case copy, userinfo

    /// How long the token must stay valid to be used as it is: the use cases ask for this much.
    public static let minimumValidity: TimeInterval = 10

    /// Whether `record`'s default access token must be refreshed before it is used at `now`.
    public static func needsRefresh(_ record: AccountRecord, now: Date) -> Bool {
        guard record.renewable, record.needsSignInSince == nil else { return false }
        if record.refreshSentAt != nil { return true }
        guard let expiresAt = record.defaultAccessToken?.expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= minimumValidity
    }
}

public struct AccountState: Equatable, Sendable, Identifiable {
    public var record: AccountRecord
    public var refresh: RefreshPhase
    public var lastError: AppError?
    public var userinfo: Loadable<JSONValue>
    public var introspection: Loadable<JSONValue>
    /// The stored tokens, loaded when the Raw tab's reveal is asked for (masked until revealed).
    public var storedTokens: Loadable<[StoredTokens.Entry]> = .idle
    /// The refresh in flight sends a refresh token again after an earlier refresh's outcome was
    /// unknown (``RefreshNotice/replayAfterUnknownOutcome(account:sentAt:)``): its result says so.
    public var replaysRefreshToken = false
    /// Another process holds the account's lock while its refresh marker is set (seen when the
    /// accounts were loaded, ``LoadedSnapshot/refreshingElsewhere``): "refreshing (another
    /// process)", not "refresh outcome unknown".
    public var refreshingElsewhere = false
    /// What waits for the refresh in flight or queued, to run with its fresh token (a copy or a
    /// userinfo asked for while the access token was about to expire: ``TokenUse``).
    public var afterRefresh: [TokenUse] = []
    public var id: AccountID { record.id }

    public init(record: AccountRecord, refresh: RefreshPhase = .idle, lastError: AppError? = nil,
                userinfo: Loadable<JSONValue> = .idle, introspection: Loadable<JSONValue> = .idle) {
        self.record = record
        self.refresh = refresh
        self.lastError = lastError
        self.userinfo = userinfo
        self.introspection = introspection
    }

    /// The status at `now` (pure: no clock read).
    public func status(now: Date, policy: ExpiryPolicy, storeLocked: Bool, fileDamaged: Bool = false) -> AccountStatus {
        if fileDamaged { return .fileDamaged }
        if storeLocked { return .storeLocked }
        if case .inFlight = refresh { return .refreshing }
        if case .queued = refresh { return .queued }
        if record.needsSignInSince != nil { return .needsSignIn }
        if record.refreshSentAt != nil { return refreshingElsewhere ? .refreshingElsewhere : .refreshOutcomeUnknown }
        switch refresh {
        case .inFlight: return .refreshing
        case .needsSignIn: return .needsSignIn
        case .retryScheduled(let at, _): return .refreshFailed(retryAt: at)
        case .idle, .halted, .queued: break
        }
        guard let expiresAt = record.accessTokenExpiresAt else { return .valid }
        let left = expiresAt.timeIntervalSince(now)
        if left <= 0 {
            // Expired with nothing to renew it (no refresh token, or one past its own expiry) is
            // "needs sign-in"; with a usable refresh token it is only "expired".
            let refreshUsable = record.isMachine == true || record.hasRefreshToken && (record.refreshTokenExpiresAt.map { $0 > now } ?? true)
            return refreshUsable ? .expired : .needsSignIn
        }
        // Short-lived tokens (2 minutes) are not "expiring soon" for most of their life: the
        // threshold is at most a quarter of the token's lifetime.
        let lifetime = record.defaultAccessToken.map { expiresAt.timeIntervalSince($0.issuedAt) } ?? .infinity
        return left < min(policy.expiringSoonThreshold, lifetime / 4) ? .expiringSoon : .valid
    }
}

extension AccountState {
    /// The first instant at or after `now` at which ``status(now:policy:storeLocked:fileDamaged:)``
    /// may differ from its value at `now` with nothing else changed (the record, the refresh
    /// phase, the store): the access token's "expiring soon" threshold, its expiry, the refresh
    /// token's expiry; nil when none is ahead. The status holds on `[now, result)`: what the
    /// launcher's kept `status --json` (QuickStatus) is good for.
    public func statusUnchangedUntil(now: Date, policy: ExpiryPolicy) -> Date? {
        guard let expiresAt = record.accessTokenExpiresAt else { return nil }
        let lifetime = record.defaultAccessToken.map { expiresAt.timeIntervalSince($0.issuedAt) } ?? .infinity
        let expiringSoon = expiresAt.addingTimeInterval(-min(policy.expiringSoonThreshold, lifetime / 4))
        return [expiringSoon, expiresAt, record.refreshTokenExpiresAt].compactMap { $0 }.filter { $0 >= now }.min()
    }
}

/// A sign-in in progress (the login dialog's state after the user chose).
/// A resource sign-in before it starts (``SignInToResource``): the request, then the plan the
/// person confirms before anything is registered or opened.
public struct ResourceSignInQuestion: Equatable, Sendable {
    public var request: ResourceSignInRequest
    /// nil while discovery runs.
    public var plan: ResourceSignInPlan?
    public init(request: ResourceSignInRequest, plan: ResourceSignInPlan? = nil) {
        self.request = request
        self.plan = plan
    }
}

public struct SignInFlow: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        case starting
        case progress(SignInProgress)
        case failed(AppError)
    }
    public var request: SignInRequest
    public var phase: Phase
    /// The device code while the device flow runs (kept across poll updates).
    public var device: DeviceCodeDisplay?
    /// The last poll answer (`authorization_pending`, `slow_down`).
    public var pollStatus: String?
    /// No browser opened here and the sign-in reads a pasted redirect (``SignInProgress/waitingForPaste(redirectURI:fixedPort:)``).
    public var readsPaste = false
    /// What is typed in the paste field so far: the address a browser elsewhere ended on (it
    /// carries the authorization code, hence redacted), or the code.
    public var pasted: AuthorizationCode?
    public init(request: SignInRequest, phase: Phase = .starting, device: DeviceCodeDisplay? = nil, pollStatus: String? = nil) {
        self.request = request
        self.phase = phase
        self.device = device
        self.pollStatus = pollStatus
    }
}

/// A sign-out in progress and each step's result.
public struct SignOutFlow: Equatable, Sendable {
    public var accountID: AccountID
    public var displayName: String
    public var steps: [SignOutStepResult]
    public var finished: Bool
    public init(accountID: AccountID, displayName: String, steps: [SignOutStepResult] = [], finished: Bool = false) {
        self.accountID = accountID
        self.displayName = displayName
        self.steps = steps
        self.finished = finished
    }
}

/// A value to copy to the terminal's clipboard, redacted until the terminal writes it.
public struct ClipboardRequest: Equatable, Sendable {
    public var value: AccessToken
    /// What to flash once it is written.
    public var note: String
    public init(value: AccessToken, note: String) {
        self.value = value
        self.note = note
    }

    /// What the flash says once `what` went out as OSC 52: it was sent, which is all authdeck
    /// can know (a terminal, or tmux without `set-clipboard on`, may drop it without a word).
    public static func sentNote(_ what: String) -> String {
        "\(what) sent to the terminal's clipboard (OSC 52; a terminal may ignore it)"
    }
}

/// A flash line (k9s): a level, a text, and when it goes away (through the clock).
public struct Flash: Equatable, Sendable {
    public enum Level: String, Equatable, Sendable { case info, warn, error }
    public var level: Level
    public var text: String
    /// When it goes away; nil: it stays until replaced.
    public var expiresAt: Date?
    public init(level: Level, text: String, expiresAt: Date? = nil) {
        self.level = level
        self.text = text
        self.expiresAt = expiresAt
    }
}

/// The whole application state: Equatable and fully presentable (view models are pure
/// functions of it, taking `now` from it).
public struct AppState: Equatable, Sendable {
    public enum LoadPhase: Equatable, Sendable { case notLoaded, loading, loaded, failed(AppError) }

    public var now: Date
    public var policy: ExpiryPolicy
    public var load: LoadPhase
    public var providers: [ProviderConfig]
    public var accounts: [AccountState]
    /// Refreshes waiting for a slot, in the order they start (``RefreshQueue``): exactly the
    /// accounts whose phase is ``RefreshPhase/queued``.
    public var refreshQueue: [QueuedRefresh] = []
    /// The persisted active account.
    public var activeAccountID: AccountID?
    /// `AUTHDECK_ACCOUNT` for this process only (an alias, id or prefix, as on the command line);
    /// wins over the persisted active account, never saved.
    public var environmentAccount: String?
    /// What the directory the screen was started in says (git config, the directory rule).
    public var place: AccountPlace = .nowhere
    /// The credential store's backend and state (not to be confused with the state `Store`).
    public var credentialStore: StoreInfo
    /// Files that could not be read because they are damaged: the screen says "file damaged",
    /// names them and says to run `authdeck doctor` (instead of "No accounts").
    public var damage: [FileDamage] = []
    public var signIn: SignInFlow?
    /// Signing in to a resource by its URL: its plan awaiting the person's answer (nil while discovery runs).
    public var resourceSignIn: ResourceSignInQuestion?
    public var signOut: SignOutFlow?
    /// The presets in effect (``PresetCatalog``), set by the front end at start.
    public var presets: [ProviderPreset] = []
    /// The sign-in dialog's "Add a provider from a preset…" form, while it is open.
    public var presetForm: PresetForm?
    /// The accounts screen's "Edit provider" form, while open.
    public var providerEditForm: ProviderEditForm?
    public var flash: Flash?
    /// A token the front end is to put on the clipboard (then it sends `.clipboardWritten`).
    public var clipboard: ClipboardRequest?
    /// Seconds a flash stays (k9s: 6 s).
    public var flashDuration: Double

    public init(now: Date, policy: ExpiryPolicy = .standard, environmentAccount: String? = nil, flashDuration: Double = 6) {
        self.now = now
        self.policy = policy
        self.load = .notLoaded
        self.providers = []
        self.accounts = []
        self.activeAccountID = nil
        self.environmentAccount = environmentAccount
        self.credentialStore = StoreInfo(backend: nil)
        self.signIn = nil
        self.signOut = nil
        self.flash = nil
        self.flashDuration = flashDuration
    }

    /// The account scripts get and the screen marks active: ``AccountResolution``'s default
    /// (`AUTHDECK_ACCOUNT`, git config, the directory rule, the persisted active account, the only account).
    public var effectiveActiveAccountID: AccountID? {
        AccountResolution.defaultAccountID(accounts: accounts.map(\.record), active: activeAccountID, environmentAccount: environmentAccount,
                                           place: place)
    }

    /// The account the directory the screen was started in resolves to, and why (`authdeck which`):
    /// nil with no accounts; an error (a rule naming an account that is gone) is the screen's to show.
    public var defaultAccountChoice: Result<ResolvedAccount, AccountResolutionError>? {
        guard !accounts.isEmpty else { return nil }
        do {
            return .success(try AccountResolution.choose(nil, accounts: accounts.map(\.record), active: activeAccountID,
                                                         environmentAccount: environmentAccount, place: place))
        } catch {
            return .failure(error)
        }
    }

    public func account(_ id: AccountID) -> AccountState? { accounts.first { $0.id == id } }

    public func status(of account: AccountState) -> AccountStatus {
        account.status(now: now, policy: policy, storeLocked: credentialStore.isLocked, fileDamaged: credentialStore.damage != nil)
    }

    /// Whether anything visible counts down (the ticker runs only then).
    public var hasLiveCountdown: Bool {
        !accounts.isEmpty || signIn?.device != nil || flash != nil
    }
}
