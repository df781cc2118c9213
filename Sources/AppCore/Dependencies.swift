import AuthEngine
import CredentialStore
import FoundationEssentials

/// What a sign-in asks for beyond the provider's configuration.
public struct SignInRequest: Equatable, Sendable {
    public enum Flow: String, Equatable, Sendable, CaseIterable { case browser, device }
    public var providerID: ProviderID
    public var flow: Flow
    /// Scopes added to the provider's configured ones.
    public var extraScopes: [String]
    public var audience: String?
    public var resources: [String]
    /// `--name`: an alias for the account.
    public var alias: String?
    /// Do not start a browser; only show the URL (`--no-browser`).
    public var noBrowser: Bool

    public init(providerID: ProviderID, flow: Flow = .browser, extraScopes: [String] = [], audience: String? = nil,
                resources: [String] = [], alias: String? = nil, noBrowser: Bool = false) {
        self.providerID = providerID
        self.flow = flow
        self.extraScopes = extraScopes
        self.audience = audience
        self.resources = resources
        self.alias = alias
        self.noBrowser = noBrowser
    }
}

/// RFC 8628 §3.2 values shown to the user while the device flow runs.
public struct DeviceCodeDisplay: Equatable, Sendable {
    public var userCode: String
    public var verificationURI: URL
    public var verificationURIComplete: URL?
    /// Absolute expiry of the device code.
    public var expiresAt: Date
    /// Polling interval (RFC 8628 §3.2 `interval`).
    public var interval: Duration
    /// What the provider's response got wrong that was dropped (``DeviceAuthorizationNote``), one line each.
    public var notes: [String]
    public init(userCode: String, verificationURI: URL, verificationURIComplete: URL?, expiresAt: Date, interval: Duration, notes: [String] = []) {
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresAt = expiresAt
        self.interval = interval
        self.notes = notes
    }
}

/// Progress of a sign-in, sent while the flow runs.
public enum SignInProgress: Equatable, Sendable {
    case discovering
    /// The authorization URL; `browserOpened` tells whether a browser was started for it.
    case waitingForBrowser(url: URL, browserOpened: Bool)
    case exchangingCode
    case deviceCode(DeviceCodeDisplay)
    /// RFC 8628 §3.5 poll answers: `authorization_pending`, or `slow_down` with the new interval.
    case devicePending
    case deviceSlowDown(interval: Duration)
    case verifying
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

/// The credential store as the app sees it.
public struct StoreInfo: Equatable, Sendable {
    /// The backend; nil when none could be selected (or before the first load).
    public var backend: SecretStoreKind?
    public var isLocked: Bool
    /// The secrets' file cannot be read: it is damaged (the vault's header or authentication
    /// tag fails, the plaintext file is not what authdeck wrote).
    public var damage: FileDamage?
    /// Why this backend is the one in use ("a Secret Service answered on the session bus;
    /// recorded in …/store.json"), or why there is none; `status` and `login` say it.
    public var reason: String?
    /// Why the store could not be asked ("… did not answer within 3 s"): its state is unknown.
    public var problem: String?
    public init(backend: SecretStoreKind?, isLocked: Bool = false, damage: FileDamage? = nil, reason: String? = nil, problem: String? = nil) {
        self.backend = backend
        self.isLocked = isLocked
        self.damage = damage
        self.reason = reason
        self.problem = problem
    }
    /// The store in a sentence ("the Secret Service (keyring)").
    public var label: String {
        switch backend {
        case .secretService?: "the Secret Service (keyring)"
        case .vault?: "the encrypted vault"
        case .plaintext?: "the PLAINTEXT file (insecure)"
        case .memory?: "process memory (gone when authdeck exits)"
        case nil: "no credential store"
        }
    }
    /// Plaintext: shown as a permanent warning badge.
    public var isInsecure: Bool { backend?.isInsecure ?? false }
    /// `secret-service`, `vault`, `plaintext`, `memory`, or `unavailable`.
    public var name: String { backend?.rawValue ?? "unavailable" }
}

/// Everything loaded at start (and on reload).
public struct LoadedSnapshot: Equatable, Sendable {
    public var providers: [ProviderConfig]
    public var accounts: [AccountRecord]
    /// The persisted active account.
    public var activeAccountID: AccountID?
    public var credentialStore: StoreInfo
    /// Files that could not be read because they are damaged (``LoadAccounts/overview()``):
    /// what they hold is missing from this snapshot; the front ends say "store damaged".
    public var damage: [FileDamage]
    /// What the user should know but that blocks nothing (a damaged `active.json`).
    public var warnings: [String]
    /// Accounts whose refresh marker (``AccountRecord/refreshSentAt``) is set while another
    /// process holds their account lock: a refresh is waiting for its answer there, so its
    /// outcome is not unknown (``LoadAccounts/overview()``; empty from ``LoadAccounts/run()``).
    public var refreshingElsewhere: Set<AccountID>
    /// What the directory the process runs in says about the account (git config, the directory
    /// rule; ``Places/read(_:)``): read by ``LoadAccounts/overview()``, ``AccountPlace/nowhere`` from ``LoadAccounts/run()``.
    public var place: AccountPlace = .nowhere
    public init(providers: [ProviderConfig], accounts: [AccountRecord], activeAccountID: AccountID?, credentialStore: StoreInfo,
                damage: [FileDamage] = [], warnings: [String] = [], refreshingElsewhere: Set<AccountID> = []) {
        self.providers = providers
        self.accounts = accounts
        self.activeAccountID = activeAccountID
        self.credentialStore = credentialStore
        self.damage = damage
        self.warnings = warnings
        self.refreshingElsewhere = refreshingElsewhere
    }

