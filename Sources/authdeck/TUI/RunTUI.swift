import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import TerminalUI
import TerminalUINCurses

/// Messages from other threads to the UI loop.
enum TUIMessage: Sendable {
    /// The store's state changed (an effect finished, a refresh, a poll answer).
    case stateChanged
}

/// `authdeck` with no subcommand: the accounts screen over the state store and the live session.
@MainActor
func runTUI(_ parsed: ParsedCommand) async -> Int32 {
    let environment = ProcessInfo.processInfo.environment
    let live = AppEnvironment.live(processEnvironment: environment)
    // Unlock before the screen starts: a vault passphrase prompt needs the plain terminal.
    let unlockError: AppError? = { do throws(AppError) { try LoadAccounts(live).unlock(); return nil } catch { return error } }()
    var initial = AppState(now: Date(), environmentAccount: environment["AUTHDECK_ACCOUNT"])
    if let unlockError, unlockError.disposition == .storeLocked { initial.credentialStore.isLocked = true }
    let presets = PresetFiles.catalog(environment: environment)
    initial.presets = presets.entries.map(\.preset)
    let store = Store(initialState: initial, reduce: AppReducer(dependencies: AppDependencies(useCases: UseCaseClient(environment: live))).reduce)

    let catalog = ThemeCatalog(directories: themeDirectories(environment))
    var themeNames = catalog.names()
    var themeName = parsed.value("theme") ?? environment["AUTHDECK_THEME"] ?? "default"
    if !themeNames.contains(themeName) { themeNames.append(themeName) }
    var (theme, themeError) = catalog.load(themeName)

    let app: TerminalApp<TUIMessage>
    do {
        app = try TerminalApp(environment: environment)
    } catch {
        Output.err("authdeck: cannot start the accounts screen: \(error)")
        return ExitCode.failure
    }
    let inbox = app.inbox
    store.setOnChange { inbox.post(.stateChanged) }
    store.send(.start)
    if let themeError { store.send(.flash(.warn, "Theme: \(themeError)")) }
    if let unlockError { store.send(.flash(.error, unlockError.description)) }
    if let problem = presets.problems.first { store.send(.flash(.warn, "Preset file ignored: \(problem)")) }

    var ui = TUIState()
    ui.readOnly = parsed.flag("readOnly")
    ui.notes = (environment["AUTHDECK_NOTES"] ?? "").split(separator: "\n").map(String.init).filter { !$0.isEmpty }.prefix(6).map { String($0.prefix(200)) }
    var lastStoreSelection: AccountID?
    var lastAddedProvider: ProviderID?

    // The clock, an effect source of its own (never a side effect of drawing): a tick each second
    // while something counts down (the reducer schedules refreshes and expires flashes from it),
    // and every 5 s a tick and a reload that picks up what other processes did (`authdeck login`,
    // `token`, `logout`).
    let clock = Task.detached {
        var second = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            second += 1
            if second % 5 == 0 {
                store.send(.tick(Date()))
                store.send(.reload)
            } else if store.state.hasLiveCountdown {
                store.send(.tick(Date()))
            }
        }
    }
    defer { clock.cancel() }

    func currentModel(_ now: Date) -> ScreenModel {
        let state = store.state
        // Follow the store's selection when it moves (after a load, or to a new sign-in).
        if state.load == .loaded, state.selectedAccountID != lastStoreSelection {
            lastStoreSelection = state.selectedAccountID
            if let id = state.selectedAccountID { ui.local.selection = id.rawValue }
        }
        // A provider added from a preset: the sign-in dialog lists it, selected, ready to sign in.
        if let added = state.addedProviderID, added != lastAddedProvider {
            lastAddedProvider = added
            ui.signInForm = signInDialog(state, selected: state.providers.firstIndex { $0.id == added })
        }
        if let device = state.signIn?.device {
            let text = device.verificationURIComplete?.absoluteString ?? device.verificationURI.absoluteString
            if ui.qr?.text != text { ui.qr = (text, QRCode.matrix(for: text)) }
        }
        var model = ScreenMapping.model(state, ui, now: now)
        ui.local.reconcile(visibleIDs: model.visibleAccounts.map(\.id))
        model = ScreenMapping.model(state, ui, now: now)
        return model
    }

    func handle(_ command: UICommand, model: ScreenModel) -> LoopControl {
        let state = store.state
        if ui.local.apply(command, visibleIDs: model.visibleAccounts.map(\.id)) {
            // The Raw tab shows the stored tokens masked from the start; reveal unmasks them.
            if ui.local.tab == .raw || ui.local.revealed, let id = ui.local.selection.map({ AccountID($0) }),
               let account = state.account(id), account.storedTokens == .idle {
                store.send(.rawTokensRequested(id))
            }
            return .continue
        }
        switch command {
        case .quit:
            return .quit
        case .makeActive(let id):
            store.send(.activate(AccountID(id)))
        case .openSignIn:
            if let damage = ScreenMapping.storeDamage(state) {
                store.send(.flash(.error, damage))
            } else if state.providers.isEmpty && (state.presets.isEmpty || ui.readOnly) {
                store.send(.flash(.warn, "No provider configured: add one with 'authdeck provider add NAME --issuer URL --client-id ID'"))
            } else {
                // The selected account's provider is preselected.
                let selectedProvider = ui.local.selection.flatMap { state.account(AccountID($0))?.record.providerID }
                    .flatMap { id in state.providers.firstIndex { $0.id == id } }
                ui.signInForm = signInDialog(state, selected: selectedProvider)
            }
        case .openPresetForm:
            store.send(.presetFormOpen)
        case .presetFormEdit(let edit):
            store.send(.presetFormEdit(edit))
        case .presetFormSecretKey(let key):
            // The secret goes from the key straight into its redacting type in the store.
            var typed = state.presetForm?.clientSecret.exposedValue ?? ""
            if let key { typed.append(key) } else if !typed.isEmpty { typed.removeLast() }
            store.send(.presetFormEdit(.setSecret(ClientSecret(typed))))
        case .presetFormSubmit:
            store.send(.presetFormSubmit)
        case .requestSignOut(let id):
            ui.confirmSignOut = AccountID(id)
        case .confirmSignOut(let id):
            ui.confirmSignOut = nil
            store.send(.signOut(AccountID(id), SignOutOptions()))
        case .refresh(let id):
            store.send(.refresh(AccountID(id), manual: true))
        case .fetchUserinfo(let id):
            ui.local.tab = .userinfo
            store.send(.fetchUserinfo(AccountID(id)))
        case .introspect(let id):
            ui.local.tab = .accessToken
            store.send(.introspect(AccountID(id)))
        case .copyAccessToken(let id):
            store.send(.copyAccessTokenKeyPressed(AccountID(id)))
        case .copyUserCode:
            if let code = state.signIn?.device?.userCode {
                app.copyToClipboard(code)
                store.send(.flash(.info, ClipboardRequest.sentNote("User code")))
            }
        case .nextTheme:
            themeNames = catalog.names()
            let next = themeNames[((themeNames.firstIndex(of: themeName) ?? -1) + 1) % themeNames.count]
            themeName = next
            (theme, themeError) = catalog.load(next)
            store.send(.flash(themeError == nil ? .info : .warn, themeError.map { "Theme: \($0)" } ?? "Theme: \(next)"))
        case .cancel:
            if state.presetForm != nil {
                store.send(.presetFormClose)
            } else if state.signOut?.finished == true {
                store.send(.dismissSignOut)
            } else if ui.confirmSignOut != nil {
                ui.confirmSignOut = nil
            } else if let flow = state.signIn {
                store.send(flow.isRunning ? .cancelSignIn : .dismissSignIn)
            } else {
                ui.signInForm = nil
            }
        case .dialogMove, .dialogNextField, .dialogPreviousField, .dialogToggleFlow, .dialogSetText:
            if var form = ui.signInForm {
                _ = form.apply(command)
                ui.signInForm = form
            }
        case .dialogSubmit:
            if let form = ui.signInForm, let request = form.request {
                ui.signInForm = nil
                store.send(.signIn(request))
            }
        default:
            break
        }
        return .continue
    }

    /// The sign-in dialog over the configured providers, ending with "Add a provider from a
    /// preset…" (not in read-only mode).
    func signInDialog(_ state: AppState, selected: Int?) -> SignInDialog {
        let providers = state.providers.map { provider in
            ProviderOption(id: provider.id.rawValue, name: provider.displayName,
                           detail: provider.issuer?.absoluteString ?? "manual endpoints", supportsDevice: true)
        }
        return SignInDialog(providers: providers, selectedProvider: selected ?? 0, addFromPreset: !ui.readOnly && !state.presets.isEmpty)
    }

    let exit = app.run(
        model: { now in currentModel(now) },
        theme: { theme },
        handle: { event in
            switch event {
            case .key(_, .command(let command)):
                return handle(command, model: currentModel(Date()))
            case .key(_, .disabled(let reason)):
                store.send(.flash(.warn, reason))
            case .key(_, .unhandled), .resize:
                break
            case .message(.stateChanged):
                // The terminal's last step: only here does a copied token leave its redacting type.
                if let clipboard = store.state.clipboard {
                    app.copyToClipboard(clipboard.value.exposedValue)
                    store.send(.clipboardWritten)
                }
            }
            return .continue
        })
    store.setOnChange(nil)
    store.cancelAll()
    switch exit {
    case .quit: return ExitCode.ok
    case .signal(let number): return 128 + number
    case .terminalGone: return ExitCode.failure
    }
}

/// Theme files: `$AUTHDECK_THEMES_DIR`, the `themes/` folder of this checkout (next to
/// `.build/…/authdeck`), and `$XDG_CONFIG_HOME/authdeck/themes` (later ones win).
func themeDirectories(_ environment: [String: String]) -> [URL] {
    var directories: [URL] = []
    var folder = executableURL().deletingLastPathComponent()
    for _ in 0..<4 {
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            directories.append(folder.appendingPathComponent("themes"))
            break
        }
        folder = folder.deletingLastPathComponent()
    }
    if let dir = environment["AUTHDECK_THEMES_DIR"] { directories.append(URL(fileURLWithPath: dir)) }
    let config = environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
    directories.append(config.appendingPathComponent("authdeck/themes"))
    return directories
}
