import AuthEngine
import FoundationEssentials

/// Everything that can happen: user intents, clock ticks and effect results.
public enum AppAction: Equatable, Sendable {
    // Lifecycle
    case start
    /// Re-reads the files (another process may have signed in, refreshed or signed out); the
    /// accounts screen sends it every 5 s. In-flight work is kept.
    case reload
    case loaded(Result<LoadedSnapshot, AppError>)
    /// The clock: the runtime sends it once a second while something counts down.
    case tick(Date)

    // Accounts
    case activate(AccountID)
    case activeSaved(Result<AccountID?, AppError>)

    // Refresh
    case refresh(AccountID, force: Bool)
    case refreshFinished(AccountID, Result<AccountRecord, AppError>)
    /// A refresh on the way is slow, or replays a refresh token after an unknown outcome.
    case refreshNotice(AccountID, RefreshNotice)

    // Sign-in
    case signIn(SignInRequest)
    case signInProgress(SignInProgress)
    case signInFinished(Result<SignInOutcome, AppError>)
    case cancelSignIn
    case dismissSignIn
    /// A key typed in the browser sign-in's paste field (nil: backspace), while it reads one.
    case signInPasteKey(Character?)
    /// Enter in the paste field: the line goes to the running sign-in (``UseCaseClient/pasteRedirect``).
    case signInPasteSubmit
    /// `login URL` in the screen: discovery and the plan, then the person's answer.
    case signInToResource(ResourceSignInRequest)
    case resourceSignInPlanned(Result<ResourceSignInPlan, AppError>)
    case confirmResourceSignIn
    case dismissResourceSignIn

    // The sign-in dialog's "Add a provider from a preset…" form
    case presetFormOpen
    case presetFormEdit(PresetForm.Edit)
    case presetFormSubmit
    case presetFormFinished(Result<ProviderConfig, AppError>)
    case presetFormClose

    // The accounts screen's "Edit provider" form (``ProviderEditForm``)
    case providerEditOpen(ProviderID)
    case providerEditEdit(ProviderEditForm.Edit)
    case providerEditSubmit
    case providerEditFinished(Result<ProviderAdmin.Change, AppError>)
    case providerEditClose

    // Sign-out
    case signOut(AccountID, SignOutOptions)
    case signOutStep(SignOutStepResult)
    case signOutFinished(AccountID, SignOutOutcome)
    case dismissSignOut

    // On request
    case fetchUserinfo(AccountID)
    case userinfoLoaded(AccountID, Result<JSONValue, AppError>)
    case introspect(AccountID)
    case introspectionLoaded(AccountID, Result<JSONValue, AppError>)

    // Copy and reveal: the token stays redacted in the state until the terminal writes it.
    case copyAccessTokenKeyPressed(AccountID)
    case accessTokenForCopyResponse(AccountID, Result<AccessToken, AppError>)
    /// The front end wrote ``AppState/clipboard`` to the terminal (OSC 52).
    case clipboardWritten
    /// The Raw tab is shown (or reveal pressed): load the stored tokens, masked until revealed.
    case rawTokensRequested(AccountID)
    case storedTokensResponse(AccountID, Result<[StoredTokens.Entry], AppError>)

    case flash(Flash.Level, String)
}

public enum EffectIDs {
    public static let load = EffectID("load")
    public static let signIn = EffectID("sign-in")
    public static let addProvider = EffectID("add-provider")
    public static let changeProvider = EffectID("change-provider")
    public static func refresh(_ id: AccountID) -> EffectID { EffectID("refresh/\(id.rawValue)") }
    public static func signOut(_ id: AccountID) -> EffectID { EffectID("sign-out/\(id.rawValue)") }
}

/// The app's reducer: pure, no I/O, no `Date()`; time arrives in `.tick`.
public struct AppReducer: Sendable {
    public var dependencies: AppDependencies
    public init(dependencies: AppDependencies) { self.dependencies = dependencies }

