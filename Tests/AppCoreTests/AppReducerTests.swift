import AppCore
import AuthEngine
import Foundation
import Secrets
import StoreTesting
import Testing

let t0 = Date(timeIntervalSince1970: 1_800_000_000)
let local: ProviderID = "local"

func record(_ name: String, expiresIn: Double = 3600, issuedAt: Date = t0, refresh: Bool = true) -> AccountRecord {
    AccountRecord(
        id: AccountID(provider: local, subject: name), providerID: local, issuer: "http://127.0.0.1:8000/o",
        subject: name, displayName: name.capitalized, username: name, email: "\(name)@example.test",
        requestedScopes: ["openid", "profile"], grantedScopes: ["openid", "profile"],
        accessTokens: [AccessTokenInfo(expiresAt: issuedAt.addingTimeInterval(expiresIn), issuedAt: issuedAt, scopes: ["openid", "profile"])],
        hasRefreshToken: refresh, signedInAt: issuedAt, storage: .memory)
}

/// What the failing test values report with: a test issue naming the member.
let reportIssue: @Sendable (String) -> Void = { Issue.record(Comment(rawValue: $0)) }

func makeStore(_ state: AppState = AppState(now: t0), session: UseCaseClient) -> TestStore<AppState, AppAction> {
    let reducer = AppReducer(dependencies: AppDependencies(useCases: session))
    return TestStore(initialState: state, reduce: reducer.reduce)
}

func loadedState(_ records: [AccountRecord], active: AccountID? = nil, now: Date = t0) -> AppState {
    var state = AppState(now: now)
    state.load = .loaded
    state.credentialStore = StoreInfo(backend: .memory)
    state.accounts = records.map { AccountState(record: $0) }
    state.activeAccountID = active
    return state
}

@Suite("AppCore stories")
struct AppReducerTests {
    @Test("Start loads the accounts sorted by provider and name; a reload re-sorts them")
    func loadKeepsSelection() async {
        let alice = record("alice"), bob = record("bob")
        var session = UseCaseClient.unimplemented(reportIssue)
        session.load = { .success(LoadedSnapshot(providers: [], accounts: [bob, alice], activeAccountID: alice.id, credentialStore: StoreInfo(backend: .vault))) }
        let store = makeStore(session: session)
        store.send(.start) { $0.load = .loading }
        let snapshot = LoadedSnapshot(providers: [], accounts: [bob, alice], activeAccountID: alice.id, credentialStore: StoreInfo(backend: .vault))
        await store.receive(.loaded(.success(snapshot))) {
            $0.load = .loaded
            $0.credentialStore = StoreInfo(backend: .vault)
            $0.activeAccountID = alice.id
            $0.accounts = [AccountState(record: alice), AccountState(record: bob)]
        }
        let carol = record("aaron")
        store.send(.loaded(.success(LoadedSnapshot(providers: [], accounts: [alice, bob, carol], activeAccountID: alice.id, credentialStore: StoreInfo(backend: .vault))))) {
            $0.accounts = [AccountState(record: carol), AccountState(record: alice), AccountState(record: bob)]
        }
        await store.finish()
    }

    @Test("Reload picks up another process's sign-in and refresh, keeping in-flight work")
    func reloadFromOtherProcesses() async {
        let alice = record("alice"), bob = record("bob")
        let refreshedElsewhere = { var r = alice; r.lastRefreshAt = t0.addingTimeInterval(30); return r }()
        let snapshot = LoadedSnapshot(providers: [], accounts: [refreshedElsewhere, bob], activeAccountID: alice.id, credentialStore: StoreInfo(backend: .memory))
        var session = UseCaseClient.unimplemented(reportIssue)
        session.load = { .success(snapshot) }
        var state = loadedState([alice], active: alice.id)
        state.accounts[0].refresh = .retryScheduled(at: t0.addingTimeInterval(8), attempt: 1)
        let store = makeStore(state, session: session)
        store.send(.reload)
        await store.receive(.loaded(.success(snapshot))) {
            $0.accounts = [AccountState(record: refreshedElsewhere, refresh: .retryScheduled(at: t0.addingTimeInterval(8), attempt: 1)),
                           AccountState(record: bob)]
        }
        await store.finish()
    }

