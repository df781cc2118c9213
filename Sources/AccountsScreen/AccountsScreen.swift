// The accounts screen as a feature (TCA's shape): its state, its actions, the edges it needs, and
// a pure reducer over them that scopes AppCore's `AppReducer`. The TUI (`runTUI`) only wires it:
// keys become `.command` actions, the clock and the terminal's clipboard come from `Environment`.
import AppCore
import AuthEngine
import FoundationEssentials
import TerminalUI

/// The accounts screen: ``State``, ``Action``, ``Environment`` and ``reduce(_:_:)``.
public struct AccountsScreen: Sendable {
    /// What only the screen cares about: selection, focus, tab, detail scroll, filter, help,
    /// reveal. The selection is kept here only (by id, so it survives reloads) and moved by
    /// actions over the visible (filtered) rows; ``Selection/after(_:visibleBefore:visibleAfter:active:)``
    /// is the one rule for what is selected when the selected account disappears.
    public struct ViewState: Equatable, Sendable {
        public var selection: AccountID?
        public var focus: Pane = .accounts
        public var tab: DetailTab = .overview
        /// Lines the detail pane is scrolled by (the renderer keeps it within the content).
        public var scroll = 0
        public var filter = FilterState()
        public var helpVisible = false
        /// The Raw tab shows the stored tokens unmasked.
        public var revealed = false
        public init(selection: AccountID? = nil) { self.selection = selection }
    }

    /// The device flow's QR code, made once per verification URI (libqrencode, through the
    /// environment); `matrix` is nil when it cannot be made (no libqrencode, too long).
    public struct QRImage: Equatable, Sendable {
        public var text: String
        public var matrix: [[Bool]]?
        public init(text: String, matrix: [[Bool]]?) {
            self.text = text
            self.matrix = matrix
        }
    }

    public struct State: Equatable, Sendable {
        /// The application state (accounts, refreshes, sign-in and sign-out flows, the preset form).
        public var app: AppState
        public var view = ViewState()
        /// The sign-in dialog before it is submitted.
        public var signInForm: SignInDialog?
        /// The account whose sign-out awaits confirmation (only `y` confirms: ``KeyBindings``).
        public var confirmSignOut: AccountID?
        public var qr: QRImage?
        /// The theme drawn with, and its name (`t` cycles through ``Environment/themeNames``).
        public var themeName: String
        public var theme: Theme
        /// `--read-only`: destructive bindings and "Add a provider from a preset…" are hidden.
        public var readOnly: Bool
        /// `AUTHDECK_NOTES`: lines under the panes (room permitting) and at the foot of the `?` overlay.
        public var notes: [String]
        /// The zone of absolute times on screen: the system's in the TUI (AppCoreLive's
        /// `DisplayTimeZone.system`), UTC in tests.
        public var timeZone: DisplayTimeZone = .utc
        /// When the clock next re-reads the files (every ``reloadInterval`` s, for what other
        /// processes did: `authdeck login`, `token`, `logout`); nil until ``Action/start``.
        public var nextReloadAt: Date?

        public init(app: AppState, themeName: String = "default", theme: Theme = BuiltInThemes.defaultTheme,
                    readOnly: Bool = false, notes: [String] = []) {
            self.app = app
            self.themeName = themeName
            self.theme = theme
            self.readOnly = readOnly
            self.notes = notes
        }
    }

    public enum Action: Equatable, Sendable {
        /// Loads the accounts and starts the clock.
        case start
        /// The app's own actions (``AppReducer``), from the screen or from its effects.
        case app(AppAction)
        /// A key as ``KeyBindings`` mapped it for the model on screen.
        case command(UICommand)
        /// The environment's clock, once a second (``Environment/sleep``, ``Environment/now``).
        case clockTicked(Date)
        case themeLoaded(name: String, Theme, problem: String?)
        case qrCodeMade(QRImage)
    }

    /// The screen's edges besides the use cases; the live value is built by `runTUI`.
    public struct Environment: Sendable {
        public var useCases: UseCaseClient
        public var now: @Sendable () -> Date
        public var sleep: @Sendable (Duration) async throws -> Void
        /// Puts text on the terminal's clipboard (OSC 52, written by the terminal loop). The one
        /// place a copied token leaves its redacting type is the effect that calls this.
        public var copyToClipboard: @Sendable (String) -> Void
        /// The QR code's modules for a text (nil when it cannot be made).
        public var qrMatrix: @Sendable (String) -> [[Bool]]?
        /// The theme names in cycling order, and a theme by name (with what was wrong with its file).
        public var themeNames: @Sendable () -> [String]
        public var loadTheme: @Sendable (String) -> (theme: Theme, problem: String?)

        public init(useCases: UseCaseClient, now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void,
                    copyToClipboard: @escaping @Sendable (String) -> Void, qrMatrix: @escaping @Sendable (String) -> [[Bool]]?,
                    themeNames: @escaping @Sendable () -> [String], loadTheme: @escaping @Sendable (String) -> (theme: Theme, problem: String?)) {
            self.useCases = useCases
            self.now = now
            self.sleep = sleep
            self.copyToClipboard = copyToClipboard
            self.qrMatrix = qrMatrix
            self.themeNames = themeNames
            self.loadTheme = loadTheme
        }
    }

    public enum EffectIDs {
        public static let clock = EffectID("screen/clock")
    }

    /// Seconds between re-reads of the files.
    public static let reloadInterval: TimeInterval = 5

    public var environment: Environment
    let app: AppReducer

    public init(environment: Environment) {
        self.environment = environment
        self.app = AppReducer(dependencies: AppDependencies(useCases: environment.useCases))
    }

    /// The notes under the panes from `AUTHDECK_NOTES` (lines): blank lines dropped, at most 6
    /// lines of at most 200 characters each.
    public static func notes(_ text: String?) -> [String] {
        (text ?? "").split(separator: "\n").filter { !$0.isEmpty }.prefix(6).map { String($0.prefix(200)) }
    }

    /// The screen model for a state (built once per state change by the loop).
    public static func model(_ state: State) -> ScreenModel { ScreenMapping.model(state) }
}
