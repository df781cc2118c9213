import AppCore
import AuthEngine
import FoundationEssentials
import TextSupport
// The parts of the screen state that only the UI cares about (selection, focus, tab, filter,
// help, reveal). The app may keep these in its own State instead; this is the ready-made reducer.

public struct LocalUIState: Equatable, Sendable {
    public var selection: AccountRow.ID?
    public var focus: Pane
    public var tab: DetailTab
    public var scroll: Int
    public var filter: FilterState
    public var helpVisible: Bool
    public var revealed: Bool

    public init(selection: AccountRow.ID? = nil, focus: Pane = .accounts, tab: DetailTab = .overview, scroll: Int = 0,
                filter: FilterState = FilterState(), helpVisible: Bool = false, revealed: Bool = false) {
        self.selection = selection
        self.focus = focus
        self.tab = tab
        self.scroll = scroll
        self.filter = filter
        self.helpVisible = helpVisible
        self.revealed = revealed
    }

    /// Keeps the selection on an existing account (by id): if the selected id vanished (or none
    /// was selected), selects the first visible account.
    public mutating func reconcile(visibleIDs: [AccountRow.ID]) {
        if let s = selection, visibleIDs.contains(s) { return }
        selection = visibleIDs.first
        scroll = 0
    }

    /// Applies a command that only changes UI state. Returns false for commands the app must
    /// handle itself (sign in, refresh, quit, dialogs, …).
    public mutating func apply(_ cmd: UICommand, visibleIDs: [AccountRow.ID]) -> Bool {
        switch cmd {
        case .moveSelection(let by):
            guard !visibleIDs.isEmpty else { return true }
            let cur = selection.flatMap { visibleIDs.firstIndex(of: $0) } ?? 0
            let next = min(visibleIDs.count - 1, max(0, cur + by))
            if visibleIDs[next] != selection { scroll = 0; revealed = false }
            selection = visibleIDs[next]
        case .select(let id):
            if id != selection { scroll = 0; revealed = false }
            selection = id
            focus = .accounts
        case .focus(let p): focus = p
        case .scrollDetail(let by): scroll = max(0, scroll + by)
        case .selectTab(let t): tab = t; scroll = 0
        case .nextTab: tab = tab.next; scroll = 0
        case .startFilter: filter.isEditing = true
        case .setFilter(let t): filter.text = t
        case .endFilter(let keep):
            filter.isEditing = false
            if !keep { filter.text = "" }
        case .toggleHelp: helpVisible.toggle()
        case .toggleReveal: revealed.toggle()
        default: return false
        }
        return true
    }

    /// Keeps the detail scroll within the content (see `Renderer.detailScrollLimit`).
    public mutating func clampScroll(limit: Int) {
        scroll = min(max(0, scroll), max(0, limit))
    }

    /// Copies this state into a model built by the app.
    public func applied(to model: ScreenModel) -> ScreenModel {
        var m = model
        m.selection = selection
        m.focus = focus
        m.filter = filter
        m.helpVisible = helpVisible
        if m.detail != nil {
            m.detail!.tab = tab
            m.detail!.scroll = scroll
        }
        return m
    }
}

extension SignInDialog {
    /// Applies a dialog-editing intent (`dialogMove`, `dialogNextField`, `dialogPreviousField`,
    /// `dialogToggleFlow`, `dialogSetText`). Returns false for other intents.
    public mutating func apply(_ cmd: UICommand) -> Bool {
        let fields = SignInField.allCases
        switch cmd {
        case .dialogMove(let by):
            let rows = providers.count + (addFromPreset ? 1 : 0)
            guard rows > 0 else { return true }
            selectedProvider = min(rows - 1, max(0, selectedProvider + by))
            if flow == .device && providers.indices.contains(selectedProvider) && !providers[selectedProvider].supportsDevice { flow = .browser }
        case .dialogNextField:
            focusedField = fields[(fields.firstIndex(of: focusedField)! + 1) % fields.count]
        case .dialogPreviousField:
            focusedField = fields[(fields.firstIndex(of: focusedField)! + fields.count - 1) % fields.count]
        case .dialogToggleFlow:
            let device = providers.indices.contains(selectedProvider) ? providers[selectedProvider].supportsDevice : false
            flow = (flow == .browser && device) ? .device : .browser
        case .dialogSetText(let text):
            switch focusedField {
            case .scopes: extraScopes = text
            case .audience: audience = text
            case .resource: resource = text
            case .provider, .flow: return true
            }
        default:
            return false
        }
        return true
    }

    /// Whether "Add a provider from a preset…" is the selected row.
    public var presetEntrySelected: Bool { addFromPreset && selectedProvider == providers.count }

    /// The request to start on submit; nil without a provider.
    public var request: SignInRequest? {
        guard providers.indices.contains(selectedProvider) else { return nil }
        let aud = audience.trimmingWhitespace()
        let resources = resource.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        return SignInRequest(providerID: ProviderID(providers[selectedProvider].id), flow: flow, extraScopes: ScopeSet(parsing: extraScopes).values,
                             audience: aud.isEmpty ? nil : aud, resources: resources)
    }
}
