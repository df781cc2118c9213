// AppCore's store driving the live dependencies (AppCoreLive) against the real local provider:
// sign-in through the browser stand-in as $BROWSER, a manual refresh (rotation persisted), and
// sign-out with revocation and end of the provider session, each step reported. The revoked
// access token is then checked at the provider's introspection endpoint.
import AppCore
import AppCoreLive
import AuthEngine
import AuthEngineLive
import CredentialStoreLive
import Foundation
import Testing
import TestSupport

/// A throw-away XDG home with a vault whose passphrase comes from a 0600 file.
struct TemporaryHome {
    let root: URL
    let environment: [String: String]

    init(provider: LocalIdentityProvider, user: String = "alice", extra: [String: String] = [:]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let passphrase = root.appendingPathComponent("passphrase")
        _ = FileManager.default.createFile(atPath: passphrase.path, contents: Data("test vault passphrase".utf8), attributes: [.posixPermissions: 0o600])
        var environment = [
            "HOME": root.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_STATE_HOME": root.appendingPathComponent("state").path,
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_RUNTIME_DIR": root.appendingPathComponent("run").path,
            "AUTHDECK_STORE": "vault", "AUTHDECK_PASSPHRASE_FILE": passphrase.path,
            // A vault the binary makes here uses Argon2id's minimum limits (the moderate ones cost
            // 0.5 s and 256 MiB each, and what they cost is not what these tests test).
            "AUTHDECK_TEST_MINIMUM_KDF_PASSPHRASE_FILE": passphrase.path,
            "LANG": "C.UTF-8", "no_proxy": "127.0.0.1,localhost,::1",
        ]
        environment.merge(provider.browserEnvironment(user: user), uniquingKeysWith: { $1 })
        environment.merge(extra, uniquingKeysWith: { $1 })
        self.environment = environment
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

func waitUntil(_ timeout: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

@Suite("AppCore with live dependencies against the real local provider")
struct AppCoreLiveTests {
    @Test("Sign-in (browser), refresh, sign-out with revocation and end session, through the store")
    func signInRefreshSignOut() async throws {
        let idp = try await LocalIdentityProvider.shared.provider()
        let home = try TemporaryHome(provider: idp)
        defer { home.remove() }
        let env = AppEnvironment.live(processEnvironment: home.environment, vaultLimits: .minimum)
        try env.files.saveProvider(ProviderConfig(id: "local", displayName: "Local demo", issuer: idp.issuer, clientID: idp.nativeClient.clientID))

        let store = Store(initialState: AppState(now: Date()), reduce: AppReducer(dependencies: AppDependencies(useCases: UseCaseClient(environment: env))).reduce)
        store.send(.start)
        #expect(await waitUntil { store.state.load == .loaded })
        #expect(store.state.credentialStore.backend == .vault)
        #expect(store.state.providers.map(\.id) == ["local"])

        store.send(.signIn(SignInRequest(providerID: "local")))
        #expect(await waitUntil(60) { store.state.signIn == nil && store.state.accounts.count == 1 }, "sign-in: \(String(describing: store.state.signIn))")
        let account = try #require(store.state.accounts.first)
        #expect(account.record.displayName == "Alice Example")
        #expect(account.record.username == "alice")
        #expect(account.record.storage == .vault)
        #expect(store.state.activeAccountID == account.id)
        guard case .verified(let algorithm, let keyID)? = account.record.idToken?.signature else {
            Issue.record("ID token not verified: \(String(describing: account.record.idToken?.signature))")
            return
        }
        #expect(algorithm == "RS256" && keyID != nil)

        // A fresh process (a second live environment on the same files) sees the account and its tokens.
        let before = try await TokenForScripts(.live(processEnvironment: home.environment)).accessToken(account.id, minimumValidity: .zero)

        store.send(.refresh(account.id, force: true))
        #expect(await waitUntil { store.state.accounts.first?.record.lastRefreshAt != nil && store.state.accounts.first?.refresh == .idle })
        let after = try await TokenForScripts(.live(processEnvironment: home.environment)).accessToken(account.id, minimumValidity: .zero)
        #expect(after.value != before.value, "the refreshed access token was persisted")

        store.send(.signOut(account.id, SignOutOptions(endSession: true)))
        #expect(await waitUntil(60) { store.state.signOut?.finished == true })
        let steps = store.state.signOut?.steps ?? []
        #expect(steps.map(\.step) == [.revokeRefreshToken, .revokeAccessToken, .deleteLocalSecrets, .endSession])
        for step in steps {
            guard case .done = step.outcome else {
                Issue.record("step \(step.step.rawValue) did not complete: \(step.outcome)")
                continue
            }
        }
        #expect(store.state.accounts.isEmpty)
        #expect(store.state.activeAccountID == nil)

        // RFC 7662: the provider reports the revoked access token as inactive.
        let http = CurlHTTPClient.live()
        let metadata = try await fetchMetadata(issuer: idp.issuer.absoluteString, http: http)
        let introspection = try await introspectToken(metadata: metadata, client: ClientConfiguration(clientID: idp.nativeClient.clientID),
                                                      token: .accessToken(after.value), http: http, now: Date())
        #expect(introspection.active == false)
    }
}

@Suite("A grant revoked elsewhere")
struct RevokedGrantTests {
    @Test("RFC 6749 §5.2: after invalid_grant every process shows needs sign-in; 'authdeck status' exits 3")
    func invalidGrantIsPersisted() async throws {
        let idp = try await LocalIdentityProvider.shared.provider()
        let home = try TemporaryHome(provider: idp)
        defer { home.remove() }
        let env = AppEnvironment.live(processEnvironment: home.environment, vaultLimits: .minimum)
        try env.files.saveProvider(ProviderConfig(id: "local", issuer: idp.issuer, clientID: idp.nativeClient.clientID))
        let record = try await SignIn(env).run(SignInRequest(providerID: "local"), progress: { _ in }).record

        // The refresh token is revoked behind authdeck's back (RFC 7009).
        let refreshToken = try #require(StoredTokens(env).run(record.id).first { $0.label == "refresh token" }?.value.exposedValue)
        let http = CurlHTTPClient.live()
        let metadata = try await fetchMetadata(issuer: idp.issuer.absoluteString, http: http)
        let client = ClientConfiguration(clientID: idp.nativeClient.clientID)
        let revoked = try processRevocationResponse(
            try await http.send(try makeRevocationRequest(metadata: metadata, client: client, token: .refreshToken(RefreshToken(refreshToken)))), now: Date())
        #expect(revoked == .revoked)

        let refresh = await UseCaseClient(environment: env).refresh(record.id, true) { _ in }
        guard case .failure(let error) = refresh else {
            Issue.record("refresh with a revoked grant succeeded")
            return
        }
        #expect(error.disposition == .needsSignIn)
        let reloaded = try #require(try LoadAccounts(.live(processEnvironment: home.environment)).run().accounts.first)
        #expect(reloaded.needsSignInSince != nil)
        #expect(AccountState(record: reloaded).status(now: Date(), policy: .standard, storeLocked: false) == .needsSignIn)
        let status = try await runAuthdeck(["status"], environment: home.environment)
        #expect(status.status == 3, "status: \(status.stderr)")
    }
}
