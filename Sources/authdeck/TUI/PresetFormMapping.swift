import AppCore
import AuthEngine
import TerminalUI

/// AppCore's ``PresetForm`` → TerminalUI's ``PresetFormDialog``: labels and hints from the preset,
/// the client secret only as one bullet per character.
enum PresetFormMapping {
    static func dialog(_ form: PresetForm) -> PresetFormDialog {
        let preset = form.preset
        let fields = form.fields.map { kind -> PresetFormDialog.Field in
            switch kind {
            case .preset:
                return .init(kind: kind, label: "Preset", value: preset?.name ?? "")
            case .name:
                return .init(kind: kind, label: "Name", value: form.providerName, hint: "the provider's name in authdeck (authdeck login NAME)")
            case .domain:
                return .init(kind: kind, label: "Domain", value: form.domain, hint: hint(preset?.domain))
            case .tenant:
                return .init(kind: kind, label: "Tenant", value: form.tenant, hint: hint(preset?.tenant))
            case .clientID:
                return .init(kind: kind, label: "Client ID", value: form.clientID, hint: "registered at \(preset?.displayName ?? "the provider") (required)")
            case .clientSecret:
                return .init(kind: kind, label: "Client secret", value: String(repeating: "•", count: form.clientSecret.exposedValue.count),
                             hint: form.needsSecret ? "required: the preset's client authentication uses it; not echoed"
                                 : "optional (a confidential client); not echoed")
            }
        }
        return PresetFormDialog(choices: form.presets.map { .init(name: $0.name, displayName: $0.displayName) }, selected: form.selected,
                                fields: fields, focused: form.focused, error: form.error, submitting: form.submitting)
    }

    /// "the tenant domain, e.g. example.eu.auth0.com (required)".
    static func hint(_ parameter: ProviderPreset.Parameter?) -> String {
        guard let parameter else { return "" }
        var text = parameter.meaning
        if let example = parameter.example { text += ", e.g. \(example)" }
        if let value = parameter.defaultValue { text += " (default \(value))" } else if parameter.required { text += " (required)" }
        return text
    }
}
