import AppCore
import AuthEngine
import FoundationEssentials
import TextSupport
// The sign-in dialog's editing: provider choice, field focus, flow toggle, text fields.

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
            case .url: resourceURL = text
            case .provider, .flow: return true
            }
        default:
            return false
        }
        return true
    }

    /// Whether "Add a provider from a preset…" is the selected row.
    public var presetEntrySelected: Bool { addFromPreset && selectedProvider == providers.count }

    /// A resource sign-in (the URL field filled in), with the extra scopes; nil otherwise.
    public var resourceRequest: ResourceSignInRequest? {
        let url = resourceURL.trimmingWhitespace()
        guard !url.isEmpty else { return nil }
        return ResourceSignInRequest(resourceURL: url, extraScopes: ScopeSet(parsing: extraScopes).values)
    }

    /// The request to start on submit; nil without a provider.
    public var request: SignInRequest? {
        guard providers.indices.contains(selectedProvider) else { return nil }
        let aud = audience.trimmingWhitespace()
        let resources = resource.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        return SignInRequest(providerID: providers[selectedProvider].id, flow: flow, extraScopes: ScopeSet(parsing: extraScopes).values,
                             audience: aud.isEmpty ? nil : aud, resources: resources)
    }
}
