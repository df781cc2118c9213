@testable import AccountsScreen
import AppCore
import AuthEngine
import Foundation
import Secrets
import StoreTesting
import Synchronization
import TerminalUI
import Testing

/// Exhaustive stories of the screen's key paths: each key goes through ``KeyBindings`` on the
/// model the state shows, every state change and every action the effects send is asserted.
@Suite("Accounts screen key paths (TestStore stories)")
struct KeyPathStoryTests {
    @Test("l, Enter: the sign-in form on the selected account's provider, submitted; the new account is selected")
    func signIn() async {
        let alice = record("alice"), carol = record("carol")
        let request = SignInRequest(providerID: local)
        let url = URL(string: "http://127.0.0.1:8000/o/authorize?x=1")!
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.signIn = { asked, progress in
            #expect(asked == request)
            progress(.waitingForBrowser(url: url, browserOpened: true))
            return .success(SignInOutcome(record: carol, becameActive: false))
        }
        let store = makeStore(screenState([alice]), environment(useCases))
        let form = SignInDialog(providers: [ProviderOption(id: local, name: "Local IdP", detail: "http://127.0.0.1:8000/o")])
        store.send(.command(command(.char("l"), store.state))) { $0.signInForm = form }
        store.send(.command(command(.enter, store.state))) { $0.signInForm = nil }
        await store.receive(.app(.signIn(request))) { $0.app.signIn = SignInFlow(request: request) }
        await store.receive(.app(.signInProgress(.waitingForBrowser(url: url, browserOpened: true)))) {
            $0.app.signIn?.phase = .progress(.waitingForBrowser(url: url, browserOpened: true))
        }
        await store.receive(.app(.signInFinished(.success(SignInOutcome(record: carol, becameActive: false))))) {
            $0.app.signIn = nil
            $0.app.accounts = [AccountState(record: alice), AccountState(record: carol)]
            $0.app.flash = flash(.info, "Signed in as Carol")
            $0.view.selection = carol.id
        }
        await store.finish()
    }

    @Test("Esc while the browser sign-in waits cancels it; Esc again closes nothing that is not open")
    func cancelSignIn() async {
        let gate = Gate()
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.signIn = { _, _ in await gate.wait(); return .failure(AppError(title: "late", disposition: .cancelled)) }
        let store = makeStore(screenState([record("alice")]), environment(useCases))
        store.send(.command(command(.char("l"), store.state))) {
            $0.signInForm = SignInDialog(providers: [ProviderOption(id: local, name: "Local IdP", detail: "http://127.0.0.1:8000/o")])
        }
        store.send(.command(command(.enter, store.state))) { $0.signInForm = nil }
        await store.receive(.app(.signIn(SignInRequest(providerID: local)))) { $0.app.signIn = SignInFlow(request: SignInRequest(providerID: local)) }
        #expect(key(.escape, store.state) == .command(.cancel))
        store.send(.command(.cancel))
        await store.receive(.app(.cancelSignIn)) {
            $0.app.signIn = nil
            $0.app.flash = flash(.info, "Sign-in cancelled")
        }
        gate.open()
        await store.finish()
    }

    @Test("In the sign-in form Tab moves to the flow, Space picks the device flow, Esc closes it; Esc in the preset form goes back to it")
    func signInFormEditingAndEscape() async {
        var state = screenState([record("alice")])
        state.app.presets = PresetCatalog.builtIn.entries.map(\.preset)
        let store = makeStore(state)
        let form = SignInDialog(providers: [ProviderOption(id: local, name: "Local IdP", detail: "http://127.0.0.1:8000/o")], addFromPreset: true)
        store.send(.command(command(.char("l"), store.state))) { $0.signInForm = form }
        store.send(.command(command(.tab, store.state))) { $0.signInForm?.focusedField = .flow }
        store.send(.command(command(.char(" "), store.state))) { $0.signInForm?.flow = .device }
        store.send(.command(command(.escape, store.state))) { $0.signInForm = nil }
        store.send(.command(command(.char("l"), store.state))) { $0.signInForm = form }
        store.send(.command(command(.down, store.state))) { $0.signInForm?.selectedProvider = 1 }
        store.send(.command(command(.enter, store.state)))
        await store.receive(.app(.presetFormOpen)) { $0.app.presetForm = PresetForm(presets: $0.app.presets) }
        store.send(.command(command(.escape, store.state)))
        await store.receive(.app(.presetFormClose)) { $0.app.presetForm = nil }
        #expect(AccountsScreen.model(store.state).dialog == .signIn(store.state.signInForm!))
        store.send(.command(command(.escape, store.state))) { $0.signInForm = nil }
        await store.finish()
    }

