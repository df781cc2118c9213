// Key bindings as data: one table per pane drives dispatch, the footer hints and the `?` help.
import AppCore
import TextSupport

/// A decoded key press (from ncurses `get_wch` in TerminalUINCurses, or from tests).
public enum KeyEvent: Hashable, Sendable {
    case char(Character)
    case up, down, left, right, home, end, pageUp, pageDown
    case enter, tab, backTab, escape, backspace, delete
    /// The terminal was resized (ncurses `KEY_RESIZE`).
    case resize
    /// A mouse button press at a cell (0-based column, row).
    case mouse(x: Int, y: Int)
    /// Ctrl plus a letter, e.g. `.ctrl("c")`.
    case ctrl(Character)

    /// How the key is written in the footer and help.
    public var label: String {
        switch self {
        case .char(" "): "Space"
        case .char(let c): String(c)
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .enter: "Enter"
        case .tab: "Tab"
        case .backTab: "S-Tab"
        case .escape: "Esc"
        case .backspace: "Bksp"
        case .delete: "Del"
        case .resize: "resize"
        case .mouse: "click"
        case .ctrl(let c): "C-\(c)"
        }
    }
}

/// What the user asked for, for the app layer to map to store actions (or to local UI state).
public enum UICommand: Equatable, Sendable {
    case moveSelection(by: Int)
    case select(AccountRow.ID)
    case focus(Pane)
    case scrollDetail(by: Int)
    case makeActive(AccountRow.ID)
    case openSignIn
    /// Destructive: the app shows the confirm dialog (`Dialog.signOutConfirm`), never signs out directly.
    case requestSignOut(AccountRow.ID)
    /// Sent from the confirm dialog.
    /// The resource sign-in's plan was confirmed (`y`).
    case confirmResourceSignIn
    case confirmSignOut(AccountRow.ID)
    case refresh(AccountRow.ID)
    case fetchUserinfo(AccountRow.ID)
    case introspect(AccountRow.ID)
    /// Copy the access token with OSC 52 (`Clipboard.osc52` in TerminalUINCurses).
    case copyAccessToken(AccountRow.ID)
    case copyUserCode
    case toggleReveal
    case selectTab(DetailTab)
    case nextTab
    case startFilter
    /// The filter text as edited so far.
    case setFilter(String)
    /// Leave filter editing; `keep: false` (Esc) also clears the text.
    case endFilter(keep: Bool)
    case nextTheme
    case toggleHelp
    case quit
    /// Close the dialog / cancel the running sign-in (browser or device flow).
    case cancel
    case dialogMove(by: Int)
    case dialogNextField
    case dialogPreviousField
    case dialogToggleFlow
    /// The edited text of the focused sign-in text field.
    case dialogSetText(String)
    case dialogSubmit
    /// "Add a provider from a preset…" chosen in the sign-in dialog.
    case openPresetForm
    case presetFormEdit(PresetForm.Edit)
    /// A key typed in the secret field (nil: backspace); the app keeps the secret, never the model.
    case presetFormSecretKey(Character?)
    case presetFormSubmit
    /// `E`: the "Edit provider" form over the account's provider; its edits, secret keys (as the preset form's) and Enter.
    case openProviderEdit(AccountRow.ID)
    case providerEdit(ProviderEditForm.Edit)
    case providerEditSecretKey(Character?)
    case providerEditSubmit
    /// A key typed in the browser sign-in's paste field (nil: backspace); the app keeps the text, never the model.
    case pasteKey(Character?)
    /// Enter in the paste field: the pasted address (or code) goes to the running sign-in.
    case pasteSubmit
}

/// One key binding.
public struct KeyBinding: Sendable {
    public var keys: [KeyEvent]
    public var command: @Sendable (ScreenModel, KeyEvent) -> UICommand?
    public var description: String
    public var shortDescription: String
    public var showInFooter: Bool
    public var isDestructive: Bool
    /// Why the binding does nothing right now (shown in the flash line when pressed, and in help).
    public var disabledReason: @Sendable (ScreenModel) -> String?

