import AccountsScreen
import AppCore
import AppCoreLive
import FoundationEssentials
import TerminalUI
import TerminalUINCurses

/// Messages from other threads to the UI loop.
enum TUIMessage: Sendable {
    /// The store's state changed (an effect finished, a refresh, a poll answer, a clock tick).
    case stateChanged
    /// Text for the terminal's clipboard (OSC 52), from the screen's effects.
    case copy(String)
}

/// `authdeck` with no subcommand: the accounts screen (`AccountsScreen`) over the live environment;
/// with `--accessible` or `ACCESSIBLE=1` (not `0` or empty) the same store read out in lines (runAccessible).
@MainActor
func runTUI(_ parsed: ParsedCommand) async -> Int32 {
    let environment = ProcessInfo.processInfo.environment
    if parsed.flag("accessible") || (environment["ACCESSIBLE"].map { !$0.isEmpty && $0 != "0" } ?? false) {
        return runAccessible(parsed, environment: environment)
    }
    let live = AppEnvironment.live(processEnvironment: environment)
    // Unlock before the screen starts: a vault passphrase prompt needs the plain terminal.
    let unlockError: AppError? = { do throws(AppError) { try LoadAccounts(live).unlock(); return nil } catch { return error } }()
    let app: TerminalApp<TUIMessage>
    do {
        app = try TerminalApp(environment: environment, clock: live.now)
    } catch {
        Output.err("authdeck: cannot start the accounts screen: \(error)")
        return ExitCode.failure
    }
    let store = makeScreenStore(parsed, environment: environment, live: live, unlockError: unlockError, inbox: app.inbox)
    let theme = store.state.theme

    // The screen model is built once per state change; the loop sets the instant it draws.
    var shown: (state: AccountsScreen.State, model: ScreenModel)?
    func model(_ now: Date) -> ScreenModel {
        let state = store.state
        var model = shown.flatMap { $0.state == state ? $0.model : nil } ?? AccountsScreen.model(state)
        shown = (state, model)
        model.now = now
        return model
    }
    let exit = app.run(model: model, theme: { shown?.state.theme ?? theme }, handle: { event in
        switch event {
        case .key(_, .command(.quit)): return .quit
        case .key(_, .command(let command)): store.send(.command(command))
        case .key(_, .disabled(let reason)): store.send(.app(.flash(.warn, reason)))
        case .message(.copy(let text)): app.copyToClipboard(text)
        case .key(_, .unhandled), .resize, .message(.stateChanged): break
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

/// The accounts screen's store over `live`, started (`.start` sent, the start-up's problems
/// flashed): one for both renderers, the screen and the accessible lines. Its changes are posted
/// to `inbox` (`.stateChanged`), as are the clipboard's texts (`.copy`).
@MainActor
func makeScreenStore(_ parsed: ParsedCommand, environment: [String: String], live: AppEnvironment, unlockError: AppError?,
                     inbox: Inbox<TUIMessage>) -> Store<AccountsScreen.State, AccountsScreen.Action> {
    let catalog = ThemeCatalog(directories: themeDirectories(environment))
    let themeName = parsed.value("theme") ?? environment["AUTHDECK_THEME"] ?? "default"
    let (theme, themeError) = catalog.load(themeName)
    let presets = live.presets()
    var initial = AccountsScreen.State(
        app: AppState(now: live.now(), environmentAccount: environment["AUTHDECK_ACCOUNT"]), themeName: themeName, theme: theme,
        readOnly: parsed.flag("readOnly"), notes: AccountsScreen.notes(environment["AUTHDECK_NOTES"]))
    initial.app.presets = presets.entries.map(\.preset)
    initial.app.credentialStore.isLocked = unlockError?.disposition == .storeLocked
    initial.timeZone = .system
    let screen = AccountsScreen(environment: AccountsScreen.Environment(
        useCases: UseCaseClient(environment: live), now: live.now, sleep: live.sleep, copyToClipboard: { inbox.post(.copy($0)) },
        qrMatrix: { QRCode.matrix(for: $0) }, themeNames: { catalog.names() },
        loadTheme: { name in let (theme, error) = catalog.load(name); return (theme, error.map { "\($0)" }) }))
    let store = Store(initialState: initial, reduce: screen.reduce)
    store.setOnChange { inbox.post(.stateChanged) }
    store.send(.start)
    if let themeError { store.send(.app(.flash(.warn, "Theme: \(themeError)"))) }
    if let unlockError { store.send(.app(.flash(.error, unlockError.description))) }
    if let problem = presets.problems.first { store.send(.app(.flash(.warn, "Preset file ignored: \(problem)"))) }
    return store
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
