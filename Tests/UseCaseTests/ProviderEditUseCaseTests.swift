import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

/// The accounts screen's "Edit provider" form reaches `provider set`'s decision: the live
/// ``UseCaseClient/changeProvider`` runs ``ProviderAdmin/change(_:clientSecret:probe:edit:)`` with the form's changes.
@Suite("The Edit provider form through the live use case (stub environment)")
struct ProviderEditUseCaseTests {
    @Test("A git host and scope typed in the form: probed, saved, the signed-in account kept; a refusal of the use case comes back unchanged")
    func formChangesThroughProviderAdmin() async throws {
        let world = StubWorld()
        _ = try await signedIn(world)
        let useCases = UseCaseClient(environment: world.environment())
        var form = ProviderEditForm(provider: world.provider.config)
        form.apply(.setText(world.provider.config.scopes.joined(separator: " ") + " repo"))
        for _ in 0..<3 { form.apply(.nextField) }
        form.apply(.setText("git.example"))
        let requestsBefore = world.provider.requests.withLock { $0.count }
        let change = try await useCases.changeProvider("op", form.changes()).get()
        #expect(change.accounts == 1 && change.after.gitHosts?.map(\.host) == ["git.example"] && change.after.scopes.last == "repo")
        #expect(world.files.withLock { $0.providers.first { $0.id == "op" } } == change.after)
        #expect(world.files.withLock { $0.accounts.map(\.id) } == [AccountID("op/alice")])
        #expect(world.provider.requests.withLock { $0.dropFirst(requestsBefore).map(\.url.path) } == ["/.well-known/openid-configuration"])
        // A public client given a secret becomes confidential, with the secret stored (as provider set --client-secret-stdin).
        var secret = ProviderEditForm(provider: change.after)
        secret.apply(.previousField)
        secret.apply(.setSecret(ClientSecret("s3cret")))
        let confidential = try await useCases.changeProvider("op", secret.changes()).get()
        #expect(confidential.secret == .replaced)
        #expect(try world.secrets.loadIfPresent(.providerClient("op"))?.clientSecret?.exposedValue == "s3cret")
        // The configuration's rules refuse a resource with a password; nothing changes.
        var bad = ProviderEditForm(provider: confidential.after)
        bad.apply(.nextField)
        bad.apply(.nextField)
        bad.apply(.setText("https://user:pw@api.example"))
        guard case .failure(let error) = await useCases.changeProvider("op", try bad.changes()) else {
            Issue.record("a resource with a password was saved")
            return
        }
        #expect(error.disposition == .usage && !error.description.contains("pw@"), "\(error.description)")
        #expect(world.files.withLock { $0.providers.first { $0.id == "op" } } == confidential.after)
    }
}
