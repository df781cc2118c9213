// The text fields the preset and provider forms share: the model of one as shown, and their lines.
import AppCore
import FoundationEssentials
import TextSupport

/// A text field of a form dialog as shown: its label, the text typed (a secret: one bullet per
/// character) and what to enter.
public struct FormField<Kind: Equatable & Sendable>: Equatable, Sendable {
    public var kind: Kind
    public var label: String
    public var value: String
    /// What to enter (meaning, separator, example, what empty does).
    public var hint: String
    public init(kind: Kind, label: String, value: String, hint: String = "") {
        self.kind = kind
        self.label = label
        self.value = value
        self.hint = hint
    }
}

extension DialogContent {
    /// A form's text fields (each with its hint below when `hints`), a blank line, "checking…" while it
    /// is submitted or its refusal, and its keys: the lines shared by the preset and provider forms.
    static func formFields<Kind>(_ fields: [FormField<Kind>], focused: Kind, submitting: Bool, error: String?, keys: String,
                                 width: Int, hints: Bool) -> [Line] {
        var out: [Line] = []
        for field in fields {
            out.append(input(field.label, field.value, focused: focused == field.kind, width: width))
            if hints, !field.hint.isEmpty {
                for chunk in DetailContent.wrapWords(Sanitizer.visible(field.hint), width: max(20, width - 16)) {
                    out.append([.text(String(repeating: " ", count: 16) + chunk, .textDim)])
                }
            }
        }
        out.append([])
        if submitting {
            out.append([.text("Checking the provider's discovery document…", .statusRefreshing)])
        } else if let error {
            for chunk in DetailContent.wrapWords(Sanitizer.visible(error), width: max(20, width)) { out.append([.text(chunk, .statusError)]) }
        }
        out.append([.text(keys, .textDim)])
        return out
    }
}