    /// Overrides the generated key label (e.g. "1-6").
    public var keyLabelOverride: String?

    public init(
        keys: [KeyEvent], keyLabel: String? = nil, description: String, shortDescription: String, showInFooter: Bool = true,
        isDestructive: Bool = false, disabledReason: @escaping @Sendable (ScreenModel) -> String? = { _ in nil },
        command: @escaping @Sendable (ScreenModel, KeyEvent) -> UICommand?
    ) {
        self.keys = keys
        self.keyLabelOverride = keyLabel
        self.command = command
        self.description = description
        self.shortDescription = shortDescription
        self.showInFooter = showInFooter
        self.isDestructive = isDestructive
        self.disabledReason = disabledReason
    }

    public var keyLabel: String { keyLabelOverride ?? keys.map(\.label).joined(separator: "/") }
}

/// Which table is in charge.
public enum KeyContext: Equatable, Sendable, CaseIterable {
    case global, accounts, detail, filter, signIn, presetForm, providerEdit, browserWaiting, device, signOutConfirm, signOutProgress
    case resourceSignInConfirm, help

    public var title: String {
        switch self {
        case .global: "Global"
        case .accounts: "Accounts"
        case .detail: "Details"
        case .filter: "Filter"
        case .signIn: "Sign in"
        case .presetForm: "Add a provider from a preset"
        case .providerEdit: "Edit provider"
        case .browserWaiting: "Browser sign-in"
        case .device: "Device sign-in"
        case .signOutConfirm: "Sign out"
        case .signOutProgress: "Sign-out results"
        case .resourceSignInConfirm: "Sign in to a resource"
        case .help: "Help"
        }
    }
}

/// The result of pressing a key.
public enum KeyResult: Equatable, Sendable {
    case command(UICommand)
    /// The key is bound but disabled now; show the reason.
    case disabled(String)
    case unhandled
}

public enum KeyBindings {
    private static func selected(_ m: ScreenModel) -> AccountRow.ID? { m.selectedAccount?.id }
    private static let needsSelection: @Sendable (ScreenModel) -> String? = {
        $0.selectedAccount == nil ? "no account selected" : nil
    }
    private static let needsUsableToken: @Sendable (ScreenModel) -> String? = { m in
        guard let a = m.selectedAccount else { return "no account selected" }
        switch a.status {
        case .needsSignIn: return "\(Sanitizer.visible(a.displayName)) needs to sign in again"
        case .storeLocked: return "the credential store is locked"
        case .fileDamaged: return "the credential store is damaged: run 'authdeck doctor'"
        default: return nil
        }
    }
    private static let tabKeys: [KeyBinding] = [
        KeyBinding(keys: DetailTab.allCases.map { .char(Character(String($0.rawValue))) }, keyLabel: "1-6",
                   description: "Show a detail tab (" + DetailTab.allCases.map(\.title).joined(separator: ", ") + ")",
                   shortDescription: "tabs", showInFooter: false) { _, key in
            if case .char(let c) = key, let n = c.wholeNumberValue, let tab = DetailTab(rawValue: n) { return .selectTab(tab) }
            return nil
        },
    ]

    static let global: [KeyBinding] = [
        KeyBinding(keys: [.char("l")], description: "Sign in to a provider", shortDescription: "sign in") { _, _ in .openSignIn },
        KeyBinding(keys: [.char("/")], description: "Filter accounts by name or provider", shortDescription: "filter") { _, _ in .startFilter },
        KeyBinding(keys: [.char("t")], description: "Next theme", shortDescription: "theme", showInFooter: false) { _, _ in .nextTheme },
        KeyBinding(keys: [.char("?")], description: "Show this help", shortDescription: "help") { _, _ in .toggleHelp },
        KeyBinding(keys: [.char("q"), .ctrl("c")], keyLabel: "q", description: "Quit (also Ctrl-C)", shortDescription: "quit") { _, _ in .quit },
    ]