    /// Every damaged file: the metadata files' and the secrets' file.
    public var allDamage: [FileDamage] { damage + (credentialStore.damage.map { [$0] } ?? []) }
}

/// The use cases the reducer's effects run, as a struct of closures so reducer tests can script
/// them. ``init(environment:)`` is the one real value: each closure is a use case over the
/// environment (no flow is written here).
public struct UseCaseClient: Sendable {
    /// Loads providers, account metadata, the active account and the store's state.
    public var load: @Sendable () async -> Result<LoadedSnapshot, AppError>
    /// Persists the active account (`nil` clears it).
    public var saveActiveAccount: @Sendable (AccountID?) async -> Result<AccountID?, AppError>
    /// Runs a whole sign-in (browser or device), reporting progress; cancellable (Task cancel).
    public var signIn: @Sendable (SignInRequest, _ progress: @escaping @Sendable (SignInProgress) -> Void) async -> Result<SignInOutcome, AppError>
    /// Refreshes the account's tokens (``RefreshAccount``). `manual`: always send a request;
    /// otherwise none is sent when another process already refreshed. `notice`: the provider is
    /// slow, a refresh token is replayed (``RefreshNotice``).
    public var refresh: @Sendable (AccountID, _ manual: Bool, _ notice: @escaping @Sendable (RefreshNotice) -> Void) async -> Result<AccountRecord, AppError>
    /// Signs out step by step (``SignOut``); returns what changed locally.
    public var signOut: @Sendable (AccountID, SignOutOptions, _ step: @escaping @Sendable (SignOutStepResult) -> Void) async -> SignOutOutcome
    /// OIDC Core §5.3 userinfo claims.
    public var userinfo: @Sendable (AccountID) async -> Result<JSONValue, AppError>
    /// RFC 7662 introspection of the default access token.
    public var introspect: @Sendable (AccountID) async -> Result<JSONValue, AppError>
    /// An access token valid for at least 10 s, to copy (``TokenForScripts``).
    /// `notice`: what a refresh on the way says (``RefreshNotice``).
    public var accessToken: @Sendable (AccountID, _ notice: @escaping @Sendable (RefreshNotice) -> Void) async -> Result<AccessToken, AppError>
    /// The stored tokens for the Raw tab (``StoredTokens``).
    public var storedTokens: @Sendable (AccountID) async -> Result<[StoredTokens.Entry], AppError>
    /// Saves a new provider after its discovery probe (``ProviderAdmin/add(_:clientSecret:probe:)``,
    /// as `provider add` does); returns it.
    public var addProvider: @Sendable (ProviderConfig, ClientSecret?) async -> Result<ProviderConfig, AppError>

