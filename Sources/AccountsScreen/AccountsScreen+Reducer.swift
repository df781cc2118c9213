import AppCore
import AuthEngine
import FoundationEssentials
import TerminalUI

extension AccountsScreen {
    /// Reduces one action: pure (time, QR codes, themes and the clipboard come through
    /// ``Environment`` in effects). After every action the selection follows the one rule
    /// (``Selection/after(_:visibleBefore:visibleAfter:active:)``): a changed selection starts at
    /// the top of its details, masked; and the Raw tab (or reveal) loads the selected account's
    /// stored tokens when they are not loaded.
    public func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
        let before = state
        let effect = reduceAction(&state, action)
        let visible = Selection.visibleIDs(state)
        if state.view.selection.map({ !visible.contains($0) }) ?? true {
            // The rows before the action matter only when the selection is not visible after it.
            state.view.selection = Selection.after(state.view.selection, visibleBefore: Selection.visibleIDs(before),
                                                   visibleAfter: visible, active: state.app.effectiveActiveAccountID)
        }
        if state.view.selection != before.view.selection {
            state.view.scroll = 0
            state.view.revealed = false
        }
        return .merge(effect, loadStoredTokensIfShown(&state))
    }

    private func reduceAction(_ state: inout State, _ action: Action) -> Effect<Action> {
        switch action {
        case .start:
            state.nextReloadAt = state.app.now.addingTimeInterval(Self.reloadInterval)
            let (now, sleep) = (environment.now, environment.sleep)
            let clock = Effect<Action>.run { send in
                while !Task.isCancelled {
                    do { try await sleep(.seconds(1)) } catch { return }
                    send(.clockTicked(now()))
                }
            }.cancellable(EffectIDs.clock)
            return .merge(app.reduce(&state.app, .start).map(Action.app), clock)

        case .clockTicked(let now):
            // Every 5 s a tick and a re-read of the files; in between a tick only while something
            // counts down (the app reducer schedules refreshes and expires flashes from it).
            if let due = state.nextReloadAt, now >= due {
                state.nextReloadAt = now.addingTimeInterval(Self.reloadInterval)
                return .merge(.send(.app(.tick(now))), .send(.app(.reload)))
            }
            return state.app.hasLiveCountdown ? .send(.app(.tick(now))) : .none

        case .app(let action):
            return reduceApp(&state, action)

        case .command(let command):
            return reduceCommand(&state, command)

        case .themeLoaded(let name, let theme, let problem):
            state.themeName = name
            state.theme = theme
            return .send(.app(.flash(problem == nil ? .info : .warn, problem.map { "Theme: \($0)" } ?? "Theme: \(name)")))

        case .qrCodeMade(let image):
            state.qr = image
            return .none
        }
    }

    /// The app reducer on the app state, then what the screen does about its results.
    private func reduceApp(_ state: inout State, _ action: AppAction) -> Effect<Action> {
        let signingIn = state.app.signIn != nil, presetFormOpen = state.app.presetForm != nil
        let effect = app.reduce(&state.app, action).map(Action.app)
        switch action {
        case .signInFinished(.success(let outcome)) where signingIn:
            // The new account is selected.
            state.view.selection = outcome.record.id
        case .presetFormFinished(.success(let provider)) where presetFormOpen:
            // The sign-in dialog lists the provider added from a preset, selected, ready to sign in.
            state.signInForm = signInDialog(state, selected: state.app.providers.firstIndex { $0.id == provider.id })
        case .signInProgress(.deviceCode):
            guard let device = state.app.signIn?.device else { break }
            let text = device.verificationURIComplete?.absoluteString ?? device.verificationURI.absoluteString
            guard state.qr?.text != text else { break }
            let qrMatrix = environment.qrMatrix
            return .merge(effect, .run { send in send(.qrCodeMade(QRImage(text: text, matrix: qrMatrix(text)))) })
        case .accessTokenForCopyResponse(_, .success):
            guard let clipboard = state.app.clipboard else { break }
            let copy = environment.copyToClipboard
            // The terminal's last step: only here does a copied token leave its redacting type.
            return .merge(effect, .run { send in
                copy(clipboard.value.exposedValue)
                send(.app(.clipboardWritten))
            })
        default:
            break
        }
        return effect
    }

    /// What a key asked for (``KeyBindings`` mapped it): the view state changes here, the rest
    /// becomes app actions.
    private func reduceCommand(_ state: inout State, _ command: UICommand) -> Effect<Action> {
        switch command {
        case .moveSelection(let delta):
            state.view.selection = Selection.moved(state.view.selection, by: delta, visible: Selection.visibleIDs(state))
        case .select(let id):
            state.view.selection = id
            state.view.focus = .accounts
        case .focus(let pane): state.view.focus = pane
        case .scrollDetail(let delta): state.view.scroll = max(0, state.view.scroll + delta)
        case .selectTab(let tab):
            state.view.tab = tab
            state.view.scroll = 0
        case .nextTab:
            state.view.tab = state.view.tab.next
            state.view.scroll = 0
        case .startFilter: state.view.filter.isEditing = true
        case .setFilter(let text): state.view.filter.text = text
        case .endFilter(let keep):
            state.view.filter.isEditing = false
            if !keep { state.view.filter.text = "" }
        case .toggleHelp: state.view.helpVisible.toggle()
        case .toggleReveal: state.view.revealed.toggle()
        case .quit:
            // The terminal loop ends on it.
            break

        case .makeActive(let id):
            return .send(.app(.activate(id)))
        case .refresh(let id):
            return .send(.app(.refresh(id, force: true)))
        case .fetchUserinfo(let id):
            state.view.tab = .userinfo
            return .send(.app(.fetchUserinfo(id)))
        case .introspect(let id):
            state.view.tab = .accessToken
            return .send(.app(.introspect(id)))
        case .copyAccessToken(let id):
            return .send(.app(.copyAccessTokenKeyPressed(id)))
        case .copyUserCode:
            guard let code = state.app.signIn?.device?.userCode else { break }
            let copy = environment.copyToClipboard
            return .run { send in
                copy(code)
                send(.app(.flash(.info, ClipboardRequest.sentNote("User code"))))
            }
        case .nextTheme:
            let (names, load, current) = (environment.themeNames, environment.loadTheme, state.themeName)
            return .run { send in
                let all = names()
                guard !all.isEmpty else { return }
                let next = all[((all.firstIndex(of: current) ?? -1) + 1) % all.count]
                let (theme, problem) = load(next)
                send(.themeLoaded(name: next, theme, problem: problem))
            }

        case .openSignIn:
            if let damage = ScreenMapping.storeDamage(state.app) {
                return .send(.app(.flash(.error, damage)))
            }
            if state.app.providers.isEmpty && (state.app.presets.isEmpty || state.readOnly) {
                return .send(.app(.flash(.warn, "No provider configured: add one with 'authdeck provider add NAME --issuer URL --client-id ID'")))
            }
            // The selected account's provider is preselected.
            let provider = state.view.selection.flatMap { state.app.account($0)?.record.providerID }
            state.signInForm = signInDialog(state, selected: provider.flatMap { id in state.app.providers.firstIndex { $0.id == id } })
        case .dialogMove, .dialogNextField, .dialogPreviousField, .dialogToggleFlow, .dialogSetText:
            _ = state.signInForm?.apply(command)
        case .dialogSubmit:
            // A URL given: a resource's sign-in (discovery, then its plan to confirm).
            if let resource = state.signInForm?.resourceRequest {
                state.signInForm = nil
                return .send(.app(.signInToResource(resource)))
            }
            guard let request = state.signInForm?.request else { break }
            state.signInForm = nil
            return .send(.app(.signIn(request)))
        case .openPresetForm:
            return .send(.app(.presetFormOpen))
        case .presetFormEdit(let edit):
            return .send(.app(.presetFormEdit(edit)))
        case .presetFormSecretKey(let key):
            // The secret goes from the key straight into its redacting type.
            var typed = state.app.presetForm?.clientSecret.exposedValue ?? ""
            if let key { typed.append(key) } else if !typed.isEmpty { typed.removeLast() }
            return .send(.app(.presetFormEdit(.setSecret(ClientSecret(typed)))))
        case .presetFormSubmit:
            return .send(.app(.presetFormSubmit))
        case .openProviderEdit(let id):
            guard !state.readOnly, let provider = state.app.account(id)?.record.providerID else { break }
            return .send(.app(.providerEditOpen(provider)))
        case .providerEdit(let edit):
            return .send(.app(.providerEditEdit(edit)))
        case .providerEditSecretKey(let key):
            var typed = state.app.providerEditForm?.clientSecret.exposedValue ?? ""
            if let key { typed.append(key) } else if !typed.isEmpty { typed.removeLast() }
            return .send(.app(.providerEditEdit(.setSecret(ClientSecret(typed)))))
        case .providerEditSubmit:
            return .send(.app(.providerEditSubmit))
        case .pasteKey(let key):
            return .send(.app(.signInPasteKey(key)))
        case .pasteSubmit:
            return .send(.app(.signInPasteSubmit))

        case .requestSignOut(let id):
            state.confirmSignOut = id
        case .confirmResourceSignIn:
            return .send(.app(.confirmResourceSignIn))
        case .confirmSignOut(let id):
            state.confirmSignOut = nil
            return .send(.app(.signOut(id, SignOutOptions())))

        case .cancel:
            // The innermost dialog closes: the preset form, a finished sign-out's results, the
            // sign-out question, the running (cancelled) or failed sign-in, the sign-in form.
            if state.app.presetForm != nil { return .send(.app(.presetFormClose)) }
            if state.app.providerEditForm != nil { return .send(.app(.providerEditClose)) }
            if state.app.signOut?.finished == true { return .send(.app(.dismissSignOut)) }
            if state.app.resourceSignIn != nil { return .send(.app(.dismissResourceSignIn)) }
            if state.confirmSignOut != nil {
                state.confirmSignOut = nil
            } else if let flow = state.app.signIn {
                return .send(.app(flow.isRunning ? .cancelSignIn : .dismissSignIn))
            } else {
                state.signInForm = nil
            }
        }
        return .none
    }

    /// The Raw tab shows the stored tokens masked from the start (reveal unmasks them): shown (or
    /// revealed) for an account whose tokens are not loaded, they are asked for.
    private func loadStoredTokensIfShown(_ state: inout State) -> Effect<Action> {
        guard state.view.tab == .raw || state.view.revealed, let id = state.view.selection,
              state.app.account(id)?.storedTokens == .idle else { return .none }
        return app.reduce(&state.app, .rawTokensRequested(id)).map(Action.app)
    }

    /// The sign-in dialog over the configured providers, ending with "Add a provider from a
    /// preset…" (not in read-only mode).
    func signInDialog(_ state: State, selected: Int?) -> SignInDialog {
        let providers = state.app.providers.map { provider in
            ProviderOption(id: provider.id, name: provider.displayName,
                           detail: provider.issuer?.absoluteString ?? "manual endpoints", supportsDevice: true)
        }
        return SignInDialog(providers: providers, selectedProvider: selected ?? 0, addFromPreset: !state.readOnly && !state.app.presets.isEmpty)
    }
}