    static let tokenActions: [KeyBinding] = [
        KeyBinding(keys: [.char("r")], description: "Refresh the access token now", shortDescription: "refresh",
                   disabledReason: needsUsableToken) { m, _ in selected(m).map(UICommand.refresh) },
        KeyBinding(keys: [.char("u")], description: "Fetch userinfo (OIDC Core §5.3)", shortDescription: "userinfo",
                   showInFooter: false, disabledReason: needsUsableToken) { m, _ in selected(m).map(UICommand.fetchUserinfo) },
        KeyBinding(keys: [.char("i")], description: "Introspect the access token (RFC 7662)", shortDescription: "introspect",
                   showInFooter: false, disabledReason: needsUsableToken) { m, _ in selected(m).map(UICommand.introspect) },
        KeyBinding(keys: [.char("c")], description: "Copy the access token to the clipboard (OSC 52)", shortDescription: "copy",
                   showInFooter: false, disabledReason: needsUsableToken) { m, _ in selected(m).map(UICommand.copyAccessToken) },
        KeyBinding(keys: [.char("v")], description: "Reveal or mask tokens on the Raw tab", shortDescription: "reveal",
                   showInFooter: false, disabledReason: needsSelection) { _, _ in .toggleReveal },
        KeyBinding(keys: [.tab], description: "Next detail tab", shortDescription: "tab", showInFooter: false) { _, _ in .nextTab },
    ] + tabKeys

    static let accountsOwn: [KeyBinding] = [
        KeyBinding(keys: [.char("j"), .char("k"), .down, .up], keyLabel: "j/k ↓/↑", description: "Select the next / previous account",
                   shortDescription: "move", showInFooter: false) { _, key in
            .moveSelection(by: key == .char("j") || key == .down ? 1 : -1)
        },
        KeyBinding(keys: [.pageDown, .pageUp], keyLabel: "PgDn/PgUp", description: "Move the selection by a page",
                   shortDescription: "page", showInFooter: false) { _, key in .moveSelection(by: key == .pageDown ? 10 : -10) },
        KeyBinding(keys: [.home, .end], description: "Select the first / last account", shortDescription: "first/last",
                   showInFooter: false) { _, key in .moveSelection(by: key == .home ? -1_000_000 : 1_000_000) },
        KeyBinding(keys: [.right], description: "Focus the detail pane", shortDescription: "details",
                   showInFooter: false) { _, _ in .focus(.detail) },
        KeyBinding(keys: [.enter], description: "Make the selected account active", shortDescription: "activate",
                   disabledReason: needsSelection) { m, _ in selected(m).map(UICommand.makeActive) },
        KeyBinding(keys: [.char("o")], description: "Sign out: revoke, end session, delete local secrets",
                   shortDescription: "sign out", isDestructive: true,
                   disabledReason: needsSelection) { m, _ in selected(m).map(UICommand.requestSignOut) },
        editProvider,
        KeyBinding(keys: [.escape], description: "Clear the applied filter", shortDescription: "clear filter",
                   showInFooter: false) { _, _ in .endFilter(keep: false) },
    ]
    static let accounts = accountsOwn + tokenActions

    static let detailOwn: [KeyBinding] = [
        KeyBinding(keys: [.char("j"), .char("k"), .down, .up], keyLabel: "j/k ↓/↑", description: "Scroll down / up",
                   shortDescription: "scroll", showInFooter: false) { _, key in
            .scrollDetail(by: key == .char("j") || key == .down ? 1 : -1)
        },
        KeyBinding(keys: [.pageDown, .pageUp], keyLabel: "PgDn/PgUp", description: "Scroll by a page",
                   shortDescription: "page", showInFooter: false) { _, key in .scrollDetail(by: key == .pageDown ? 10 : -10) },
        KeyBinding(keys: [.left, .escape], description: "Back to the accounts list", shortDescription: "accounts") { _, _ in .focus(.accounts) },
    ]
    static let detail = detailOwn + tokenActions