    public init(
        load: @escaping @Sendable () async -> Result<LoadedSnapshot, AppError>,
        saveActiveAccount: @escaping @Sendable (AccountID?) async -> Result<AccountID?, AppError>,
        signIn: @escaping @Sendable (SignInRequest, @escaping @Sendable (SignInProgress) -> Void) async -> Result<SignInOutcome, AppError>,
        refresh: @escaping @Sendable (AccountID, Bool, @escaping @Sendable (RefreshNotice) -> Void) async -> Result<AccountRecord, AppError>,
        signOut: @escaping @Sendable (AccountID, SignOutOptions, @escaping @Sendable (SignOutStepResult) -> Void) async -> SignOutOutcome,
        userinfo: @escaping @Sendable (AccountID) async -> Result<JSONValue, AppError>,
        introspect: @escaping @Sendable (AccountID) async -> Result<JSONValue, AppError>,
        accessToken: @escaping @Sendable (AccountID, @escaping @Sendable (RefreshNotice) -> Void) async -> Result<AccessToken, AppError>,
        storedTokens: @escaping @Sendable (AccountID) async -> Result<[StoredTokens.Entry], AppError>,
        addProvider: @escaping @Sendable (ProviderConfig, ClientSecret?) async -> Result<ProviderConfig, AppError>
    ) {
        self.load = load
        self.saveActiveAccount = saveActiveAccount
        self.signIn = signIn
        self.refresh = refresh
        self.signOut = signOut
        self.userinfo = userinfo
        self.introspect = introspect
        self.accessToken = accessToken
        self.storedTokens = storedTokens
        self.addProvider = addProvider
    }

    /// The use cases over `environment`.
    public init(environment env: AppEnvironment) {
        @Sendable func result<T>(_ body: () async throws(AppError) -> T) async -> Result<T, AppError> {
            do { return .success(try await body()) } catch { return .failure(error) }
        }
        self.init(
            load: { await result { () throws(AppError) in try LoadAccounts(env).overview() } },
            saveActiveAccount: { id in await result { () throws(AppError) in try SwitchAccount(env).run(id) } },
            signIn: { request, progress in await result { () async throws(AppError) in try await SignIn(env).run(request, progress: progress) } },
            refresh: { id, manual, notice in await result { () async throws(AppError) in try await RefreshAccount(env).runAll(id, manual: manual, notices: notice) } },
            signOut: { id, options, step in await SignOut(env).run(id, options: options, step: step) },
            userinfo: { id in await result { () async throws(AppError) in try await ShowUserInfo(env).run(id) } },
            introspect: { id in await result { () async throws(AppError) in try await IntrospectAccessToken(env).run(id) } },
            accessToken: { id, notice in await result { () async throws(AppError) in try await TokenForScripts(env).accessToken(id, minimumValidity: .seconds(TokenUse.minimumValidity), notices: notice).value } },
            storedTokens: { id in await result { () throws(AppError) in try StoredTokens(env).run(id) } },
            addProvider: { config, secret in
                await result { () async throws(AppError) in try await ProviderAdmin(env).add(config, clientSecret: secret, probe: .discovery); return config }
            })
    }

    /// Every operation calls `report` with "unimplemented: useCases.<name>" and fails: tests
    /// override only what their story uses, and an unexpected call is a test issue naming it
    /// (as ``AppEnvironment/unimplemented(_:)``).
    public static func unimplemented(_ report: @escaping @Sendable (String) -> Void) -> UseCaseClient {
        @Sendable func failure(_ name: String) -> AppError {
            report("unimplemented: useCases.\(name)")
            return unimplementedError("useCases.\(name)")
        }
        return UseCaseClient(
            load: { .failure(failure("load")) },
            saveActiveAccount: { _ in .failure(failure("saveActiveAccount")) },
            signIn: { _, _ in .failure(failure("signIn")) },
            refresh: { _, _, _ in .failure(failure("refresh")) },
            signOut: { _, _, step in step(.init(.deleteLocalSecrets, .failed(failure("signOut")))); return .notRemoved },
            userinfo: { _ in .failure(failure("userinfo")) },
            introspect: { _ in .failure(failure("introspect")) },
            accessToken: { _, _ in .failure(failure("accessToken")) },
            storedTokens: { _ in .failure(failure("storedTokens")) },
            addProvider: { _, _ in .failure(failure("addProvider")) })
    }
}

public func unimplementedError(_ name: String) -> AppError {
    AppError(title: "Unimplemented dependency", detail: name, disposition: .other)
}

/// Everything the reducer's effects may use. Time arrives in actions; effects read the clock.
public struct AppDependencies: Sendable {
    public var useCases: UseCaseClient
    public init(useCases: UseCaseClient) { self.useCases = useCases }
    /// Every use case reports and fails (``UseCaseClient/unimplemented(_:)``).
    public static func unimplemented(_ report: @escaping @Sendable (String) -> Void) -> AppDependencies {
        AppDependencies(useCases: .unimplemented(report))
    }
}