    public func reduce(_ state: inout AppState, _ action: AppAction) -> Effect<AppAction> {
        let useCases = dependencies.useCases
        switch action {
        case .start:
            state.load = .loading
            return .run { send in send(.loaded(await useCases.load())) }.cancellable(EffectIDs.load)

        case .reload:
            guard state.load == .loaded else { return .none }
            return .run { send in send(.loaded(await useCases.load())) }.cancellable(EffectIDs.load)

        case .loaded(.success(let snapshot)):
            state.load = .loaded
            state.providers = snapshot.providers
            state.credentialStore = snapshot.credentialStore
            state.activeAccountID = snapshot.activeAccountID
            state.place = snapshot.place
            state.damage = snapshot.allDamage
            if let warning = snapshot.warnings.first, state.flash == nil { flash(&state, .warn, warning) }
            state.accounts = snapshot.accounts.map { record in
                var account = state.account(record.id) ?? AccountState(record: record)
                account.record = record
                account.refreshingElsewhere = snapshot.refreshingElsewhere.contains(record.id)
                return account
            }
            sortAccounts(&state)
            // An account gone from the files (signed out elsewhere) leaves the queue.
            let present = Set(state.accounts.map(\.id))
            state.refreshQueue.removeAll { !present.contains($0.id) }
            return dueRefreshes(&state)

        case .loaded(.failure(let error)):
            state.load = .failed(error)
            if error.disposition == .storeLocked { state.credentialStore.isLocked = true }
            flash(&state, .error, error.description)
            return .none

        case .tick(let now):
            state.now = now
            if let expiresAt = state.flash?.expiresAt, expiresAt <= now { state.flash = nil }
            return dueRefreshes(&state)

        case .activate(let id):
            guard let account = state.account(id) else { return .none }
            state.activeAccountID = id
            if let pinned = state.environmentAccount, !pinned.isEmpty {
                // The saved choice is for other shells: this one's AUTHDECK_ACCOUNT still wins (as `switch` says).
                flash(&state, .warn, "Active account saved: \(account.record.displayName); AUTHDECK_ACCOUNT=\(pinned) still selects the account here")
            } else {
                flash(&state, .info, "Active account: \(account.record.displayName)")
            }
            return .run { send in send(.activeSaved(await useCases.saveActiveAccount(id))) }

        case .activeSaved(.success):
            return .none

        case .activeSaved(.failure(let error)):
            flash(&state, .error, "Could not save the active account: \(error)")
            return .none

        case .refresh(let id, let force):
            // Queued in order, started while fewer than RefreshQueue.maxInFlight are in flight.
            enqueueRefresh(&state, id, force: force)
            return startQueuedRefreshes(&state)

        case .refreshFinished(let id, .success(let record)):
            guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return .none }
            state.accounts[index].record = record
            state.accounts[index].refresh = .idle
            state.accounts[index].lastError = nil
            // The introspection and the loaded raw tokens described the previous tokens.
            state.accounts[index].introspection = .idle
            state.accounts[index].storedTokens = .idle
            if state.accounts[index].replaysRefreshToken {
                state.accounts[index].replaysRefreshToken = false
                flash(&state, .warn, "Refreshed \(record.displayName): its refresh token was sent again after an earlier refresh"
                    + " got no answer, and the provider accepted it")
            } else {
                flash(&state, .info, "Refreshed \(record.displayName)")
            }
            let waiting = state.accounts[index].afterRefresh
            state.accounts[index].afterRefresh = []
            return .merge([startQueuedRefreshes(&state)] + waiting.map { use(&state, $0, id) })

        case .refreshNotice(let id, let notice):
            guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return .none }
            if case .replayAfterUnknownOutcome = notice { state.accounts[index].replaysRefreshToken = true }
            // "The provider is slow" stays up while the request may still be answered; the
            // refresh's own result replaces it.
            let seconds = if case .providerSlow = notice { RefreshAccount.requestTimeout.timeInterval } else { state.flashDuration }
            state.flash = Flash(level: .warn, text: notice.message, expiresAt: state.now.addingTimeInterval(seconds))
            return .none