    @Test("u fetches userinfo on its tab, i introspects on the access token tab (RFC 7662)")
    func userinfoAndIntrospection() async {
        let alice = record("alice")
        let claims = JSONValue.object(["sub": .string("alice")]), active = JSONValue.object(["active": .bool(true)])
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.userinfo = { _ in .success(claims) }
        useCases.introspect = { _ in .success(active) }
        let store = makeStore(screenState([alice]), environment(useCases))
        store.send(.command(command(.char("u"), store.state))) { $0.view.tab = .userinfo }
        await store.receive(.app(.fetchUserinfo(alice.id))) { $0.app.accounts[0].userinfo = .loading }
        await store.receive(.app(.userinfoLoaded(alice.id, .success(claims)))) { $0.app.accounts[0].userinfo = .loaded(claims) }
        store.send(.command(command(.char("i"), store.state))) { $0.view.tab = .accessToken }
        await store.receive(.app(.introspect(alice.id))) { $0.app.accounts[0].introspection = .loading }
        await store.receive(.app(.introspectionLoaded(alice.id, .success(active)))) { $0.app.accounts[0].introspection = .loaded(active) }
        await store.finish()
    }

    @Test("r refreshes the selected account through the refresh queue; the result is on screen at once")
    func refresh() async {
        let alice = record("alice"), bob = record("bob")
        let refreshed = {
            var refreshed = record("alice", issuedAt: t0.addingTimeInterval(-1))
            refreshed.lastRefreshAt = t0
            return refreshed
        }()
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.refresh = { id, force, _ in
            #expect(id == alice.id && force)
            return .success(refreshed)
        }
        let store = makeStore(screenState([alice, bob]), environment(useCases))
        store.send(.command(command(.char("r"), store.state)))
        await store.receive(.app(.refresh(alice.id, force: true))) { $0.app.accounts[0].refresh = .inFlight(attempt: 0) }
        await store.receive(.app(.refreshFinished(alice.id, .success(refreshed)))) {
            $0.app.accounts[0].record = refreshed
            $0.app.accounts[0].refresh = .idle
            $0.app.flash = flash(.info, "Refreshed Alice")
        }
        await store.finish()
    }

    @Test("c copies the access token: it leaves its redacting type only for the terminal's clipboard, then the flash says so")
    func copy() async {
        let alice = record("alice")
        let token = AccessToken("at-alice-secret")
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.accessToken = { id, _ in id == alice.id ? .success(token) : .failure(AppError(title: "wrong account")) }
        let edges = Edges()
        let store = makeStore(screenState([alice]), environment(useCases, edges: edges))
        store.send(.command(command(.char("c"), store.state)))
        await store.receive(.app(.copyAccessTokenKeyPressed(alice.id)))
        await store.receive(.app(.accessTokenForCopyResponse(alice.id, .success(token)))) {
            $0.app.clipboard = ClipboardRequest(value: token, note: ClipboardRequest.sentNote("Access token"))
        }
        #expect(!String(describing: store.state).contains("at-alice-secret"), "the state never shows the token")
        await store.receive(.app(.clipboardWritten)) {
            $0.app.clipboard = nil
            $0.app.flash = flash(.info, ClipboardRequest.sentNote("Access token"))
        }
        await store.finish()
        #expect(edges.copied.withLock { $0 } == ["at-alice-secret"])
    }