    @Test("RFC 6749 §5.2: a grant another process found gone (needsSignInSince) shows needs sign-in and is not refreshed by the clock")
    func grantGoneElsewhere() async {
        var clock = TestClock(t0)
        let gone = { var r = record("alice", expiresIn: 120); r.needsSignInSince = t0; return r }()
        let store = makeStore(loadedState([gone]), session: .unimplemented(reportIssue))
        #expect(store.state.status(of: store.state.accounts[0]) == .needsSignIn)
        let due = clock.advance(by: 100)
        store.send(.tick(due)) { $0.now = due }
        #expect(store.state.status(of: store.state.accounts[0]) == .needsSignIn)
        await store.finish()
    }

    @Test("A slow provider: the TUI flashes 'provider is slow' until the refresh's own result replaces it")
    func slowProviderFlash() async {
        let alice = record("alice")
        var session = UseCaseClient.unimplemented(reportIssue)
        session.refresh = { _, _, notice in
            notice(.providerSlow(account: "Alice"))
            return .success(alice)
        }
        let store = makeStore(loadedState([alice]), session: session)
        store.send(.refresh(alice.id, force: true)) { $0.accounts[0].refresh = .inFlight(attempt: 0) }
        await store.receive(.refreshNotice(alice.id, .providerSlow(account: "Alice"))) {
            $0.flash = Flash(level: .warn, text: RefreshNotice.providerSlow(account: "Alice").message,
                             expiresAt: t0.addingTimeInterval(RefreshAccount.requestTimeout.timeInterval))
        }
        #expect(store.state.flash?.text.contains("provider is slow") == true)
        await store.receive(.refreshFinished(alice.id, .success(alice))) {
            $0.accounts[0].refresh = .idle
            $0.flash = Flash(level: .info, text: "Refreshed Alice", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("A refresh token replayed after an unknown outcome and refused: the TUI says so plainly, not only 'needs sign-in'")
    func replayRefusedIsSaid() async {
        let alice = record("alice")
        let invalidGrant = AppError(title: "invalid_grant", detail: "reused", specReference: "RFC 6749 §5.2", disposition: .needsSignIn)
        let replay = RefreshNotice.replayAfterUnknownOutcome(account: "Alice", sentAt: t0)
        var session = UseCaseClient.unimplemented(reportIssue)
        session.refresh = { _, _, notice in
            notice(replay)
            return .failure(invalidGrant)
        }
        let store = makeStore(loadedState([alice]), session: session)
        store.send(.refresh(alice.id, force: true)) { $0.accounts[0].refresh = .inFlight(attempt: 0) }
        await store.receive(.refreshNotice(alice.id, replay)) {
            $0.accounts[0].replaysRefreshToken = true
            $0.flash = Flash(level: .warn, text: replay.message, expiresAt: t0.addingTimeInterval(6))
        }
        await store.receive(.refreshFinished(alice.id, .failure(invalidGrant))) {
            $0.accounts[0].replaysRefreshToken = false
            $0.accounts[0].refresh = .needsSignIn
            $0.accounts[0].lastError = invalidGrant
            $0.flash = Flash(level: .warn, text: "Alice needs to sign in again: its refresh token was sent again after an earlier refresh got no answer, and the provider refused it (invalid_grant)",
                             expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("A refresh clears the introspection of the previous access token")
    func refreshClearsIntrospection() async {
        let alice = record("alice")
        var session = UseCaseClient.unimplemented(reportIssue)
        session.refresh = { _, _, _ in .success(alice) }
        var state = loadedState([alice])
        state.accounts[0].introspection = .loaded(.object(["active": .bool(true)]))
        let store = makeStore(state, session: session)
        store.send(.refresh(alice.id, force: true)) { $0.accounts[0].refresh = .inFlight(attempt: 0) }
        await store.receive(.refreshFinished(alice.id, .success(alice))) {
            $0.accounts[0].refresh = .idle
            $0.accounts[0].introspection = .idle
            $0.flash = Flash(level: .info, text: "Refreshed Alice", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("Browser sign-in happy path: progress, account appears, becomes active")
    func browserSignIn() async {
        let alice = record("alice")
        let url = URL(string: "http://127.0.0.1:8000/o/authorize/?client_id=x")!
        var session = UseCaseClient.unimplemented(reportIssue)
        session.signIn = { _, progress in
            progress(.discovering)
            progress(.waitingForBrowser(url: url, browserOpened: true))
            progress(.exchangingCode)
            return .success(SignInOutcome(record: alice, becameActive: true))
        }
        let store = makeStore(loadedState([]), session: session)
        let request = SignInRequest(providerID: local)
        store.send(.signIn(request)) { $0.signIn = SignInFlow(request: request) }
        await store.receive(.signInProgress(.discovering)) { $0.signIn?.phase = .progress(.discovering) }
        await store.receive(.signInProgress(.waitingForBrowser(url: url, browserOpened: true))) {
            $0.signIn?.phase = .progress(.waitingForBrowser(url: url, browserOpened: true))
        }
        await store.receive(.signInProgress(.exchangingCode)) { $0.signIn?.phase = .progress(.exchangingCode) }
        await store.receive(.signInFinished(.success(SignInOutcome(record: alice, becameActive: true)))) {
            $0.signIn = nil
            $0.accounts = [AccountState(record: alice)]
            $0.activeAccountID = alice.id
            $0.flash = Flash(level: .info, text: "Signed in as Alice", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("Browser sign-in cancelled: the flow's effect is cancelled and nothing is added")
    func browserSignInCancelled() async {
        let started = Gate()
        var session = UseCaseClient.unimplemented(reportIssue)
        session.signIn = { _, progress in
            progress(.waitingForBrowser(url: URL(string: "http://127.0.0.1:1/a")!, browserOpened: false))
            started.open()
            do { try await Task.sleep(for: .seconds(30)) } catch { return .failure(.cancelled) }
            return .failure(AppError(title: "not cancelled"))
        }
        let store = makeStore(loadedState([]), session: session)
        let request = SignInRequest(providerID: local)
        store.send(.signIn(request)) { $0.signIn = SignInFlow(request: request) }
        await started.wait()
        await store.receive(.signInProgress(.waitingForBrowser(url: URL(string: "http://127.0.0.1:1/a")!, browserOpened: false))) {
            $0.signIn?.phase = .progress(.waitingForBrowser(url: URL(string: "http://127.0.0.1:1/a")!, browserOpened: false))
        }
        store.send(.cancelSignIn) {
            $0.signIn = nil
            $0.flash = Flash(level: .info, text: "Sign-in cancelled", expiresAt: t0.addingTimeInterval(6))
        }
        #expect(!store.isRunning(EffectIDs.signIn))
        await store.finish()
    }

    @Test("RFC 6749 §10.12: a state mismatch fails the sign-in with a security error and adds no account")
    func stateMismatch() async {
        let mismatch = AppError(title: "state mismatch", detail: "the callback's state does not match the request", specReference: "RFC 6749 §10.12", disposition: .securityRelevant)
        var session = UseCaseClient.unimplemented(reportIssue)
        session.signIn = { _, _ in .failure(mismatch) }
        let store = makeStore(loadedState([]), session: session)
        let request = SignInRequest(providerID: local)
        store.send(.signIn(request)) { $0.signIn = SignInFlow(request: request) }
        await store.receive(.signInFinished(.failure(mismatch))) {
            $0.signIn?.phase = .failed(mismatch)
            $0.flash = Flash(level: .error, text: "Sign-in failed: \(mismatch)", expiresAt: t0.addingTimeInterval(6))
        }
        store.send(.dismissSignIn) { $0.signIn = nil }
        await store.finish()
    }

    @Test("RFC 8628 §3.5: device flow pending, pending, slow_down, then success")
    func deviceFlow() async {
        let bob = record("bob")
        let device = DeviceCodeDisplay(userCode: "ABCD-EFGH", verificationURI: URL(string: "http://127.0.0.1:8000/o/device/")!,
                                       verificationURIComplete: nil, expiresAt: t0.addingTimeInterval(1800), interval: .seconds(5))
        var session = UseCaseClient.unimplemented(reportIssue)
        session.signIn = { _, progress in
            progress(.deviceCode(device))
            progress(.devicePending)
            progress(.devicePending)
            progress(.deviceSlowDown(interval: .seconds(10)))
            return .success(SignInOutcome(record: bob, becameActive: true))
        }
        let store = makeStore(loadedState([]), session: session)
        let request = SignInRequest(providerID: local, flow: .device)
        store.send(.signIn(request)) { $0.signIn = SignInFlow(request: request) }
        await store.receive(.signInProgress(.deviceCode(device))) {
            $0.signIn?.phase = .progress(.deviceCode(device))
            $0.signIn?.device = device
        }
        for _ in 0..<2 {
            await store.receive(.signInProgress(.devicePending)) {
                $0.signIn?.phase = .progress(.devicePending)
                $0.signIn?.pollStatus = "authorization_pending"
            }
        }
        await store.receive(.signInProgress(.deviceSlowDown(interval: .seconds(10)))) {
            $0.signIn?.phase = .progress(.deviceSlowDown(interval: .seconds(10)))
            $0.signIn?.pollStatus = "slow_down"
            $0.signIn?.device?.interval = .seconds(10)
        }
        await store.receive(.signInFinished(.success(SignInOutcome(record: bob, becameActive: true)))) {
            $0.signIn = nil
            $0.accounts = [AccountState(record: bob)]
            $0.activeAccountID = bob.id
            $0.flash = Flash(level: .info, text: "Signed in as Bob", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("RFC 8628 §3.5: expired_token ends the device flow with an error shown in the dialog")
    func deviceExpired() async {
        let expired = AppError(title: "The device code expired", detail: "expired_token", specReference: "RFC 8628 §3.5", disposition: .other)
        var session = UseCaseClient.unimplemented(reportIssue)
        session.signIn = { _, _ in .failure(expired) }
        let store = makeStore(loadedState([]), session: session)
        let request = SignInRequest(providerID: local, flow: .device)
        store.send(.signIn(request)) { $0.signIn = SignInFlow(request: request) }
        await store.receive(.signInFinished(.failure(expired))) {
            $0.signIn?.phase = .failed(expired)
            $0.flash = Flash(level: .error, text: "Sign-in failed: \(expired)", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("REF-09: refresh is single-flight — two triggers, one request")
    func refreshSingleFlight() async {
        let alice = record("alice")
        let refreshed = { var r = alice; r.lastRefreshAt = t0; return r }()
        let calls = Counter(), gate = Gate()
        var session = UseCaseClient.unimplemented(reportIssue)
        session.refresh = { _, _, _ in
            calls.increment()
            await gate.wait()
            return .success(refreshed)
        }
        let store = makeStore(loadedState([alice]), session: session)
        store.send(.refresh(alice.id, force: true)) { $0.accounts[0].refresh = .inFlight(attempt: 0) }
        store.send(.refresh(alice.id, force: false))
        gate.open()
        await store.receive(.refreshFinished(alice.id, .success(refreshed))) {
            $0.accounts[0].record = refreshed
            $0.accounts[0].refresh = .idle
            $0.flash = Flash(level: .info, text: "Refreshed Alice", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
        #expect(calls.count == 1)
    }

    @Test("Refresh is scheduled at expiresAt - refresh margin through the clock")
    func refreshScheduledByClock() async {
        var clock = TestClock(t0)
        let alice = record("alice", expiresIn: 600)
        var session = UseCaseClient.unimplemented(reportIssue)
        session.refresh = { _, _, _ in .success(alice) }
        let store = makeStore(loadedState([alice]), session: session)
        let early = clock.advance(by: 539)
        store.send(.tick(early)) { $0.now = early }
        let due = clock.advance(by: 1)
        store.send(.tick(due)) {
            $0.now = due
            $0.accounts[0].refresh = .inFlight(attempt: 0)
        }
        await store.receive(.refreshFinished(alice.id, .success(alice))) {
            $0.accounts[0].refresh = .idle
            $0.flash = Flash(level: .info, text: "Refreshed Alice", expiresAt: due.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("RFC 6749 §5.2 invalid_grant on refresh means needs sign-in, never retried")
    func refreshInvalidGrant() async {
        var clock = TestClock(t0)
        let alice = record("alice", expiresIn: 30)
        let invalidGrant = AppError(title: "invalid_grant", detail: "The refresh token was revoked", specReference: "RFC 6749 §5.2", disposition: .needsSignIn)
        let calls = Counter()
        var session = UseCaseClient.unimplemented(reportIssue)
        session.refresh = { _, _, _ in calls.increment(); return .failure(invalidGrant) }
        let store = makeStore(loadedState([alice]), session: session)
        store.send(.refresh(alice.id, force: true)) { $0.accounts[0].refresh = .inFlight(attempt: 0) }
        await store.receive(.refreshFinished(alice.id, .failure(invalidGrant))) {
            $0.accounts[0].refresh = .needsSignIn
            $0.accounts[0].lastError = invalidGrant
            $0.flash = Flash(level: .warn, text: "Alice needs to sign in again: invalid_grant", expiresAt: t0.addingTimeInterval(6))
        }
        // Ticks past expiry and past any backoff start nothing.
        let later = clock.advance(by: 120)
        store.send(.tick(later)) {
            $0.now = later
            $0.flash = nil
        }
        #expect(store.state.status(of: store.state.accounts[0]) == .needsSignIn)
        await store.finish()
        #expect(calls.count == 1)
    }

    @Test("Transient refresh failure: backoff shown in the status, retried when due, recovers")
    func refreshTransientBackoff() async {
        var clock = TestClock(t0)
        let alice = record("alice")
        let down = AppError(title: "Could not reach the provider", detail: "connection refused", disposition: .transient(retryAfter: nil))
        let attempts = Counter()
        var session = UseCaseClient.unimplemented(reportIssue)
        session.refresh = { _, _, _ in
            attempts.increment()
            return attempts.count == 1 ? .failure(down) : .success(alice)
        }
        let store = makeStore(loadedState([alice]), session: session)
        store.send(.refresh(alice.id, force: true)) { $0.accounts[0].refresh = .inFlight(attempt: 0) }
        await store.receive(.refreshFinished(alice.id, .failure(down))) {
            $0.accounts[0].refresh = .retryScheduled(at: t0.addingTimeInterval(2), attempt: 1)
            $0.accounts[0].lastError = down
            $0.flash = Flash(level: .warn, text: "Refresh of Alice failed, retrying in 2s: Could not reach the provider", expiresAt: t0.addingTimeInterval(6))
        }
        #expect(store.state.status(of: store.state.accounts[0]).label(now: t0) == "refresh failed, retrying in 2s")
        let retry = clock.advance(by: 2)
        store.send(.tick(retry)) {
            $0.now = retry
            $0.accounts[0].refresh = .inFlight(attempt: 1)
        }
        await store.receive(.refreshFinished(alice.id, .success(alice))) {
            $0.accounts[0].refresh = .idle
            $0.accounts[0].lastError = nil
            $0.flash = Flash(level: .info, text: "Refreshed Alice", expiresAt: retry.addingTimeInterval(6))
        }
        await store.finish()
        #expect(attempts.count == 2)
    }

    @Test("A locked credential store shows every account as store locked")
    func storeLocked() async {
        let locked = AppError(title: "The vault is locked", detail: "no passphrase", disposition: .storeLocked)
        var session = UseCaseClient.unimplemented(reportIssue)
        session.load = { .failure(locked) }
        let store = makeStore(session: session)
        store.send(.start) { $0.load = .loading }
        await store.receive(.loaded(.failure(locked))) {
            $0.load = .failed(locked)
            $0.credentialStore.isLocked = true
            $0.flash = Flash(level: .error, text: locked.description, expiresAt: t0.addingTimeInterval(6))
        }
        let alice = AccountState(record: record("alice"))
        #expect(store.state.status(of: alice) == .storeLocked)
        await store.finish()
    }

    @Test("Countdown: valid, then expiring soon (5 min, or a quarter of a short lifetime), then expired")
    func countdown() async {
        var clock = TestClock(t0)
        let alice = record("alice", expiresIn: 3600, refresh: false)
        let demo = record("bob", expiresIn: 120, refresh: false)
        let store = makeStore(loadedState([alice, demo]), session: .unimplemented(reportIssue))
        #expect(store.state.status(of: store.state.accounts[0]) == .valid)
        let early = clock.advance(by: 89)
        store.send(.tick(early)) { $0.now = early }
        #expect(store.state.status(of: store.state.accounts[1]) == .valid, "31 s left of 120: not yet a quarter")
        let late = clock.advance(by: 2)
        store.send(.tick(late)) { $0.now = late }
        #expect(store.state.status(of: store.state.accounts[1]) == .expiringSoon)
        let soon = clock.advance(by: 3300 - 91 + 1)
        store.send(.tick(soon)) { $0.now = soon }
        #expect(store.state.status(of: store.state.accounts[0]) == .expiringSoon)
        let gone = clock.advance(by: 300)
        store.send(.tick(gone)) { $0.now = gone }
        #expect(store.state.status(of: store.state.accounts[0]) == .needsSignIn)
        await store.finish()
    }

    @Test("Switching the active account persists it; AUTHDECK_ACCOUNT overrides without saving")
    func switchActive() async {
        let alice = record("alice"), bob = record("bob")
        var session = UseCaseClient.unimplemented(reportIssue)
        session.saveActiveAccount = { .success($0) }
        var state = loadedState([alice, bob], active: alice.id)
        state.environmentAccount = alice.id.rawValue
        let store = makeStore(state, session: session)
        store.send(.activate(bob.id)) {
            $0.activeAccountID = bob.id
            // As `switch` says it: the choice is saved, this process's AUTHDECK_ACCOUNT still wins.
            $0.flash = Flash(level: .warn, text: "Active account saved: Bob; AUTHDECK_ACCOUNT=\(alice.id.rawValue) still selects the account here",
                             expiresAt: t0.addingTimeInterval(6))
        }
        await store.receive(.activeSaved(.success(bob.id)))
        #expect(store.state.effectiveActiveAccountID == alice.id)
        await store.finish()
    }

    @Test("Sign-out with revocation failing: each step is reported and local secrets are kept only when asked")
    func signOutRevocationFails() async {
        let alice = record("alice"), bob = record("bob")
        let unavailable = AppError(title: "Revocation failed", detail: "HTTP 503", specReference: "RFC 7009 §2.2.1", disposition: .transient(retryAfter: nil))
        let steps = [
            SignOutStepResult(.revokeRefreshToken, .failed(unavailable)),
            SignOutStepResult(.deleteLocalSecrets, .done("deleted")),
        ]
        var session = UseCaseClient.unimplemented(reportIssue)
        session.signOut = { _, options, step in
            #expect(options.keepSecretsIfRevocationFails == false)
            steps.forEach(step)
            return SignOutOutcome(removed: true, clearedActive: true)
        }
        let store = makeStore(loadedState([alice, bob], active: alice.id), session: session)
        store.send(.signOut(alice.id, SignOutOptions())) { $0.signOut = SignOutFlow(accountID: alice.id, displayName: "Alice") }
        await store.receive(.signOutStep(steps[0])) { $0.signOut?.steps = [steps[0]] }
        await store.receive(.signOutStep(steps[1])) { $0.signOut?.steps = steps }
        await store.receive(.signOutFinished(alice.id, SignOutOutcome(removed: true, clearedActive: true))) {
            $0.signOut?.finished = true
            $0.accounts = [AccountState(record: bob)]
            $0.activeAccountID = nil
            $0.flash = Flash(level: .info, text: "Signed out of Alice", expiresAt: t0.addingTimeInterval(6))
        }
        store.send(.dismissSignOut) { $0.signOut = nil }
        await store.finish()
    }

    @Test("Sign-out: the state mirrors the active-account change the use case reports, not a guess of its own")
    func signOutMirrorsReportedActiveChange() async {
        let alice = record("alice"), bob = record("bob")
        var session = UseCaseClient.unimplemented(reportIssue)
        // Another process made Alice active after this state was loaded: the use case cleared it.
        session.signOut = { _, _, _ in SignOutOutcome(removed: true, clearedActive: true) }
        let store = makeStore(loadedState([alice, bob], active: bob.id), session: session)
        store.send(.signOut(alice.id, SignOutOptions(localOnly: true, endSession: false))) {
            $0.signOut = SignOutFlow(accountID: alice.id, displayName: "Alice")
        }
        await store.receive(.signOutFinished(alice.id, SignOutOutcome(removed: true, clearedActive: true))) {
            $0.signOut?.finished = true
            $0.accounts = [AccountState(record: bob)]
            $0.activeAccountID = nil
            $0.flash = Flash(level: .info, text: "Signed out of Alice", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("Flash messages go away through the clock")
    func flashDismissal() async {
        var clock = TestClock(t0)
        let store = makeStore(loadedState([]), session: .unimplemented(reportIssue))
        store.send(.flash(.warn, "hello")) { $0.flash = Flash(level: .warn, text: "hello", expiresAt: t0.addingTimeInterval(6)) }
        let later = clock.advance(by: 6)
        store.send(.tick(later)) {
            $0.now = later
            $0.flash = nil
        }
        await store.finish()
    }

    @Test("Copy goes through the store: the token stays redacted in the state until the terminal writes it")
    func copyAccessTokenThroughTheStore() async {
        let alice = record("alice")
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.accessToken = { _, _ in .success(AccessToken("at-secret")) }
        let store = makeStore(loadedState([alice]), session: useCases)
        store.send(.copyAccessTokenKeyPressed(alice.id))
        let request = ClipboardRequest(value: AccessToken("at-secret"), note: "Access token sent to the terminal's clipboard (OSC 52; a terminal may ignore it)")
        await store.receive(.accessTokenForCopyResponse(alice.id, .success(AccessToken("at-secret")))) { $0.clipboard = request }
        #expect(!String(describing: store.state).contains("at-secret"), "the state never prints the token")
        store.send(.clipboardWritten) {
            $0.clipboard = nil
            $0.flash = Flash(level: .info, text: "Access token sent to the terminal's clipboard (OSC 52; a terminal may ignore it)", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("Copy after an unknown refresh outcome: the replayed refresh token is said in the note, never silent")
    func copyAfterReplaySaysSo() async {
        let alice = record("alice")
        let replay = RefreshNotice.replayAfterUnknownOutcome(account: "Alice", sentAt: t0)
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.accessToken = { _, notice in
            notice(replay)
            return .success(AccessToken("at-new"))
        }
        let store = makeStore(loadedState([alice]), session: useCases)
        store.send(.copyAccessTokenKeyPressed(alice.id))
        await store.receive(.refreshNotice(alice.id, replay)) {
            $0.accounts[0].replaysRefreshToken = true
            $0.flash = Flash(level: .warn, text: replay.message, expiresAt: t0.addingTimeInterval(6))
        }
        let note = "Access token sent to the terminal's clipboard (OSC 52; a terminal may ignore it); its refresh token was sent again after an earlier refresh got no answer, and the provider accepted it"
        await store.receive(.accessTokenForCopyResponse(alice.id, .success(AccessToken("at-new")))) {
            $0.accounts[0].replaysRefreshToken = false
            $0.clipboard = ClipboardRequest(value: AccessToken("at-new"), note: note)
        }
        store.send(.clipboardWritten) {
            $0.clipboard = nil
            $0.flash = Flash(level: .info, text: note, expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("Reveal loads the stored tokens through the store; a refresh drops them")
    func revealThroughTheStore() async {
        let alice = record("alice")
        let entries = [StoredTokens.Entry(label: "access token", value: Redacted("at-secret"))]
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.storedTokens = { _ in .success(entries) }
        useCases.refresh = { _, _, _ in .success(alice) }
        let store = makeStore(loadedState([alice]), session: useCases)
        store.send(.rawTokensRequested(alice.id)) { $0.accounts[0].storedTokens = .loading }
        await store.receive(.storedTokensResponse(alice.id, .success(entries))) { $0.accounts[0].storedTokens = .loaded(entries) }
        store.send(.refresh(alice.id, force: true)) { $0.accounts[0].refresh = .inFlight(attempt: 0) }
        await store.receive(.refreshFinished(alice.id, .success(alice))) {
            $0.accounts[0].refresh = .idle
            $0.accounts[0].storedTokens = .idle
            $0.flash = Flash(level: .info, text: "Refreshed Alice", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }
}

@Suite("Account status and status's exit code (README exit codes)")
struct AccountStatusTests {
    @Test("An idle expired access token with a usable refresh token is 'expired' and does not need attention")
    func expiredWithRefreshToken() {
        let account = AccountState(record: record("alice", expiresIn: 60))
        let status = account.status(now: t0.addingTimeInterval(120), policy: .standard, storeLocked: false)
        #expect(status == .expired)
        #expect(!status.needsAttention)
    }

    @Test("Expired with no refresh token, or with a refresh token past its own expiry, needs sign-in")
    func expiredWithoutUsableRefreshToken() {
        let none = AccountState(record: record("bob", expiresIn: 60, refresh: false))
        #expect(none.status(now: t0.addingTimeInterval(120), policy: .standard, storeLocked: false) == .needsSignIn)
        var stale = record("carol", expiresIn: 60)
        stale.refreshTokenExpiresAt = t0.addingTimeInterval(90)
        let status = AccountState(record: stale).status(now: t0.addingTimeInterval(120), policy: .standard, storeLocked: false)
        #expect(status == .needsSignIn)
        #expect(status.needsAttention)
        // Before the refresh token's expiry it is still only "expired".
        #expect(AccountState(record: stale).status(now: t0.addingTimeInterval(80), policy: .standard, storeLocked: false) == .expired)
    }

    @Test("needsAttention: sign-in, failed refresh and a locked store do; valid, expiring soon, refreshing, expired do not")
    func needsAttentionTable() {
        let attention: [(AccountStatus, Bool)] = [
            (.valid, false), (.expiringSoon, false), (.refreshing, false), (.expired, false),
            (.needsSignIn, true), (.refreshFailed(retryAt: t0), true), (.storeLocked, true),
        ]
        for (status, expected) in attention { #expect(status.needsAttention == expected, "\(status)") }
    }
}

@Suite("Provider configuration rules (provider add)")
struct ProviderConfigValidationTests {
    @Test("client_id: empty, control characters, non-ASCII and stray spaces are refused (RFC 6749 §2.2, Appendix A.1)",
          arguments: [("", ProviderConfigViolation.emptyClientID),
                      ("abc\n", .clientIDCharacters(what: "a newline")),
                      ("a\tb", .clientIDCharacters(what: "a tab")),
                      (" abc", .clientIDCharacters(what: "a leading or trailing space")),
                      ("   ", .clientIDCharacters(what: "only spaces")),
                      ("clïent", .clientIDCharacters(what: "the character U+00EF"))])
    func clientID(_ id: String, _ expected: ProviderConfigViolation) {
        #expect(ProviderConfig.validateClientID(id) == expected)
    }

    @Test("A good client_id passes (VSCHAR, inner space allowed)", arguments: ["authdeck-native", "0oa1b2c3", "a b"])
    func goodClientID(_ id: String) {
        #expect(ProviderConfig.validateClientID(id) == nil)
    }

    @Test("validate() checks the issuer and every endpoint of the final configuration (as a preset builds it)")
    func wholeConfiguration() {
        var config = ProviderConfig(id: "w", issuer: URL(string: "https://ex.auth0.com?x=1/"), clientID: "c")
        config.endpoints.jwks = URL(string: "https://ex.auth0.com/jwks#k")
        #expect(config.validate() == [.issuer(.query("x=1/")), .endpoint("jwks-uri", .fragment("k"))])
        let good = ProviderConfig(id: "local", issuer: URL(string: "http://127.0.0.1:8000/o"), clientID: "authdeck-native")
        #expect(good.validate().isEmpty)
    }
}
