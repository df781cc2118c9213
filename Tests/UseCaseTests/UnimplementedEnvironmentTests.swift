import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// The failing test values report every member a story did not set, by name: none fails silently.
@Suite("The failing test values (AppEnvironment.unimplemented, UseCaseClient.unimplemented)")
struct UnimplementedEnvironmentTests {
    @Test("Every defaulted edge of the environment reports its name when a story reaches it unset")
    func environmentEdgesReport() async {
        let reports = Mutex<[String]>([])
        let env = AppEnvironment.unimplemented { message in reports.withLock { $0.append(message) } }
        _ = try? env.readKeyFile("/tmp/AuthKey.p8")
        _ = try? env.crypto.generateKeyPair(.es256)
        _ = try? env.crypto.sign(JWSKeyPair(algorithm: .es256, publicKey: JWK(keyType: "EC"), privateKey: JWSPrivateKey("d")), Data())
        _ = try? env.crypto.readPKCS8P256(Data())
        _ = env.credentials.check()
        _ = try? env.credentials.moveAside(Date())
        _ = env.files.check(.accounts)
        _ = try? env.files.moveAside(.accounts, Date())
        _ = env.cache.check()
        env.cache.drop("/tmp/x.json")
        _ = env.clock.now
        _ = env.place.currentDirectory()
        _ = try? env.place.bindings()
        _ = env.git.run(["config"], nil)
        _ = env.presets()
        _ = env.events.configuration()
        _ = env.events.ledger()
        let record = AccountRecord(id: AccountID("op/alice"), providerID: "op", issuer: "https://op.test", subject: "alice", displayName: "alice",
                                   requestedScopes: [], grantedScopes: [], accessTokens: [], hasRefreshToken: true, signedInAt: Date(), storage: .vault)
        _ = env.events.notify(CheckLedger.told(.signedIn, record), 0)
        #expect(throws: AppError.self) { try env.events.updateLedger { _ in } }
        #expect(reports.withLock { $0 } == [
            "unimplemented: environment.readKeyFile",
            "unimplemented: environment.crypto.generateKeyPair",
            "unimplemented: environment.crypto.sign",
            "unimplemented: environment.crypto.readPKCS8P256",
            "unimplemented: environment.credentials.check",
            "unimplemented: environment.credentials.moveAside",
            "unimplemented: environment.files.check(accounts.json)",
            "unimplemented: environment.files.moveAside",
            "unimplemented: environment.cache.check",
            "unimplemented: environment.cache.drop",
            "unimplemented: environment.clock",
            "unimplemented: environment.place.currentDirectory",
            "unimplemented: environment.place.bindings",
            "unimplemented: environment.git.run(config)",
            "unimplemented: environment.presets",
            "unimplemented: environment.events.configuration",
            "unimplemented: environment.events.ledger",
            "unimplemented: environment.events.notify",
            "unimplemented: environment.events.updateLedger",
        ])
    }

    @Test("Every use case of UseCaseClient.unimplemented reports its name and fails")
    func useCasesReport() async {
        let reports = Mutex<[String]>([])
        let useCases = UseCaseClient.unimplemented { message in reports.withLock { $0.append(message) } }
        let id = AccountID("op/alice")
        _ = await useCases.load()
        _ = await useCases.saveActiveAccount(id)
        _ = await useCases.signIn(SignInRequest(providerID: "op")) { _ in }
        _ = await useCases.refresh(id, true) { _ in }
        #expect(await useCases.signOut(id, SignOutOptions()) { _ in } == .notRemoved)
        _ = await useCases.userinfo(id)
        _ = await useCases.introspect(id)
        _ = await useCases.accessToken(id) { _ in }
        _ = await useCases.storedTokens(id)
        guard case .failure = await useCases.addProvider(ProviderConfig(id: "op", issuer: URL(string: "https://op.test"), clientID: "c"), nil) else {
            Issue.record("addProvider succeeded")
            return
        }
        _ = await useCases.planResourceSignIn(ResourceSignInRequest(resourceURL: "https://mcp.example/mcp"))
        _ = await useCases.changeProvider("op", ProviderEditForm.Changes())
        #expect(reports.withLock { $0 } == ["load", "saveActiveAccount", "signIn", "refresh", "signOut", "userinfo", "introspect",
                                            "accessToken", "storedTokens", "addProvider", "planResourceSignIn", "changeProvider"]
                                            .map { "unimplemented: useCases.\($0)" })
    }
}
