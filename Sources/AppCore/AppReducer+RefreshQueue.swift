import FoundationEssentials

/// The refresh scheduler: due refreshes wait in ``AppState/refreshQueue`` and at most
/// ``RefreshQueue/maxInFlight`` run at once (a refresh storm: many accounts due at once).
extension AppReducer {
    /// Queues the refreshes that are due at `state.now` (scheduled ones at `expiresAt - refreshMargin`,
    /// retries whose backoff has passed), then starts as many as the bound allows. Never starts an
    /// interactive sign-in.
    func dueRefreshes(_ state: inout AppState) -> Effect<AppAction> {
        for account in state.accounts {
            switch account.refresh {
            case .idle:
                // A grant known to be gone (another process got invalid_grant) is not retried.
                if account.record.needsSignInSince == nil, let due = state.policy.refreshDue(for: account.record), due <= state.now {
                    enqueueRefresh(&state, account.id, force: false)
                }
            case .retryScheduled(let at, _) where at <= state.now:
                enqueueRefresh(&state, account.id, force: false)
            default:
                break
            }
        }
        return startQueuedRefreshes(&state)
    }

    /// Puts the account in ``AppState/refreshQueue`` (phase ``RefreshPhase/queued``) unless a
    /// refresh of it is in flight (single flight) or it cannot be refreshed. A forced refresh of
    /// an account already waiting moves it ahead of the scheduled ones.
    func enqueueRefresh(_ state: inout AppState, _ id: AccountID, force: Bool) {
        guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return }
        var attempt = 0
        switch state.accounts[index].refresh {
        case .inFlight:
            return // single-flight: one request per account at a time
        case .queued:
            guard force, let waiting = state.refreshQueue.firstIndex(where: { $0.id == id }), !state.refreshQueue[waiting].force else { return }
            attempt = state.refreshQueue.remove(at: waiting).attempt
        case .needsSignIn where !force, .halted where !force:
            return
        case .retryScheduled(_, let previous):
            attempt = previous
        case .idle, .needsSignIn, .halted:
            break
        }
        let record = state.accounts[index].record
        guard record.renewable else {
            if force { flash(&state, .warn, "\(record.displayName) has no refresh token: sign in again") }
            return
        }
        let entry = QueuedRefresh(id: id, force: force, attempt: attempt, expiresAt: record.accessTokens.compactMap(\.expiresAt).min())
        state.refreshQueue.insert(entry, at: RefreshQueue.insertionIndex(of: entry, in: state.refreshQueue))
        state.accounts[index].refresh = .queued
    }

    /// Takes an account out of the refresh queue (back to idle: the clock queues it again when due).
    func dropQueuedRefresh(_ state: inout AppState, _ id: AccountID) {
        guard let waiting = state.refreshQueue.firstIndex(where: { $0.id == id }) else { return }
        state.refreshQueue.remove(at: waiting)
        if let index = state.accounts.firstIndex(where: { $0.id == id }), state.accounts[index].refresh == .queued {
            state.accounts[index].refresh = .idle
        }
    }

    /// Starts queued refreshes, first in ``AppState/refreshQueue`` first, while fewer than
    /// ``RefreshQueue/maxInFlight`` are in flight.
    func startQueuedRefreshes(_ state: inout AppState) -> Effect<AppAction> {
        let useCases = dependencies.useCases
        var inFlight = state.accounts.count { if case .inFlight = $0.refresh { true } else { false } }
        var effects: [Effect<AppAction>] = []
        while inFlight < RefreshQueue.maxInFlight, !state.refreshQueue.isEmpty {
            let next = state.refreshQueue.removeFirst()
            guard let index = state.accounts.firstIndex(where: { $0.id == next.id }), state.accounts[index].refresh == .queued else { continue }
            state.accounts[index].refresh = .inFlight(attempt: next.attempt)
            inFlight += 1
            let id = next.id, force = next.force
            effects.append(.run { send in send(.refreshFinished(id, await useCases.refresh(id, force) { send(.refreshNotice(id, $0)) })) }
                .cancellable(EffectIDs.refresh(id)))
        }
        return .merge(effects)
    }

    /// Uses the account's access token (``TokenUse``): at once while it stays valid, else after a
    /// force refresh through the queue (the use waits in ``AccountState/afterRefresh``), so that
    /// no refresh runs outside the queue and its result reaches the screen at once.
    func use(_ state: inout AppState, _ use: TokenUse, _ id: AccountID) -> Effect<AppAction> {
        guard let index = state.accounts.firstIndex(where: { $0.id == id }) else { return .none }
        let useCases = dependencies.useCases
        if TokenUse.needsRefresh(state.accounts[index].record, now: state.now) {
            if !state.accounts[index].afterRefresh.contains(use) { state.accounts[index].afterRefresh.append(use) }
            enqueueRefresh(&state, id, force: true)
            return startQueuedRefreshes(&state)
        }
        switch use {
        case .userinfo:
            state.accounts[index].userinfo = .loading
            return .run { send in send(.userinfoLoaded(id, await useCases.userinfo(id))) }
        case .copy:
            return .run { send in send(.accessTokenForCopyResponse(id, await useCases.accessToken(id) { send(.refreshNotice(id, $0)) })) }
        }
    }
}