    static let filter: [KeyBinding] = [
        KeyBinding(keys: [.enter], description: "Keep the filter", shortDescription: "apply") { _, _ in .endFilter(keep: true) },
        KeyBinding(keys: [.escape], description: "Clear the filter", shortDescription: "clear") { _, _ in .endFilter(keep: false) },
    ]

    static let signIn: [KeyBinding] = [
        KeyBinding(keys: [.up, .down, .char("k"), .char("j")], description: "Choose a provider (PgUp/PgDn: by ten)",
                   shortDescription: "choose", showInFooter: false) { _, _ in nil },
        KeyBinding(keys: [.tab], description: "Next field", shortDescription: "next field") { _, _ in .dialogNextField },
        KeyBinding(keys: [.backTab], description: "Previous field", shortDescription: "prev field",
                   showInFooter: false) { _, _ in .dialogPreviousField },
        KeyBinding(keys: [.left, .right, .char(" ")], description: "Switch between browser and device flow (on the flow field)",
                   shortDescription: "flow", showInFooter: false) { m, _ in
            if case .signIn(let d) = m.dialog, d.focusedField == .flow { return .dialogToggleFlow }
            return nil
        },
        KeyBinding(keys: [.enter], description: "Start signing in", shortDescription: "sign in",
                   disabledReason: { m in
                       if case .signIn(let d) = m.dialog, d.providers.isEmpty, !d.addFromPreset {
                           return "no provider configured (authdeck provider add)"
                       }
                       return nil
                   }) { m, _ in
            if case .signIn(let d) = m.dialog, d.presetEntrySelected { return .openPresetForm }
            return .dialogSubmit
        },
        KeyBinding(keys: [.escape], description: "Cancel", shortDescription: "cancel") { _, _ in .cancel },
    ]

    static let presetForm: [KeyBinding] = [
        KeyBinding(keys: [.up, .down], description: "Choose a preset (on the preset field)", shortDescription: "choose",
                   showInFooter: false) { _, _ in nil },
        KeyBinding(keys: [.tab], description: "Next field", shortDescription: "next field") { _, _ in .presetFormEdit(.nextField) },
        KeyBinding(keys: [.backTab], description: "Previous field", shortDescription: "prev field",
                   showInFooter: false) { _, _ in .presetFormEdit(.previousField) },
        KeyBinding(keys: [.enter], description: "Add the provider (after its discovery probe) and select it for sign-in",
                   shortDescription: "add") { _, _ in .presetFormSubmit },
        KeyBinding(keys: [.escape], description: "Back to the sign-in dialog", shortDescription: "back") { _, _ in .cancel },
    ]

    static let browserWaiting: [KeyBinding] = [
        KeyBinding(keys: [.enter], description: "Use the pasted address the browser ended on (or the code), when no browser opened here",
                   shortDescription: "use pasted",
                   disabledReason: { m in
                       if case .browserWaiting(let d) = m.dialog, let paste = d.paste {
                           return paste.typedCount == 0 ? "paste the address first" : nil
                       }
                       return "no paste field here (a browser opened here, or the sign-in ended)"
                   }) { _, _ in .pasteSubmit },
        KeyBinding(keys: [.escape, .char("q")], description: "Cancel the sign-in (q types into the paste field while it is open)",
                   shortDescription: "cancel") { _, _ in .cancel },
    ]

    static let device: [KeyBinding] = [
        KeyBinding(keys: [.char("c")], description: "Copy the user code (OSC 52)", shortDescription: "copy code") { _, _ in .copyUserCode },
        KeyBinding(keys: [.escape, .char("q")], description: "Cancel the sign-in", shortDescription: "cancel") { _, _ in .cancel },
    ]