    @Test("o asks first; Enter and other keys do not confirm, only y signs out; Esc closes the results")
    func signOutWithConfirmation() async {
        let alice = record("alice"), bob = record("bob")
        let revoked = SignOutStepResult(.revokeRefreshToken, .done("revoked"))
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.signOut = { id, options, step in
            #expect(id == alice.id && options == SignOutOptions())
            step(revoked)
            return SignOutOutcome(removed: true, clearedActive: true)
        }
        let store = makeStore(screenState([alice, bob], active: alice.id), environment(useCases))
        store.send(.command(command(.char("o"), store.state))) { $0.confirmSignOut = alice.id }
        // Enter, pressed out of habit after o, does nothing; n keeps the account.
        #expect(key(.enter, store.state) == .unhandled)
        #expect(key(.char("o"), store.state) == .unhandled)
        #expect(key(.char("n"), store.state) == .command(.cancel))
        store.send(.command(.cancel)) { $0.confirmSignOut = nil }
        store.send(.command(command(.char("o"), store.state))) { $0.confirmSignOut = alice.id }
        store.send(.command(command(.char("y"), store.state))) { $0.confirmSignOut = nil }
        await store.receive(.app(.signOut(alice.id, SignOutOptions()))) { $0.app.signOut = SignOutFlow(accountID: alice.id, displayName: "Alice") }
        await store.receive(.app(.signOutStep(revoked))) { $0.app.signOut?.steps = [revoked] }
        await store.receive(.app(.signOutFinished(alice.id, SignOutOutcome(removed: true, clearedActive: true)))) {
            $0.app.signOut?.finished = true
            $0.app.accounts = [AccountState(record: bob)]
            $0.app.activeAccountID = nil
            $0.app.flash = flash(.info, "Signed out of Alice")
            $0.view.selection = bob.id
        }
        store.send(.command(command(.escape, store.state)))
        await store.receive(.app(.dismissSignOut)) { $0.app.signOut = nil }
        await store.finish()
    }

    @Test("Read-only: o is not bound, so nothing asks or signs out")
    func readOnlyHasNoSignOut() {
        var state = screenState([record("alice")])
        state.readOnly = true
        #expect(key(.char("o"), state) == .unhandled)
    }

    @Test("/ types a filter, Enter keeps it, Esc clears it; the selection stays on a visible row")
    func filter() {
        let alice = record("alice"), bob = record("bob")
        let store = makeStore(screenState([alice, bob]))
        store.send(.command(command(.char("/"), store.state))) { $0.view.filter.isEditing = true }
        // While typing, letters are text, not bindings (q does not quit).
        store.send(.command(command(.char("b"), store.state))) {
            $0.view.filter.text = "b"
            $0.view.selection = bob.id
        }
        store.send(.command(command(.backspace, store.state))) { $0.view.filter.text = "" }
        store.send(.command(command(.char("q"), store.state))) {
            $0.view.filter.text = "q"
            $0.view.selection = nil
        }
        #expect(AccountsScreen.model(store.state).visibleAccounts.isEmpty)
        // Rows again, none selected: the first (no account is active).
        store.send(.command(command(.backspace, store.state))) {
            $0.view.filter.text = ""
            $0.view.selection = alice.id
        }
        store.send(.command(command(.char("B"), store.state))) {
            $0.view.filter.text = "B"
            $0.view.selection = bob.id
        }
        store.send(.command(command(.enter, store.state))) { $0.view.filter.isEditing = false }
        #expect(AccountsScreen.model(store.state).visibleAccounts.map(\.id) == [bob.id])
        store.send(.command(command(.escape, store.state))) { $0.view.filter.text = "" }
    }

