@testable import AccountsScreen
import AppCore
import AuthEngine
import Foundation
import Synchronization
import TerminalUI
import Testing

@Suite("E: the Edit provider form from the keys (the same keys in the accessible mode)")
struct ProviderEditKeyTests {
    @Test("E on Alice opens her provider's form; typing edits the focused field, Delete empties it, the secret goes straight into its type; Esc closes")
    func keysEditTheForm() async {
        let store = makeStore(screenState([record("alice")]))
        store.send(.command(command(.char("E"), store.state)))
        await store.receive(.app(.providerEditOpen(local))) { $0.app.providerEditForm = ProviderEditForm(provider: localProvider) }
        let scopes = localProvider.scopes.joined(separator: " ")
        store.send(.command(command(.char("x"), store.state)))
        await store.receive(.app(.providerEditEdit(.setText(scopes + "x")))) { $0.app.providerEditForm?.apply(.setText(scopes + "x")) }
        store.send(.command(command(.delete, store.state)))
        await store.receive(.app(.providerEditEdit(.clear))) { $0.app.providerEditForm?.apply(.clear) }
        store.send(.command(command(.backTab, store.state)))
        await store.receive(.app(.providerEditEdit(.previousField))) { $0.app.providerEditForm?.focused = .clientSecret }
        store.send(.command(command(.char("s"), store.state)))
        await store.receive(.app(.providerEditEdit(.setSecret(ClientSecret("s"))))) { $0.app.providerEditForm?.clientSecret = ClientSecret("s") }
        #expect(AccessibleText.typesSecret(AccountsScreen.model(store.state)), "the accessible mode turns echo off here")
        #expect(!String(describing: AccountsScreen.model(store.state)).contains("\"s\""), "the model shows bullets only")
        store.send(.command(command(.escape, store.state)))
        await store.receive(.app(.providerEditClose)) { $0.app.providerEditForm = nil }
        await store.finish()
    }

    @Test("A failed probe in the form: the use case's facts, what to do (the issuer is not a field here), nothing changed, Enter and Esc")
    func probeFailureWorded() {
        var form = ProviderEditForm(provider: localProvider)
        form.error = "Provider 'local' not changed: its discovery document failed (DNS)"
        form.probeFailure = ProviderProbeFailure(url: "https://op.invalid/.well-known/openid-configuration", cause: .hostNotFound(host: "op.invalid"))
        #expect(ProviderEditMapping.message(form) == "Provider 'local' not changed: its discovery document failed (DNS). The host name op.invalid"
            + " does not resolve: check the issuer ('authdeck provider show local') for a typo, and your DNS or proxy (HTTPS_PROXY)."
            + " Nothing was changed; Enter tries again, Esc closes.")
        form.probeFailure = nil
        #expect(ProviderEditMapping.message(form) == form.error, "another refusal: the use case's message as it is")
    }

    @Test("Read-only: E says why it does nothing; the accessible mode's typed line replaces the prefilled field")
    func readOnlyAndAccessible() {
        var state = screenState([record("alice")])
        state.readOnly = true
        #expect(key(.char("E"), state) == .disabled("read-only mode: the provider cannot be changed"))
        state.readOnly = false
        state.app.providerEditForm = ProviderEditForm(provider: localProvider)
        let model = AccountsScreen.model(state)
        let typed = localProvider.scopes.joined(separator: " ").count
        #expect(AccessibleText.request("openid", model: model) == .keys(Array(repeating: .backspace, count: typed) + "openid".map { .char($0) }))
        #expect(AccessibleText.request("tab", model: model) == .keys([.tab]))
        #expect(AccessibleText.request("", model: model) == .keys([.enter]))
        let lines = AccessibleText.dialog(model.dialog!, now: t0)
        #expect(lines.contains { $0.hasPrefix("Scopes") } && lines.contains { $0.hasPrefix("Redirect port") }, "\(lines)")
    }
}
