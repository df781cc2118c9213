import AppCore
import AuthEngine
import Foundation
import Secrets
import Synchronization
import Testing

/// The state with the built-in presets, loaded, and the sign-in dialog's preset form open on `preset`.
private func formState(_ preset: String) -> AppState {
    var state = loadedState([])
    state.presets = PresetCatalog.builtIn.entries.map(\.preset)
    var form = PresetForm(presets: state.presets)
    form.apply(.move(by: state.presets.firstIndex { $0.name == preset }!))
    state.presetForm = form
    return state
}

@Suite("The sign-in dialog's Add a provider from a preset form")
struct PresetFormReducerTests {
    @Test("The fields follow the preset's data: Auth0 asks for Domain and Audience, Keycloak for Domain and Tenant, GitHub for neither")
    func fieldsFollowThePreset() {
        let presets = PresetCatalog.builtIn.entries.map(\.preset)
        var form = PresetForm(presets: presets)
        func fields(_ name: String) -> [PresetForm.Field] {
            form.apply(.move(by: -100))
            form.apply(.move(by: presets.firstIndex { $0.name == name }!))
            return form.fields
        }
        #expect(fields("auth0") == [.preset, .name, .domain, .audience, .clientID, .clientSecret])
        #expect(fields("keycloak") == [.preset, .name, .domain, .tenant, .clientID, .clientSecret])
        #expect(fields("github") == [.preset, .name, .clientID, .clientSecret])
        #expect(form.providerName == "github")
        #expect(!form.needsSecret)
        _ = fields("apple")
        #expect(form.needsSecret, "Apple's client authentication is client_secret_post")
    }

    @Test("Opening without presets flashes instead of an empty form")
    func openWithoutPresets() {
        let store = makeStore(loadedState([]), session: .unimplemented(reportIssue))
        store.send(.presetFormOpen) { $0.flash = Flash(level: .warn, text: "No preset available: see 'authdeck provider presets'", expiresAt: t0.addingTimeInterval(6)) }
    }

    @Test("Auth0 without a domain: the form names its Domain field and what goes there (no command-line option), keeps the fields, calls nothing")
    func auth0MissingDomain() {
        let store = makeStore(formState("auth0"), session: .unimplemented(reportIssue))
        store.send(.presetFormEdit(.nextField)) { $0.presetForm?.focused = .name }
        store.send(.presetFormEdit(.nextField)) { $0.presetForm?.focused = .domain }
        store.send(.presetFormEdit(.nextField)) { $0.presetForm?.focused = .audience }
        store.send(.presetFormEdit(.setText("https://api.test"))) { $0.presetForm?.audience = "https://api.test" }
        store.send(.presetFormEdit(.nextField)) { $0.presetForm?.focused = .clientID }
        store.send(.presetFormEdit(.setText("abc123"))) { $0.presetForm?.clientID = "abc123" }
        store.send(.presetFormSubmit) {
            $0.presetForm?.error = "Domain: enter the tenant domain, e.g. example.eu.auth0.com"
        }
        #expect(store.state.presetForm?.error?.contains("--") == false)
    }

    @Test("Nothing typed: the first field missing in the form's order is named (Domain before Client ID)")
    func missingFieldsInFormOrder() {
        let store = makeStore(formState("auth0"), session: .unimplemented(reportIssue))
        store.send(.presetFormSubmit) { $0.presetForm?.error = "Domain: enter the tenant domain, e.g. example.eu.auth0.com" }
    }

    @Test("Apple without a client secret: refused before any request")
    func appleNeedsSecret() {
        var state = formState("apple")
        state.presetForm?.clientID = "com.example.services"
        let store = makeStore(state, session: .unimplemented(reportIssue))
        store.send(.presetFormSubmit) { $0.presetForm?.error = "Client secret: Sign in with Apple authenticates the client; enter its secret" }
    }

    @Test("Auth0 added through the use case: the provider from the preset, the secret redacting, the dialog selects it")
    func auth0Added() async throws {
        let seen = Mutex<(ProviderConfig, ClientSecret?)?>(nil)
        var session = UseCaseClient.unimplemented(reportIssue)
        session.addProvider = { config, secret in seen.withLock { $0 = (config, secret) }; return .success(config) }
        var state = formState("auth0")
        state.presetForm?.domain = "https://example.eu.auth0.com/"
        state.presetForm?.clientID = "abc123"
        state.presetForm?.focused = .clientSecret
        let store = makeStore(state, session: session)
        store.send(.presetFormEdit(.setSecret(ClientSecret("s3cr3t-value")))) { $0.presetForm?.clientSecret = ClientSecret("s3cr3t-value") }
        #expect(!String(describing: store.state).contains("s3cr3t-value"), "the secret never shows in the state's description")
        store.send(.presetFormSubmit) { $0.presetForm?.submitting = true }
        let expected = try PresetCatalog.builtIn.preset(named: "auth0")!.makeProvider(id: "auth0", clientID: "abc123", domain: "example.eu.auth0.com", tenant: nil)
        var confidential = expected
        confidential.clientAuthentication = .clientSecretBasic
        await store.receive(.presetFormFinished(.success(confidential))) {
            $0.presetForm = nil
            $0.providers = [confidential]
            $0.flash = Flash(level: .info, text: "Added provider 'auth0': sign in with Enter", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
        #expect(seen.withLock { $0?.0.issuer?.absoluteString } == "https://example.eu.auth0.com/")
        #expect(seen.withLock { $0?.1 } == ClientSecret("s3cr3t-value"))
    }

    @Test("A failed discovery probe: the use case's facts in the form (what to do is the front end's), the fields kept for another try")
    func probeFailureKeepsFields() async {
        let refusal = {
            var error = AppError(title: "Provider 'github' not added: its discovery document failed (connect)",
                                 detail: "GET https://op.test/.well-known/openid-configuration: Couldn't connect to server")
            error.probe = ProviderProbeFailure(url: "https://op.test/.well-known/openid-configuration", cause: .noConnection(host: "op.test"))
            return error
        }()
        var session = UseCaseClient.unimplemented(reportIssue)
        session.addProvider = { _, _ in .failure(refusal) }
        var state = formState("github")
        state.presetForm?.clientID = "Iv1.abc"
        let store = makeStore(state, session: session)
        store.send(.presetFormSubmit) { $0.presetForm?.submitting = true }
        await store.receive(.presetFormFinished(.failure(refusal))) {
            $0.presetForm?.submitting = false
            $0.presetForm?.error = refusal.description
            $0.presetForm?.probeFailure = refusal.probe
        }
        #expect(store.state.presetForm?.clientID == "Iv1.abc")
        store.send(.presetFormClose) { $0.presetForm = nil }
        await store.finish()
    }
}