    @Test("Tabs: 1-6, Tab cycles; the Raw tab loads the stored tokens masked, v reveals them; moving masks them again and loads the next account's")
    func tabs() async {
        let alice = record("alice"), bob = record("bob")
        let entries = [StoredTokens.Entry(label: "access token", value: Redacted("at-1"))]
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.storedTokens = { _ in .success(entries) }
        let store = makeStore(screenState([alice, bob]), environment(useCases))
        store.send(.command(command(.char("4"), store.state))) { $0.view.tab = .accessToken }
        store.send(.command(command(.tab, store.state))) { $0.view.tab = .userinfo }
        store.send(.command(command(.tab, store.state))) {
            $0.view.tab = .raw
            $0.app.accounts[0].storedTokens = .loading
        }
        await store.receive(.app(.storedTokensResponse(alice.id, .success(entries)))) { $0.app.accounts[0].storedTokens = .loaded(entries) }
        #expect(AccountsScreen.model(store.state).detail?.raw.first?.value == .masked(TokenMask.mask("at-1")))
        store.send(.command(command(.char("v"), store.state))) { $0.view.revealed = true }
        #expect(AccountsScreen.model(store.state).detail?.raw.first?.value == .revealed("at-1"))
        store.send(.command(command(.char("j"), store.state))) {
            $0.view.selection = bob.id
            $0.view.revealed = false
            $0.app.accounts[1].storedTokens = .loading
        }
        await store.receive(.app(.storedTokensResponse(bob.id, .success(entries)))) { $0.app.accounts[1].storedTokens = .loaded(entries) }
        store.send(.command(command(.tab, store.state))) { $0.view.tab = .overview }
        store.send(.command(command(.right, store.state))) { $0.view.focus = .detail }
        store.send(.command(command(.char("j"), store.state))) { $0.view.scroll = 1 }
        store.send(.command(command(.char("2"), store.state))) {
            $0.view.tab = .scopes
            $0.view.scroll = 0
        }
        store.send(.command(command(.left, store.state))) { $0.view.focus = .accounts }
        await store.finish()
    }

    @Test("? shows the help over everything; q and Esc there close it instead of quitting")
    func help() {
        let store = makeStore(screenState([record("alice")]))
        #expect(key(.char("q"), store.state) == .command(.quit))
        store.send(.command(command(.char("?"), store.state))) { $0.view.helpVisible = true }
        #expect(key(.char("r"), store.state) == .unhandled)
        store.send(.command(command(.char("q"), store.state))) { $0.view.helpVisible = false }
        store.send(.command(command(.char("?"), store.state))) { $0.view.helpVisible = true }
        store.send(.command(command(.escape, store.state))) { $0.view.helpVisible = false }
    }

    @Test("t cycles the themes through the environment and says which")
    func nextTheme() async {
        var state = screenState([record("alice")])
        state.themeName = BuiltInThemes.names[0]
        let store = makeStore(state)
        let next = BuiltInThemes.names[1]
        store.send(.command(command(.char("t"), store.state)))
        await store.receive(.themeLoaded(name: next, BuiltInThemes.theme(named: next)!, problem: nil)) {
            $0.themeName = next
            $0.theme = BuiltInThemes.theme(named: next)!
        }
        await store.receive(.app(.flash(.info, "Theme: \(next)"))) { $0.app.flash = flash(.info, "Theme: \(next)") }
        await store.finish()
    }

