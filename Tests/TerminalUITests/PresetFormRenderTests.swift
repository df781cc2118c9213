import AppCore
import Foundation
import Testing
@testable import TerminalUI

/// The form as AppCore's `PresetForm` gives it for Auth0 with a domain, client id and secret typed.
private func auth0Form(focused: PresetForm.Field = .domain, error: String? = nil, displayName: String = "Auth0") -> PresetFormDialog {
    PresetFormDialog(
        choices: [.init(name: "auth0", displayName: displayName), .init(name: "github", displayName: "GitHub"),
                  .init(name: "keycloak", displayName: "Keycloak")],
        selected: 0,
        fields: [
            .init(kind: .preset, label: "Preset", value: "auth0"),
            .init(kind: .name, label: "Name", value: "auth0", hint: "the provider's name in authdeck (authdeck login NAME)"),
            .init(kind: .domain, label: "Domain", value: "example.eu.auth0.com", hint: "the tenant domain, e.g. example.eu.auth0.com (required)"),
            .init(kind: .clientID, label: "Client ID", value: "abc123", hint: "registered at Auth0 (required)"),
            .init(kind: .clientSecret, label: "Client secret", value: "••••••", hint: "optional (a confidential client); not echoed"),
        ],
        focused: focused, error: error)
}

@Suite("The sign-in dialog's Add a provider from a preset form")
struct PresetFormRenderTests {
    let mono = BuiltInThemes.monochrome

    @Test("Golden: the Auth0 preset form with hints from the preset, the secret as bullets and the probe's refusal")
    func presetFormGolden() throws {
        let form = auth0Form(error: "Provider 'auth0' did not answer discovery: connection refused. Add --no-probe to add it anyway.")
        let f = Renderer.render(Fixtures.screen(dialog: .presetForm(form)), size: Size(width: 100, height: 30), theme: mono)
        #expect(f.plainText.contains("••••••"))
        try assertSnapshot(f, named: "presetForm")
    }

    @Test("At 80×24 with many presets and an error, every field, the error and the key hints stay on screen")
    func smallTerminalKeepsFieldsAndError() {
        var form = auth0Form(focused: .clientSecret, error: "Client ID: enter the client id the provider registered for authdeck.")
        form.choices += (1...12).map { .init(name: "p\($0)", displayName: "Preset \($0)") }
        let text = Renderer.render(Fixtures.screen(dialog: .presetForm(form)), size: Size(width: 80, height: 24), theme: mono).plainText
        for expected in ["Client secret", "Client ID", "Domain", "enter the client id", "Tab next field · Enter add · Esc back", "▸ auth0"] {
            #expect(text.contains(expected), "\(expected) is cut off:\n\(text)")
        }
    }

    @Test("The sign-in dialog ends with Add a provider from a preset…; Enter on it opens the form")
    func entryOpensTheForm() {
        let d = SignInDialog(providers: [ProviderOption(id: "local", name: "Local IdP")], selectedProvider: 1, addFromPreset: true)
        let text = Renderer.render(Fixtures.screen(dialog: .signIn(d)), size: Size(width: 100, height: 30), theme: mono).plainText
        #expect(text.contains("▸ Add a provider from a preset…"))
        #expect(KeyBindings.dispatch(.enter, model: Fixtures.screen(dialog: .signIn(d))) == .command(.openPresetForm))
        var moved = d
        _ = moved.apply(.dialogMove(by: -1))
        #expect(KeyBindings.dispatch(.enter, model: Fixtures.screen(dialog: .signIn(moved))) == .command(.dialogSubmit))
        let empty = SignInDialog(providers: [], addFromPreset: true)
        #expect(KeyBindings.dispatch(.enter, model: Fixtures.screen(dialog: .signIn(empty))) == .command(.openPresetForm),
                "with no provider configured the entry is the way in")
    }

    @Test("Keys: the secret field sends keys, never text; text fields append; arrows choose the preset; Esc backs out")
    func keys() {
        let m = { (f: PresetForm.Field) in Fixtures.screen(dialog: .presetForm(auth0Form(focused: f))) }
        #expect(KeyBindings.dispatch(.char("x"), model: m(.clientSecret)) == .command(.presetFormSecretKey("x")))
        #expect(KeyBindings.dispatch(.backspace, model: m(.clientSecret)) == .command(.presetFormSecretKey(nil)))
        #expect(KeyBindings.dispatch(.char("9"), model: m(.clientID)) == .command(.presetFormEdit(.setText("abc1239"))))
        #expect(KeyBindings.dispatch(.down, model: m(.preset)) == .command(.presetFormEdit(.move(by: 1))))
        #expect(KeyBindings.dispatch(.tab, model: m(.preset)) == .command(.presetFormEdit(.nextField)))
        #expect(KeyBindings.dispatch(.enter, model: m(.domain)) == .command(.presetFormSubmit))
        #expect(KeyBindings.dispatch(.escape, model: m(.domain)) == .command(.cancel))
        #expect(KeyBindings.helpSections(for: m(.preset)).first?.title == "Add a provider from a preset")
    }

    @Test("Text from a preset file is escaped before the terminal")
    func presetTextEscaped() {
        let form = auth0Form(displayName: "Evil\u{1B}]52;c;AAAA\u{07}Corp")
        let text = Renderer.render(Fixtures.screen(dialog: .presetForm(form)), size: Size(width: 100, height: 30), theme: mono).plainText
        #expect(!text.contains("\u{1B}") && !text.contains("\u{07}"))
    }
}
