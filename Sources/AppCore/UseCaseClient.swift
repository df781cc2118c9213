import AuthEngine
import CredentialStore
import FoundationEssentials

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
    /// Refreshes the account's tokens (``RefreshAccount``). `force`: always send a request;
    /// otherwise none is sent when another process already refreshed. `notice`: the provider is
    /// slow, a refresh token is replayed (``RefreshNotice``).
    public var refresh: @Sendable (AccountID, _ force: Bool, _ notice: @escaping @Sendable (RefreshNotice) -> Void) async
        -> Result<AccountRecord, AppError>
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
    /// Changes a saved provider in place after its discovery probe (``ProviderAdmin/change(_:clientSecret:probe:edit:)``
    /// with the form's changes as its edit, as `provider set` does); returns what changed.
    public var changeProvider: @Sendable (ProviderID, ProviderEditForm.Changes) async -> Result<ProviderAdmin.Change, AppError>
    /// A resource's discovery and plan (``SignInToResource/discover(_:)``, ``SignInToResource/plan(_:_:)``):
    /// what the person confirms; nothing registered or opened.
    public var planResourceSignIn: @Sendable (ResourceSignInRequest) async -> Result<ResourceSignInPlan, AppError>
    /// The confirmed plan carried out (``SignInToResource/run(_:_:progress:)``).
    public var signInToResource: @Sendable (ResourceSignInPlan, ResourceSignInRequest, _ progress: @escaping @Sendable (SignInProgress) -> Void) async
        -> Result<SignInOutcome, AppError>
    /// A line pasted into the browser sign-in's field (the address a browser on another machine
    /// ended on, or the code), for the running ``signIn`` to read (``PastedLines``).
    public var pasteRedirect: @Sendable (String) -> Void

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
        addProvider: @escaping @Sendable (ProviderConfig, ClientSecret?) async -> Result<ProviderConfig, AppError>,
        changeProvider: @escaping @Sendable (ProviderID, ProviderEditForm.Changes) async -> Result<ProviderAdmin.Change, AppError>,
        planResourceSignIn: @escaping @Sendable (ResourceSignInRequest) async -> Result<ResourceSignInPlan, AppError>,
        signInToResource: @escaping @Sendable (ResourceSignInPlan, ResourceSignInRequest, @escaping @Sendable (SignInProgress) -> Void) async
            -> Result<SignInOutcome, AppError>,
        pasteRedirect: @escaping @Sendable (String) -> Void
    ) {
        self.pasteRedirect = pasteRedirect
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
        self.changeProvider = changeProvider
        self.planResourceSignIn = planResourceSignIn
        self.signInToResource = signInToResource
    }

    /// The use cases over `environment`.
    public init(environment env: AppEnvironment) {
        @Sendable func result<T>(_ body: () async throws(AppError) -> T) async -> Result<T, AppError> {
            do { return .success(try await body()) } catch { return .failure(error) }
        }
        let pasted = PastedLineMailbox()
        self.init(
            load: { await result { () throws(AppError) in try LoadAccounts(env).overview() } },
            saveActiveAccount: { id in await result { () throws(AppError) in try SwitchAccount(env).run(id) } },
            signIn: { request, progress in
                await result { () async throws(AppError) in
                    pasted.reset()
                    return try await SignIn(env).run(request, pasted: pasted.lines, progress: progress)
                }
            },
            refresh: { id, force, notice in
                await result { () async throws(AppError) in try await RefreshAccount(env).runAll(id, force: force, notices: notice) }
            },
            signOut: { id, options, step in await SignOut(env).run(id, options: options, step: step) },
            userinfo: { id in await result { () async throws(AppError) in try await ShowUserInfo(env).run(id) } },
            introspect: { id in await result { () async throws(AppError) in try await IntrospectAccessToken(env).run(id) } },
            accessToken: { id, notice in
                await result { () async throws(AppError) in
                    try await TokenForScripts(env).accessToken(id, minimumValidity: .seconds(TokenUse.minimumValidity), notices: notice).value
                }
            },
            storedTokens: { id in await result { () throws(AppError) in try StoredTokens(env).run(id) } },
            addProvider: { config, secret in
                await result { () async throws(AppError) in
                    try await ProviderAdmin(env).add(config, clientSecret: secret, probe: .discovery)
                    return config
                }
            },
            changeProvider: { id, changes in
                await result { () async throws(AppError) in
                    try await ProviderAdmin(env).change(id, clientSecret: changes.clientSecret, probe: .discovery) { (config) throws(AppError) in
                        try changes.apply(to: &config)
                    }
                }
            },
            planResourceSignIn: { request in
                await result { () async throws(AppError) in
                    let useCase = SignInToResource(env)
                    return try await useCase.plan(try await useCase.discover(request.resourceURL), request)
                }
            },
            signInToResource: { plan, request, progress in
                await result { () async throws(AppError) in try await SignInToResource(env).run(plan, request, progress: progress) }
            },
            pasteRedirect: { line in pasted.send(line) })
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
            addProvider: { _, _ in .failure(failure("addProvider")) },
            changeProvider: { _, _ in .failure(failure("changeProvider")) },
            planResourceSignIn: { _ in .failure(failure("planResourceSignIn")) },
            signInToResource: { _, _, _ in .failure(failure("signInToResource")) },
            pasteRedirect: { _ in _ = failure("pasteRedirect") })
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
