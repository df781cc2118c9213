@testable import AccountsScreen
import AppCore
import AuthEngine
import Foundation
import StoreTesting
import Synchronization
import TerminalUI
import Testing

let t0 = Date(timeIntervalSince1970: 1_800_000_000)
let local: ProviderID = "local"
let localProvider = ProviderConfig(id: local, displayName: "Local IdP", issuer: URL(string: "http://127.0.0.1:8000/o"), clientID: "authdeck-native")

typealias ScreenStore = TestStore<AccountsScreen.State, AccountsScreen.Action>

func record(_ name: String, expiresIn: Double = 3600, issuedAt: Date = t0, refresh: Bool = true) -> AccountRecord {
    AccountRecord(
        id: AccountID(provider: local, subject: name), providerID: local, issuer: "http://127.0.0.1:8000/o",
        subject: name, displayName: name.capitalized, username: name, email: "\(name)@example.test",
        requestedScopes: ["openid", "profile"], grantedScopes: ["openid", "profile"],
        accessTokens: [AccessTokenInfo(expiresAt: issuedAt.addingTimeInterval(expiresIn), issuedAt: issuedAt, scopes: ["openid", "profile"])],
        hasRefreshToken: refresh, signedInAt: issuedAt, storage: .vault)
}

/// The screen over loaded accounts (sorted as the app reducer sorts them), the first selected.
func screenState(_ records: [AccountRecord], active: AccountID? = nil, now: Date = t0) -> AccountsScreen.State {
    var app = AppState(now: now)
    app.load = .loaded
    app.providers = [localProvider]
    app.credentialStore = StoreInfo(backend: .vault)
    app.accounts = records.map { AccountState(record: $0) }
    app.activeAccountID = active
    var state = AccountsScreen.State(app: app, themeName: "monochrome", theme: BuiltInThemes.monochrome)
    state.view.selection = records.first?.id
    return state
}

/// What the edges saw: texts put on the clipboard.
final class Edges: Sendable {
    let copied = Mutex<[String]>([])
}

/// What the failing test values report with: a test issue naming the member.
let reportIssue: @Sendable (String) -> Void = { Issue.record(Comment(rawValue: $0)) }

/// The environment of a story: every edge fails the test unless the story sets it.
func environment(_ useCases: UseCaseClient = .unimplemented(reportIssue), edges: Edges = Edges(),
                 sleep: @escaping @Sendable (Duration) async throws -> Void = { _ in Issue.record("unexpected sleep"); throw CancellationError() },
                 now: @escaping @Sendable () -> Date = { Issue.record("unexpected clock read"); return t0 }) -> AccountsScreen.Environment {
    AccountsScreen.Environment(
        useCases: useCases, now: now, sleep: sleep,
        copyToClipboard: { text in edges.copied.withLock { $0.append(text) } },
        qrMatrix: { _ in Issue.record("unexpected QR code"); return nil },
        themeNames: { BuiltInThemes.names },
        loadTheme: { name in (BuiltInThemes.theme(named: name) ?? BuiltInThemes.defaultTheme, nil) })
}

func makeStore(_ state: AccountsScreen.State, _ environment: AccountsScreen.Environment = environment()) -> ScreenStore {
    TestStore(initialState: state, reduce: AccountsScreen(environment: environment).reduce)
}

/// What `key` means on the screen the state shows (KeyBindings on the model, as the loop does).
func key(_ key: KeyEvent, _ state: AccountsScreen.State) -> KeyResult {
    KeyBindings.dispatch(key, model: AccountsScreen.model(state))
}

/// The command `key` sends on the screen the state shows; records an issue when it sends none.
func command(_ event: KeyEvent, _ state: AccountsScreen.State, sourceLocation: SourceLocation = #_sourceLocation) -> UICommand {
    let result = key(event, state)
    guard case .command(let command) = result else {
        Issue.record("\(event) gave \(result), no command", sourceLocation: sourceLocation)
        return .quit
    }
    return command
}

/// A flash as the app reducer makes it at `now` (6 s).
func flash(_ level: Flash.Level, _ text: String, now: Date = t0) -> Flash {
    Flash(level: level, text: text, expiresAt: now.addingTimeInterval(6))
}
