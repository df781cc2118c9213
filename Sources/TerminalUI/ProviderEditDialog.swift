// The "Edit provider" form (AppCore's ProviderEditForm) as shown, its lines and its keys.
import AppCore
import FoundationEssentials
import TextSupport

/// The "Edit provider" form as shown (from AppCore's `ProviderEditForm`; the secret only as bullets).
public struct ProviderEditDialog: Equatable, Sendable {
    /// A field; its hint says the separator, the meaning and what empty does.
    public typealias Field = FormField<ProviderEditForm.Field>
    /// "demo (Local demo)".
    public var provider: String
    public var fields: [Field]
    public var focused: ProviderEditForm.Field
    public var error: String?
    public var submitting: Bool
    public init(provider: String, fields: [Field], focused: ProviderEditForm.Field, error: String? = nil, submitting: Bool = false) {
        self.provider = provider
        self.fields = fields
        self.focused = focused
        self.error = error
        self.submitting = submitting
    }
}

extension DialogContent {
    /// The form in at most `maxLines` lines: the provider, the fields, the error and the key hints
    /// always; the field hints when they fit.
    static func providerEdit(_ p: ProviderEditDialog, width: Int, maxLines: Int = .max) -> [Line] {
        func lines(hints: Bool) -> [Line] {
            let provider: Line = [.text(DisplayWidth.pad("Provider", to: 15), .text), .text(" " + Sanitizer.visible(p.provider), .title)]
            return [provider] + formFields(p.fields, focused: p.focused, submitting: p.submitting, error: p.error,
                                           keys: "Tab next field · Enter save · Esc close", width: width, hints: hints)
        }
        let full = lines(hints: true)
        return full.count <= maxLines ? full : lines(hints: false)
    }
}

extension KeyBindings {
    /// `E` on the selected account: the "Edit provider" form over its provider (not in read-only mode).
    static let editProvider = KeyBinding(
        keys: [.char("E")], description: "Edit the provider: scopes, hosts, port, secret",
        shortDescription: "edit provider", showInFooter: false,
        disabledReason: { m in
            m.readOnly ? "read-only mode: the provider cannot be changed" : m.selectedAccount == nil ? "no account selected" : nil
        }
    ) { m, _ in m.selectedAccount.map { UICommand.openProviderEdit($0.id) } }

    static let providerEdit: [KeyBinding] = [
        KeyBinding(keys: [.tab], description: "Next field", shortDescription: "next field") { _, _ in .providerEdit(.nextField) },
        KeyBinding(keys: [.backTab], description: "Previous field", shortDescription: "prev field",
                   showInFooter: false) { _, _ in .providerEdit(.previousField) },
        KeyBinding(keys: [.enter], description: "Save the change (after the provider's discovery probe); signed-in accounts stay",
                   shortDescription: "save") { _, _ in .providerEditSubmit },
        KeyBinding(keys: [.escape], description: "Close without changing the provider", shortDescription: "close") { _, _ in .cancel },
    ]

    /// A printable key, backspace or Delete (empties the field) in the form's focused field: its
    /// text edited (the secret's keys go to the app one by one, never into the model).
    static func providerEditText(_ key: KeyEvent, _ p: ProviderEditDialog) -> UICommand? {
        let text = p.fields.first { $0.kind == p.focused }?.value ?? ""
        switch (p.focused, key) {
        case (.clientSecret, .char(let c)): return .providerEditSecretKey(c)
        case (.clientSecret, .backspace): return .providerEditSecretKey(nil)
        case (_, .char(let c)): return .providerEdit(.setText(text + String(c)))
        case (_, .backspace): return .providerEdit(.setText(String(text.dropLast())))
        case (_, .delete): return .providerEdit(.clear)
        default: return nil
        }
    }
}
