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
                return .init(kind: kind, label: PresetForm.label(.domain), value: form.domain, hint: hint(preset?.domain))
            case .tenant:
                return .init(kind: kind, label: PresetForm.label(.tenant), value: form.tenant, hint: hint(preset?.tenant))
            case .audience:
                return .init(kind: kind, label: PresetForm.label(.audience), value: form.audience, hint: hint(preset?.audience))
            case .clientID:
                return .init(kind: kind, label: "Client ID", value: form.clientID,
                             hint: "registered at \(preset?.displayName ?? "the provider") (required)")
            case .clientSecret:
                return .init(kind: kind, label: "Client secret", value: String(repeating: "•", count: form.clientSecret.exposedValue.count),
                             hint: form.needsSecret ? "required: the preset's client authentication uses it; not echoed"
                                 : "optional (a confidential client); not echoed")
            }
        }
        return PresetFormDialog(choices: form.presets.map { .init(name: $0.name, displayName: $0.displayName) }, selected: form.selected,
                                fields: fields, focused: form.focused, error: message(form), submitting: form.submitting)
    }

    /// The form's refusal and, for a failed discovery probe, what to do in the form's terms (its
    /// fields, never a command-line option).
    static func message(_ form: PresetForm) -> String? {
        guard let error = form.error else { return nil }
        guard let probe = form.probeFailure else { return error }
        // The fields the preset builds the issuer from.
        let names = form.fields.compactMap { field -> String? in
            field == .domain ? PresetForm.label(.domain) : field == .tenant ? PresetForm.label(.tenant) : nil
        }
        let check = names.isEmpty ? "the preset" : "the \(names.joined(separator: " and ")) field\(names.count > 1 ? "s" : "")"
        let facts = error.hasSuffix(".") ? error : error + "."
        return facts + " " + advice(probe.cause, check: check) + " Nothing was added; Enter tries again, Esc goes back."
    }

    /// What to do about a failed discovery probe in a form's words; `check` names what the issuer
    /// came from ("the Domain field").
    static func advice(_ cause: ProviderProbeFailure.Cause, check: String) -> String {
        switch cause {
        case .hostNotFound(let host): "The host name \(host) does not resolve: check \(check) for a typo, and your DNS or proxy (HTTPS_PROXY)."
        case .noConnection(let host): "Nothing accepted a connection at \(host): check \(check), and your proxy (HTTPS_PROXY, NO_PROXY)."
        case .timeout: "Check the network, a firewall or your proxy."
        case .tls: "The certificate is not trusted: for a private CA set SSL_CERT_FILE to its PEM bundle before starting authdeck."
        case .interrupted: "Try again with Enter; if it persists, check a proxy in between."
        case .tooLarge, .notJSON, .httpStatus, .invalidDocument: "This is not the provider's discovery document: check \(check)."
        case .plainHTTP: "Only loopback addresses may use http."
        case .cancelled: "The check was interrupted."
        case .issuerMismatch(let published, _): "The document names the issuer '\(published)': check \(check)."
        }
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