    @Test("Preset form: chosen in the sign-in dialog, typed in (the secret straight into its redacting type), added; the dialog selects it")
    func presetForm() async throws {
        let added = Mutex<ClientSecret?>(nil)
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.addProvider = { config, secret in added.withLock { $0 = secret }; return .success(config) }
        var state = screenState([record("alice")])
        state.app.presets = PresetCatalog.builtIn.entries.map(\.preset)
        let store = makeStore(state, environment(useCases))
        let option = ProviderOption(id: local, name: "Local IdP", detail: "http://127.0.0.1:8000/o")
        store.send(.command(command(.char("l"), store.state))) { $0.signInForm = SignInDialog(providers: [option], addFromPreset: true) }
        store.send(.command(command(.char("j"), store.state))) { $0.signInForm?.selectedProvider = 1 }
        store.send(.command(command(.enter, store.state)))
        await store.receive(.app(.presetFormOpen)) { $0.app.presetForm = PresetForm(presets: $0.app.presets) }
        let github = try #require(store.state.app.presets.firstIndex { $0.name == "github" })
        for _ in 0..<github {
            store.send(.command(command(.char("j"), store.state)))
            await store.receive(.app(.presetFormEdit(.move(by: 1)))) { $0.app.presetForm?.apply(.move(by: 1)) }
        }
        #expect(store.state.app.presetForm?.fields == [.preset, .name, .clientID, .clientSecret])
        for field in [PresetForm.Field.name, .clientID] {
            store.send(.command(command(.tab, store.state)))
            await store.receive(.app(.presetFormEdit(.nextField))) { $0.app.presetForm?.focused = field }
        }
        store.send(.command(command(.char("i"), store.state)))
        await store.receive(.app(.presetFormEdit(.setText("i")))) { $0.app.presetForm?.clientID = "i" }
        store.send(.command(command(.char("d"), store.state)))
        await store.receive(.app(.presetFormEdit(.setText("id")))) { $0.app.presetForm?.clientID = "id" }
        store.send(.command(command(.tab, store.state)))
        await store.receive(.app(.presetFormEdit(.nextField))) { $0.app.presetForm?.focused = .clientSecret }
        for (typed, secret) in [("s", "s"), ("3", "s3")] {
            store.send(.command(command(.char(Character(typed)), store.state)))
            await store.receive(.app(.presetFormEdit(.setSecret(ClientSecret(secret))))) { $0.app.presetForm?.clientSecret = ClientSecret(secret) }
        }
        store.send(.command(command(.backspace, store.state)))
        await store.receive(.app(.presetFormEdit(.setSecret(ClientSecret("s"))))) { $0.app.presetForm?.clientSecret = ClientSecret("s") }
        #expect(!String(describing: AccountsScreen.model(store.state)).contains("\"s\""), "the model shows bullets only")
        let provider = try #require(try? store.state.app.presetForm?.provider().0)
        store.send(.command(command(.enter, store.state)))
        await store.receive(.app(.presetFormSubmit)) { $0.app.presetForm?.submitting = true }
        await store.receive(.app(.presetFormFinished(.success(provider)))) {
            $0.app.presetForm = nil
            $0.app.providers = [localProvider, provider]
            $0.app.flash = flash(.info, "Added provider 'github': sign in with Enter")
            let addedOption = ProviderOption(id: "github", name: provider.displayName, detail: provider.issuer?.absoluteString ?? "manual endpoints")
            $0.signInForm = SignInDialog(providers: [option, addedOption],
                                         selectedProvider: 1, addFromPreset: true)
        }
        await store.finish()
        #expect(added.withLock { $0 } == ClientSecret("s"))
    }

    @Test("The device flow's QR code is made once per verification URI through the environment; c copies the user code")
    func deviceCode() async {
        let device = DeviceCodeDisplay(userCode: "WDJB-MJHT", verificationURI: URL(string: "http://127.0.0.1:8000/device")!,
                                       verificationURIComplete: nil, expiresAt: t0.addingTimeInterval(600), interval: .seconds(5))
        let made = Counter()
        let edges = Edges()
        var env = environment(edges: edges)
        env.qrMatrix = { text in made.increment(); return text.isEmpty ? nil : [[true]] }
        var state = screenState([record("alice")])
        state.app.signIn = SignInFlow(request: SignInRequest(providerID: local, flow: .device))
        let store = makeStore(state, env)
        store.send(.app(.signInProgress(.deviceCode(device)))) {
            $0.app.signIn?.phase = .progress(.deviceCode(device))
            $0.app.signIn?.device = device
        }
        let image = AccountsScreen.QRImage(text: "http://127.0.0.1:8000/device", matrix: [[true]])
        await store.receive(.qrCodeMade(image)) { $0.qr = image }
        store.send(.app(.signInProgress(.deviceCode(device))))
        store.send(.command(command(.char("c"), store.state)))
        await store.receive(.app(.flash(.info, ClipboardRequest.sentNote("User code")))) {
            $0.app.flash = flash(.info, ClipboardRequest.sentNote("User code"))
        }
        await store.finish()
        #expect(made.count == 1)
        #expect(edges.copied.withLock { $0 } == ["WDJB-MJHT"])
    }
}