    static let signOutConfirm: [KeyBinding] = [
        // Only `y`: Enter, pressed out of habit after `o`, must not sign out (the dialog says "y sign out").
        KeyBinding(keys: [.char("y")], description: "Sign out", shortDescription: "sign out", isDestructive: true) { m, _ in
            if case .signOutConfirm(let d) = m.dialog { return .confirmSignOut(d.accountID) }
            return nil
        },
        KeyBinding(keys: [.char("n"), .escape], description: "Keep the account", shortDescription: "cancel") { _, _ in .cancel },
    ]

    static let signOutProgress: [KeyBinding] = [
        KeyBinding(keys: [.enter, .escape], description: "Close", shortDescription: "close",
                   disabledReason: { m in
                       if case .signOutProgress(let d) = m.dialog, !d.finished { return "sign-out still running" }
                       return nil
                   }) { _, _ in .cancel },
    ]

    static let resourceSignInConfirm: [KeyBinding] = [
        // Only `y`, as for sign-out: Enter out of habit must not register a client or open a browser.
        KeyBinding(keys: [.char("y")], description: "Sign in to the resource (register a client if needed, open the browser)",
                   shortDescription: "sign in") { _, _ in .confirmResourceSignIn },
        KeyBinding(keys: [.char("n"), .escape], description: "Do not sign in", shortDescription: "cancel") { _, _ in .cancel },
    ]

    static let help: [KeyBinding] = [
        KeyBinding(keys: [.char("?"), .escape, .char("q")], description: "Close help", shortDescription: "close") { _, _ in .toggleHelp },
    ]

    /// The table for a context. Read-only mode drops destructive bindings.
    public static func table(_ context: KeyContext, readOnly: Bool = false) -> [KeyBinding] {
        let t: [KeyBinding]
        switch context {
        case .global: t = global
        case .accounts: t = accounts
        case .detail: t = detail
        case .filter: t = filter
        case .signIn: t = signIn
        case .presetForm: t = presetForm
        case .providerEdit: t = providerEdit
        case .browserWaiting: t = browserWaiting
        case .device: t = device
        case .signOutConfirm: t = signOutConfirm
        case .signOutProgress: t = signOutProgress
        case .resourceSignInConfirm: t = resourceSignInConfirm
        case .help: t = help
        }
        return readOnly ? t.filter { !$0.isDestructive } : t
    }

    /// Contexts active for a model, most specific first. Dialogs and help are modal.
    public static func contexts(for m: ScreenModel) -> [KeyContext] {
        if m.helpVisible { return [.help] }
        switch m.dialog {
        case .signIn: return [.signIn]
        case .presetForm: return [.presetForm]
        case .providerEdit: return [.providerEdit]
        case .browserWaiting: return [.browserWaiting]
        case .device: return [.device]
        case .signOutConfirm: return [.signOutConfirm]
        case .signOutProgress: return [.signOutProgress]
        case .resourceSignInConfirm: return [.resourceSignInConfirm]
        case nil: break
        }
        if m.filter.isEditing { return [.filter] }
        return [m.focus == .accounts ? .accounts : .detail, .global]
    }

