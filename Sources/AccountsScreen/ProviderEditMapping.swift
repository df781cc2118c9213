import AppCore
import AuthEngine
import TerminalUI

/// AppCore's ``ProviderEditForm`` → TerminalUI's ``ProviderEditDialog``: labels and hints from the
/// form, the client secret only as one bullet per character.
enum ProviderEditMapping {
    static func dialog(_ form: ProviderEditForm) -> ProviderEditDialog {
        let fields = ProviderEditForm.Field.allCases.map { kind in
            ProviderEditDialog.Field(kind: kind, label: ProviderEditForm.label(kind),
                                     value: form.text(of: kind) ?? String(repeating: "•", count: form.clientSecret.exposedValue.count),
                                     hint: ProviderEditForm.hint(kind))
        }
        let name = form.displayName.utf8.elementsEqual(form.providerID.rawValue.utf8) ? form.displayName
            : "\(form.providerID.rawValue) (\(form.displayName))"
        return ProviderEditDialog(provider: name, fields: fields, focused: form.focused, error: message(form), submitting: form.submitting)
    }

    /// The refusal and, for a failed discovery probe, what to do (as the preset form says it; the
    /// issuer is not a field here), that nothing changed and what Enter and Esc do.
    static func message(_ form: ProviderEditForm) -> String? {
        guard let error = form.error else { return nil }
        guard let probe = form.probeFailure else { return error }
        let facts = error.hasSuffix(".") ? error : error + "."
        let advice = PresetFormMapping.advice(probe.cause, check: "the issuer ('authdeck provider show \(form.providerID.rawValue)')")
        return facts + " " + advice + " Nothing was changed; Enter tries again, Esc closes."
    }
}