        case .refreshFinished(let id, .failure(let error)):
            guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return .none }
            let name = state.accounts[index].record.displayName
            let attempt: Int
            if case .inFlight(let previous) = state.accounts[index].refresh { attempt = previous + 1 } else { attempt = 1 }
            state.accounts[index].lastError = error
            // What waited for this refresh is dropped; the refresh's failure is what the flash says.
            state.accounts[index].afterRefresh = []
            let replayed = state.accounts[index].replaysRefreshToken
            state.accounts[index].replaysRefreshToken = false
            switch error.disposition {
            case .needsSignIn where replayed:
                state.accounts[index].refresh = .needsSignIn
                flash(&state, .warn, "\(name) needs to sign in again: its refresh token was sent again after an earlier refresh"
                    + " got no answer, and the provider refused it (\(error.title))")
            case .needsSignIn:
                state.accounts[index].refresh = .needsSignIn
                flash(&state, .warn, "\(name) needs to sign in again: \(error.title)")
            case .transient(let retryAfter):
                let delay = state.policy.retryDelay(attempt: attempt, retryAfter: retryAfter)
                state.accounts[index].refresh = .retryScheduled(at: state.now.addingTimeInterval(delay), attempt: attempt)
                flash(&state, .warn, "Refresh of \(name) failed, retrying in \(Int(delay))s: \(error.title)")
            case .storeLocked:
                state.accounts[index].refresh = .halted
                state.credentialStore.isLocked = true
                flash(&state, .error, "The credential store is locked")
            case .cancelled:
                state.accounts[index].refresh = .idle
            case .fileDamaged:
                state.accounts[index].refresh = .halted
                flash(&state, .error, error.description)
            case .securityRelevant, .usage, .other:
                state.accounts[index].refresh = .halted
                flash(&state, .error, "Refresh of \(name) failed: \(error)")
            }
            return startQueuedRefreshes(&state)

        case .signIn(let request):
            if state.signIn != nil, state.signIn?.isRunning == true {
                flash(&state, .warn, "A sign-in is already in progress")
                return .none
            }
            state.signIn = SignInFlow(request: request)
            return .run { send in
                let result = await useCases.signIn(request) { progress in send(.signInProgress(progress)) }
                send(.signInFinished(result))
            }.cancellable(EffectIDs.signIn)

        case .signInProgress(let progress):
            guard state.signIn?.isRunning == true else { return .none }
            switch progress {
            // The paste field opens beside the browser's URL, which stays shown.
            case .waitingForPaste:
                state.signIn?.readsPaste = true
                return .none
            case .pastedLineRefused(let reason):
                flash(&state, .warn, reason)
                return .none
            case .pastedRedirectAccepted:
                state.signIn?.readsPaste = false
                return .none
            default: break
            }
            state.signIn?.phase = .progress(progress)
            switch progress {
            case .deviceCode(let device):
                state.signIn?.device = device
                if let note = device.notes.first { flash(&state, .warn, note) }
            case .devicePending: state.signIn?.pollStatus = "authorization_pending"
            case .deviceSlowDown(let interval):
                state.signIn?.pollStatus = "slow_down"
                state.signIn?.device?.interval = interval
            default: break
            }
            return .none

        case .signInFinished(.success(let outcome)):
            guard state.signIn != nil else { return .none }
            let record = outcome.record
            state.signIn = nil
            if let index = state.accounts.firstIndex(where: { $0.id == record.id }) {
                state.accounts[index] = AccountState(record: record)
            } else {
                state.accounts.append(AccountState(record: record))
                sortAccounts(&state)
            }
            if let warning = record.tokenWarnings?.first {
                flash(&state, .warn, "Signed in as \(record.displayName); \(warning)")
            } else {
                flash(&state, .info, "Signed in as \(record.displayName)")
            }
            // The sign-in use case decided and saved it; the state mirrors it.
            if outcome.becameActive { state.activeAccountID = record.id }
            return .none

        case .signInFinished(.failure(let error)):
            guard state.signIn != nil else { return .none }
            if error.disposition == .cancelled {
                state.signIn = nil
                flash(&state, .info, "Sign-in cancelled")
            } else {
                state.signIn?.phase = .failed(error)
                flash(&state, .error, "Sign-in failed: \(error)")
            }
            return .none

        case .cancelSignIn:
            guard state.signIn != nil else { return .none }
            state.signIn = nil
            flash(&state, .info, "Sign-in cancelled")
            return .cancel(EffectIDs.signIn)

        case .dismissSignIn:
            guard state.signIn?.isRunning == false else { return .none }
            state.signIn = nil
            return .none

        case .signInPasteKey, .signInPasteSubmit:
            return reducePasteField(&state, action, useCases: useCases)

        case .signInToResource(let request):
            if state.signIn?.isRunning == true || state.resourceSignIn != nil {
                flash(&state, .warn, "A sign-in is already in progress")
                return .none
            }
            state.resourceSignIn = ResourceSignInQuestion(request: request)
            flash(&state, .info, "Discovering \(request.resourceURL)…")
            return .run { send in
                send(.resourceSignInPlanned(await useCases.planResourceSignIn(request)))
            }.cancellable(EffectIDs.signIn)

        case .resourceSignInPlanned(.success(let plan)):
            guard state.resourceSignIn != nil else { return .none }
            state.resourceSignIn?.plan = plan
            return .none

        case .resourceSignInPlanned(.failure(let error)):
            guard state.resourceSignIn != nil else { return .none }
            state.resourceSignIn = nil
            if error.disposition != .cancelled { flash(&state, .error, "Sign-in failed: \(error)") }
            return .none

        case .confirmResourceSignIn:
            guard let question = state.resourceSignIn, let plan = question.plan, state.signIn?.isRunning != true else { return .none }
            state.resourceSignIn = nil
            state.signIn = SignInFlow(request: SignInRequest(providerID: plan.providerID, extraScopes: question.request.extraScopes))
            return .run { send in
                let result = await useCases.signInToResource(plan, question.request) { progress in send(.signInProgress(progress)) }
                send(.signInFinished(result))
                // The provider it made (or reused) comes with the next load.
                if case .success = result { send(.reload) }
            }.cancellable(EffectIDs.signIn)

        case .dismissResourceSignIn:
            guard state.resourceSignIn != nil else { return .none }
            state.resourceSignIn = nil
            return .cancel(EffectIDs.signIn)

        case .presetFormOpen, .presetFormEdit, .presetFormSubmit, .presetFormFinished, .presetFormClose:
            return reducePresetForm(&state, action)
        case .providerEditOpen, .providerEditEdit, .providerEditSubmit, .providerEditFinished, .providerEditClose:
            return reduceProviderEditForm(&state, action)

        case .signOut(let id, let options):
            guard let account = state.account(id), state.signOut?.finished != false else { return .none }
            state.signOut = SignOutFlow(accountID: id, displayName: account.record.displayName)
            // A queued refresh would send the refresh token being revoked: it leaves the queue.
            dropQueuedRefresh(&state, id)
            return .run { send in
                let outcome = await useCases.signOut(id, options) { step in send(.signOutStep(step)) }
                send(.signOutFinished(id, outcome))
            }.cancellable(EffectIDs.signOut(id))

        case .signOutStep(let step):
            // A step said as started is replaced by its result.
            if let last = state.signOut?.steps.last, last.step == step.step, case .started = last.outcome {
                state.signOut?.steps.removeLast()
            }
            state.signOut?.steps.append(step)
            return .none

        case .signOutFinished(let id, let outcome):
            state.signOut?.finished = true
            guard outcome.removed else {
                flash(&state, .warn, "Signed out of \(state.signOut?.displayName ?? id.rawValue) with errors; local secrets kept")
                return .none
            }
            state.accounts.removeAll { $0.id == id }
            flash(&state, .info, "Signed out of \(state.signOut?.displayName ?? id.rawValue)")
            // The sign-out use case decided and saved it; the state mirrors it.
            if outcome.clearedActive { state.activeAccountID = nil }
            state.refreshQueue.removeAll { $0.id == id }
            return startQueuedRefreshes(&state)

        case .dismissSignOut:
            guard state.signOut?.finished == true else { return .none }
            state.signOut = nil
            return .none

        case .fetchUserinfo(let id):
            return use(&state, .userinfo, id)

        case .userinfoLoaded(let id, let result):
            guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return .none }
            switch result {
            case .success(let value): state.accounts[index].userinfo = .loaded(value)
            case .failure(let error):
                state.accounts[index].userinfo = .failed(error)
                flash(&state, .error, "Userinfo failed: \(error)")
            }
            return .none

        case .introspect(let id):
            guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return .none }
            state.accounts[index].introspection = .loading
            return .run { send in send(.introspectionLoaded(id, await useCases.introspect(id))) }

        case .introspectionLoaded(let id, let result):
            guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return .none }
            switch result {
            case .success(let value): state.accounts[index].introspection = .loaded(value)
            case .failure(let error):
                state.accounts[index].introspection = .failed(error)
                flash(&state, .error, "Introspection failed: \(error)")
            }
            return .none

        case .copyAccessTokenKeyPressed(let id):
            return use(&state, .copy, id)

        case .accessTokenForCopyResponse(let id, .success(let token)):
            let replayed = clearReplay(&state, id)
            state.clipboard = ClipboardRequest(value: token, note: ClipboardRequest.sentNote("Access token")
                + (replayed ? "; its refresh token was sent again after an earlier refresh got no answer, and the provider accepted it" : ""))
            return .none

        case .accessTokenForCopyResponse(let id, .failure(let error)):
            _ = clearReplay(&state, id)
            flash(&state, .error, "Could not copy the access token: \(error)")
            return .none

        case .clipboardWritten:
            guard let note = state.clipboard?.note else { return .none }
            state.clipboard = nil
            flash(&state, .info, note)
            return .none

        case .rawTokensRequested(let id):
            guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return .none }
            state.accounts[index].storedTokens = .loading
            return .run { send in send(.storedTokensResponse(id, await useCases.storedTokens(id))) }

        case .storedTokensResponse(let id, let result):
            guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return .none }
            switch result {
            case .success(let entries): state.accounts[index].storedTokens = .loaded(entries)
            case .failure(let error):
                state.accounts[index].storedTokens = .failed(error)
                flash(&state, .error, error.description)
            }
            return .none

        case .flash(let level, let text):
            flash(&state, level, text)
            return .none
        }
    }

    /// Whether the account's last token request replayed a refresh token; clears the mark.
    private func clearReplay(_ state: inout AppState, _ id: AccountID) -> Bool {
        guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return false }
        defer { state.accounts[index].replaysRefreshToken = false }
        return state.accounts[index].replaysRefreshToken
    }

    func flash(_ state: inout AppState, _ level: Flash.Level, _ text: String) {
        state.flash = Flash(level: level, text: text, expiresAt: state.now.addingTimeInterval(state.flashDuration))
    }

    private func sortAccounts(_ state: inout AppState) {
        state.accounts.sort { ($0.record.providerID, $0.record.displayName, $0.id) < ($1.record.providerID, $1.record.displayName, $1.id) }
    }
}

extension SignInFlow {
    /// Whether the flow is still running (not failed).
    public var isRunning: Bool { if case .failed = phase { false } else { true } }
}