    /// Dispatches a key against the model's active tables.
    /// `size` (the screen size) is needed only to hit-test mouse clicks.
    public static func dispatch(_ key: KeyEvent, model m: ScreenModel, size: Size? = nil) -> KeyResult {
        if case .mouse(let x, let y) = key, let size {
            if let hit = AccountsHitTest.account(atX: x, y: y, model: m, size: size) { return .command(.select(hit)) }
            if let tab = DetailTabHitTest.tab(atX: x, y: y, model: m, size: size) { return .command(.selectTab(tab)) }
        }
        let contexts = contexts(for: m)
        // Text entry: the filter and the sign-in text fields take printable characters.
        if contexts == [.filter] {
            switch key {
            case .char(let c): return .command(.setFilter(m.filter.text + String(c)))
            case .backspace: return .command(.setFilter(String(m.filter.text.dropLast())))
            default: break
            }
        }
        if case .signIn(let d) = m.dialog, let text = d.text(of: d.focusedField) {
            switch key {
            case .char(let c): return .command(.dialogSetText(text + String(c)))
            case .backspace: return .command(.dialogSetText(String(text.dropLast())))
            default: break
            }
        }
        if case .browserWaiting(let d) = m.dialog, d.paste != nil {
            switch key {
            case .char(let c): return .command(.pasteKey(c))
            case .backspace: return .command(.pasteKey(nil))
            default: break
            }
        }
        if case .presetForm(let p) = m.dialog {
            switch (p.focused, key) {
            case (.preset, .up), (.preset, .char("k")): return .command(.presetFormEdit(.move(by: -1)))
            case (.preset, .down), (.preset, .char("j")): return .command(.presetFormEdit(.move(by: 1)))
            case (.clientSecret, .char(let c)): return .command(.presetFormSecretKey(c))
            case (.clientSecret, .backspace): return .command(.presetFormSecretKey(nil))
            case (.preset, _), (.clientSecret, _): break
            case (_, .char(let c)):
                let text = p.fields.first { $0.kind == p.focused }?.value ?? ""
                return .command(.presetFormEdit(.setText(text + String(c))))
            case (_, .backspace):
                let text = p.fields.first { $0.kind == p.focused }?.value ?? ""
                return .command(.presetFormEdit(.setText(String(text.dropLast()))))
            default: break
            }
        }
        if case .providerEdit(let p) = m.dialog, let command = providerEditText(key, p) { return .command(command) }
        if case .signIn(let d) = m.dialog, d.focusedField == .provider {
            if key == .up || key == .char("k") { return .command(.dialogMove(by: -1)) }
            if key == .down || key == .char("j") { return .command(.dialogMove(by: 1)) }
            if key == .pageUp { return .command(.dialogMove(by: -10)) }
            if key == .pageDown { return .command(.dialogMove(by: 10)) }
        }
        for ctx in contexts {
            for b in table(ctx, readOnly: m.readOnly) where b.keys.contains(key) {
                if let reason = b.disabledReason(m) { return .disabled(reason) }
                if let cmd = b.command(m, key) { return .command(cmd) }
                return .unhandled
            }
        }
        return .unhandled
    }

    /// Footer hints for the model: (key label, short description, disabled) of bindings shown in
    /// the footer, most specific context first.
    public static func footerHints(for m: ScreenModel) -> [(key: String, label: String, disabled: Bool)] {
        contexts(for: m).flatMap { ctx in
            table(ctx, readOnly: m.readOnly).filter(\.showInFooter).map {
                (key: $0.keyLabel, label: $0.shortDescription, disabled: $0.disabledReason(m) != nil)
            }
        }
    }

    /// Sections of the help overlay: the active dialog's table (if any), then Global, Accounts,
    /// Details and the token actions shared by both panes, each binding with its full description.
    public static func helpSections(for m: ScreenModel) -> [(title: String, bindings: [KeyBinding])] {
        let ro = m.readOnly
        func f(_ t: [KeyBinding]) -> [KeyBinding] { ro ? t.filter { !$0.isDestructive } : t }
        var out: [(title: String, bindings: [KeyBinding])] = []
        let dialogContext = contexts(for: ScreenModel(now: m.now, header: m.header, dialog: m.dialog)).first
        if m.dialog != nil, let ctx = dialogContext { out.append((ctx.title, table(ctx, readOnly: ro))) }
        out.append(("Global", f(global)))
        out.append(("Accounts", f(accountsOwn)))
        out.append(("Details", f(detailOwn)))
        out.append(("Selected account", f(tokenActions)))
        return out
    }
}

extension SignInDialog {
    /// The text of a text field, nil for the provider and flow fields.
    public func text(of field: SignInField) -> String? {
        switch field {
        case .provider, .flow: nil
        case .scopes: extraScopes
        case .audience: audience
        case .resource: resource
        case .url: resourceURL
        }
    }
}
