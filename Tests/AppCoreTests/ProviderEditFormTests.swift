import AppCore
import AuthEngine
import Foundation
import Secrets
import StoreTesting
import Synchronization
import Testing

/// The provider `demo` with one signed-in account, as loaded.
private let demo: ProviderConfig = {
    var config = ProviderConfig(id: "demo", displayName: "Local demo", issuer: URL(string: "https://op.test"), clientID: "cli")
    config.scopes = ["openid", "profile"]
    config.gitHosts = [CredentialHost(host: "git.test", username: "x-access-token")]
    return config
}()

private func editState() -> AppState {
    var state = loadedState([record("alice")])
    state.providers = [demo]
    return state
}

/// The form over `demo` after `edits`.
private func form(_ edits: [ProviderEditForm.Edit]) -> ProviderEditForm {
    var form = ProviderEditForm(provider: demo)
    for edit in edits { form.apply(edit) }
    return form
}

@Suite("The accounts screen's Edit provider form (ProviderEditForm, AppReducer)")
struct ProviderEditFormTests {
    @Test("Parsing: lists split on spaces as provider set's --scope; only fields edited change; a host kept keeps its username; bad input names the field")
    func parsing() throws {
        #expect(try form([]).changes().isEmpty, "nothing typed: nothing changes")
        #expect(try form([.setText("  openid profile ")]).changes().isEmpty, "the same text, spaced otherwise: unchanged")
        let edited = try form([.setText("openid  email"), .nextField, .nextField, .setText("https://api.test https://b.test"),
                               .nextField, .setText("GIT.test github.com")]).changes()
        #expect(edited.scopes == ["openid", "email"] && edited.audience == nil)
        #expect(edited.resources == ["https://api.test", "https://b.test"])
        #expect(edited.gitHosts == [CredentialHost(host: "git.test", username: "x-access-token"), CredentialHost(host: "github.com")])
        #expect(edited.registries == nil && edited.redirectPort == nil && edited.clientSecret == nil)
        let moved = [ProviderEditForm.Edit](repeating: .nextField, count: 5)
        #expect(try form(moved + [.setText("8765")]).changes().redirectPort == .fixed(8765))
        #expect(try form(moved + [.setText("8765"), .clear]).changes().isEmpty, "Delete empties the field: as prefilled (no port)")
        for (text, problem) in [("80", "Redirect port 80 cannot be told apart from no port"), ("70000", "Redirect port must be a port from 1 to 65535")] {
            #expect(throws: AppError.self) { try form(moved + [.setText(text)]).changes() }
            do { _ = try form(moved + [.setText(text)]).changes() } catch { #expect(error.title.hasPrefix(problem), "\(error.title)") }
        }
        do {
            _ = try form([.nextField, .nextField, .nextField, .nextField, .setText("ghcr.io evil.test/x")]).changes()
            Issue.record("a registry with a path was taken")
        } catch {
            #expect(error.title.hasPrefix("Registries: 'evil.test/x' is not a host name") && error.disposition == .usage, "\(error.title)")
        }
        let secret = try form(moved + [.nextField, .setSecret(ClientSecret(" s3cret\n"))]).changes()
        #expect(secret.clientSecret == ClientSecret("s3cret") && !secret.isEmpty)
        // Applied to the provider as saved: an audience emptied is none; a secret given makes a public client confidential.
        var config = demo
        config.audience = "https://old.test"
        var changes = ProviderEditForm.Changes()
        (changes.audience, changes.clientSecret) = ("", ClientSecret("s"))
        try changes.apply(to: &config)
        #expect(config.audience == nil && config.clientAuthentication == .clientSecretBasic)
        changes = ProviderEditForm.Changes()
        changes.resources = ["https://user:pw@api.test"]
        #expect(throws: AppError.self, "a resource with a password (the configuration's rules)") { try changes.apply(to: &config) }
    }

    @Test("E's action opens the form prefilled from the provider as loaded; edits and Tab change only the form")
    func openPrefilled() {
        let store = makeStore(editState(), session: .unimplemented(reportIssue))
        store.send(.providerEditOpen("demo")) { $0.providerEditForm = ProviderEditForm(provider: demo) }
        let form = store.state.providerEditForm
        #expect(form?.text(of: .scopes) == "openid profile" && form?.text(of: .gitHosts) == "git.test" && form?.text(of: .audience) == "")
        #expect(form?.text(of: .redirectPort) == "" && form?.text(of: .clientSecret) == nil && form?.focused == .scopes)
        store.send(.providerEditEdit(.setText("openid profile email"))) { $0.providerEditForm?.apply(.setText("openid profile email")) }
        store.send(.providerEditEdit(.previousField)) { $0.providerEditForm?.focused = .clientSecret }
        store.send(.providerEditOpen("gone")) {
            $0.flash = Flash(level: .warn, text: "No provider 'gone' any more: see 'authdeck provider list'", expiresAt: t0.addingTimeInterval(6))
        }
    }

    @Test("Submit goes to changeProvider with the fields edited; success updates the providers and flashes what changed")
    func submitSuccess() async {
        let seen = Mutex<(ProviderID, ProviderEditForm.Changes)?>(nil)
        var changed = demo
        changed.scopes = ["openid", "profile", "email"]
        let change = ProviderAdmin.Change(before: demo, after: changed, secret: .kept, accounts: 1)
        var session = UseCaseClient.unimplemented(reportIssue)
        session.changeProvider = { id, changes in seen.withLock { $0 = (id, changes) }; return .success(change) }
        var state = editState()
        state.providerEditForm = form([.setText("openid profile email")])
        let store = makeStore(state, session: session)
        store.send(.providerEditSubmit) { $0.providerEditForm?.submitting = true }
        await store.receive(.providerEditFinished(.success(change))) {
            $0.providerEditForm = nil
            $0.providers = [changed]
            $0.flash = Flash(level: .info, text: "Changed provider 'demo': scopes (1 signed-in account kept; applies from the next sign-in or refresh)",
                             expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
        #expect(seen.withLock { $0?.0 } == "demo")
        #expect(seen.withLock { $0?.1.scopes } == ["openid", "profile", "email"] && seen.withLock { $0?.1.gitHosts } == nil)
    }

    @Test("A refusal (the use case's, or the form's own) keeps the fields and shows the message in the form; nothing typed is refused without a call")
    func refusalKeepsFields() async {
        let refusal = AppError(title: "Provider 'demo' not changed: its resources would be https://b.test, not the resource https://a.test it was made for",
                               detail: "It was made by 'authdeck login https://a.test' for that resource (RFC 9728).", disposition: .usage)
        var session = UseCaseClient.unimplemented(reportIssue)
        session.changeProvider = { _, _ in .failure(refusal) }
        var state = editState()
        state.providerEditForm = form([.nextField, .nextField, .setText("https://b.test")])
        let store = makeStore(state, session: session)
        store.send(.providerEditSubmit) { $0.providerEditForm?.submitting = true }
        await store.receive(.providerEditFinished(.failure(refusal))) {
            $0.providerEditForm?.submitting = false
            $0.providerEditForm?.error = refusal.description
        }
        #expect(store.state.providerEditForm?.text(of: .resources) == "https://b.test")
        #expect(store.state.providers == [demo])
        store.send(.providerEditEdit(.setText(""))) { $0.providerEditForm?.apply(.setText("")) }
        store.send(.providerEditSubmit) { $0.providerEditForm?.error = "Nothing changed: edit a field (Tab moves between them), or Esc to close" }
        store.send(.providerEditEdit(.nextField)) { $0.providerEditForm?.focused = .gitHosts }
        store.send(.providerEditEdit(.setText("a b/c"))) { $0.providerEditForm?.apply(.setText("a b/c")) }
        store.send(.providerEditSubmit) {
            $0.providerEditForm?.error = "Git hosts: 'b/c' is not a host name (github.com, gitlab.example.com:8443, *.gcr.io)"
        }
        await store.finish()
    }

    @Test("Esc while the change runs: the form closes and the use case's effect is cancelled (its result, if any, ignored)")
    func escapeCancels() async {
        let started = Gate()
        var session = UseCaseClient.unimplemented(reportIssue)
        session.changeProvider = { _, _ in
            started.open()
            do { try await Task.sleep(for: .seconds(30)) } catch { return .failure(.cancelled) }
            return .failure(AppError(title: "not cancelled"))
        }
        var state = editState()
        state.providerEditForm = form([.setText("openid")])
        let store = makeStore(state, session: session)
        store.send(.providerEditSubmit) { $0.providerEditForm?.submitting = true }
        await started.wait()
        #expect(store.isRunning(EffectIDs.changeProvider))
        store.send(.providerEditClose) { $0.providerEditForm = nil }
        #expect(!store.isRunning(EffectIDs.changeProvider))
        await store.finish()
        #expect(store.state.providers == [demo])
    }
}
