// Machine accounts (client credentials, RFC 6749 §4.4) against real servers, in
// process with the live environment: the bundled django-oauth-toolkit for client secrets, and
// Tests/ProviderEmulators/machine.py (Authlib's JOSE verifying RFC 7523 assertions) for
// private_key_jwt, whose refusals (reused jti, wrong aud, expired assertion, bad signature) are
// each provoked here.
import AppCore
import AppCoreLive
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing
import TestSupport

/// The machine emulator, started with `registered` clients (client id → public JWK text).
private struct MachineEmulator {
    let process: FixtureProcess
    let issuer: URL
    let directory: URL
    /// The Actions stand-in's `ACTIONS_ID_TOKEN_REQUEST_URL` and `_TOKEN` (a fixture value).
    var actionsRequestURL = ""
    var actionsRequestToken = FixtureSecret("")

    static func start(registered: [String: String], audience: String = "token_endpoint",
                      federatedClients: [String] = [], exchangeTargets: [String] = []) async throws -> MachineEmulator {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-machine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var arguments = [LocalIdentityProvider.directory.deletingLastPathComponent().appendingPathComponent("ProviderEmulators/machine.py").path,
                         "--parent-pid", "\(getpid())", "--audience", audience]
        for (client, jwk) in registered {
            let file = directory.appendingPathComponent("\(client).jwk")
            try Data(jwk.utf8).write(to: file)
            arguments += ["--register", "\(client)=\(file.path)"]
        }
        for client in federatedClients { arguments += ["--federated-client", client] }
        for target in exchangeTargets { arguments += ["--exchange-target", target] }
        let process = try FixtureProcess.spawn(executable: LocalIdentityProvider.pythonPath, arguments: arguments, environment: [:])
        let line = try await process.readFirstLine(timeout: .seconds(20))
        let ready = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let issuer = try #require(ready["issuer"] as? String)
        var emulator = MachineEmulator(process: process, issuer: try #require(URL(string: issuer)), directory: directory)
        emulator.actionsRequestURL = try #require(ready["actions_request_url"] as? String)
        emulator.actionsRequestToken = FixtureSecret(try #require(ready["actions_request_token"] as? String))
        return emulator
    }

    func stop() async {
        _ = await process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `GET /stats`: tokens issued and the refusals' reasons, through the live HTTP client.
    func stats(_ env: AppEnvironment, provider: ProviderConfig) async throws -> (issued: Int, refused: [String]) {
        let object = try await get(env, "stats")
        return (try #require(object["issued"] as? Int), try #require(object["refused"] as? [String]))
    }

    func post(_ env: AppEnvironment, _ path: String, form: [FormParameter] = []) async throws -> (status: Int, body: [String: Any]) {
        let request = HTTPRequest(method: .post, url: try #require(URL(string: issuer.absoluteString + "/" + path)),
                                  headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
                                  body: Data(FormEncoding.encode(form).utf8))
        let response = try await env.http(nil).send(request)
        return (response.status, try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any]))
    }

    func get(_ env: AppEnvironment, _ path: String) async throws -> [String: Any] {
        let response = try await env.http(nil).send(HTTPRequest(method: .get, url: try #require(URL(string: issuer.absoluteString + "/" + path))))
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }
}

private func machineProvider(_ name: String, issuer: URL, clientID: String, method: ClientAuthenticationMethod,
                             audience: ClientAssertionAudience? = nil) -> ProviderConfig {
    var config = ProviderConfig(id: ProviderID(name), issuer: issuer, clientID: clientID, clientAuthentication: method, scopes: ["read"])
    config.clientCredentials = ClientCredentialsSettings(assertionAudience: audience)
    return config
}

@Suite("Machine accounts against real providers (client credentials)")
struct MachineAccountLiveTests {
    @Test("RFC 6749 §4.4 at django-oauth-toolkit: client_secret_basic and client_secret_post accounts take a token, renew it, introspect active")
    func clientSecretsAtBundledProvider() async throws {
        let idp = try await LocalIdentityProvider.shared()
        let home = try TemporaryHome(provider: idp)
        defer { home.remove() }
        let env = AppEnvironment.live(processEnvironment: home.environment, vaultLimits: .minimum)
        let client = idp.confidentialClient
        let secret = try #require(client.clientSecret)
        for (name, method) in [("ci-basic", ClientAuthenticationMethod.clientSecretBasic), ("ci-post", .clientSecretPost)] {
            let config = machineProvider(name, issuer: idp.issuer, clientID: client.clientID, method: method)
            try ProviderAdmin(env).add(config, clientSecret: ClientSecret(secret.exposedValue))
            let record = try await SignIn(env).run(SignInRequest(providerID: config.id), progress: { _ in }).record
            #expect(record.isMachine == true && record.subject == client.clientID && !record.hasRefreshToken)
            let first = try await TokenForScripts(env).accessToken(record.id, minimumValidity: .seconds(10)).value
            _ = try await RefreshAccount(env).run(record.id, force: true)
            let second = try await TokenForScripts(env).accessToken(record.id, minimumValidity: .seconds(10)).value
            #expect(first.exposedValue != second.exposedValue, "a new client-credentials token")
            let introspected = try await IntrospectAccessToken(env).run(record.id)
            #expect(introspected.objectValue?["active"] == .bool(true), "\(name)")
        }
    }

    @Test("RFC 7523 §2.2 at an Authlib verifier: private_key_jwt works, and a reused jti, a wrong aud, an expired assertion, a bad signature are refused")
    func privateKeyJWTAndItsRefusals() async throws {
        let idp = try await LocalIdentityProvider.shared()
        let home = try TemporaryHome(provider: idp)
        defer { home.remove() }
        let env = AppEnvironment.live(processEnvironment: home.environment, vaultLimits: .minimum)
        let keys = ClientKeys(env)
        let registered = try keys.generate(), other = try keys.generate()
        let emulator = try await MachineEmulator.start(registered: ["machine-1": keys.publicJWK(registered)])
        let issuer = emulator.issuer
        let good = machineProvider("m-good", issuer: issuer, clientID: "machine-1", method: .privateKeyJWT)
        try ProviderAdmin(env).add(good, clientSecret: nil, clientKey: registered)
        // Every token request the good provider sends, to replay one.
        let sent = Mutex<[HTTPRequest]>([])
        var recording = env
        recording.http = { provider in
            let live = env.http(provider)
            return HTTPClient { (request: HTTPRequest) async throws(TransportError) -> HTTPResponse in
                sent.withLock { $0.append(request) }
                return try await live.send(request)
            }
        }
        let record = try await SignIn(recording).run(SignInRequest(providerID: good.id), progress: { _ in }).record
        #expect(record.isMachine == true && record.subject == "machine-1")
        _ = try await RefreshAccount(recording).run(record.id, force: true)
        #expect(try await emulator.stats(env, provider: good) == (2, []), "two tokens, no refusal")

        // A reused jti: the last assertion sent again.
        let replay = try #require(sent.withLock { $0.last { $0.url.path == "/token" } })
        let replayed = try await env.http(good).send(replay)
        #expect(replayed.status == 401)
        // A wrong aud (the issuer where the token endpoint is required).
        let wrongAudience = machineProvider("m-aud", issuer: issuer, clientID: "machine-1", method: .privateKeyJWT, audience: .issuer)
        try ProviderAdmin(env).add(wrongAudience, clientSecret: nil, clientKey: registered)
        // An expired assertion: signed by a clock two minutes behind.
        let expired = machineProvider("m-exp", issuer: issuer, clientID: "machine-1", method: .privateKeyJWT)
        try ProviderAdmin(env).add(expired, clientSecret: nil, clientKey: registered)
        var late = env
        late.now = { Date().addingTimeInterval(-120) }
        // A bad signature: another key than the registered one.
        let unregistered = machineProvider("m-key", issuer: issuer, clientID: "machine-1", method: .privateKeyJWT)
        try ProviderAdmin(env).add(unregistered, clientSecret: nil, clientKey: other)
        for (provider, environment) in [(wrongAudience, env), (expired, late), (unregistered, env)] {
            let error = await #expect(throws: AppError.self) {
                try await SignIn(environment).run(SignInRequest(providerID: provider.id), progress: { _ in })
            }
            #expect(error?.description.contains("invalid_client") == true, "\(provider.id): \(String(describing: error))")
        }
        let stats = try await emulator.stats(env, provider: good)
        #expect(stats.issued == 2)
        #expect(stats.refused == ["reused jti", "wrong aud", "expired assertion", "bad signature"])
        await emulator.stop()
    }

    @Test("GitHub Actions' token (the stand-in, audience as the provider wants) and a projected token file rewritten during the run, each read fresh")
    func federatedAssertionsAtTheEmulator() async throws {
        let idp = try await LocalIdentityProvider.shared()
        let emulator = try await MachineEmulator.start(registered: [:], federatedClients: ["ci-actions", "ci-pod"])
        let tokenFile = emulator.directory.appendingPathComponent("projected-token")
        let home = try TemporaryHome(provider: idp, extra: ["ACTIONS_ID_TOKEN_REQUEST_URL": emulator.actionsRequestURL,
                                                             "ACTIONS_ID_TOKEN_REQUEST_TOKEN": emulator.actionsRequestToken.exposedValue])
        defer { home.remove() }
        let env = AppEnvironment.live(processEnvironment: home.environment, vaultLimits: .minimum)
        var actions = machineProvider("gha", issuer: emulator.issuer, clientID: "ci-actions", method: .privateKeyJWT)
        actions.clientCredentials?.assertionSource = .githubActions(audience: "api://authdeck-machine")
        var pod = machineProvider("pod", issuer: emulator.issuer, clientID: "ci-pod", method: .privateKeyJWT)
        pod.clientCredentials?.assertionSource = .file(tokenFile.path)
        for provider in [actions, pod] { try ProviderAdmin(env).add(provider, clientSecret: nil) }

        let viaActions = try await SignIn(env).run(SignInRequest(providerID: actions.id), progress: { _ in }).record
        #expect(viaActions.isMachine == true && viaActions.subject == "ci-actions")
        // The kubelet writes a token, then rotates it while the workload runs.
        func project(_ subject: String) async throws {
            let minted = try await emulator.get(env, "actions/mint?sub=\(subject)&audience=api://authdeck-machine&lifetime=600")
            try Data(try #require(minted["value"] as? String).utf8).write(to: tokenFile, options: .atomic)
        }
        try await project("system:serviceaccount:ci:first")
        let viaFile = try await SignIn(env).run(SignInRequest(providerID: pod.id), progress: { _ in }).record
        try await project("system:serviceaccount:ci:rotated")
        _ = try await RefreshAccount(env).run(viaFile.id, force: true)
        try FileManager.default.removeItem(at: tokenFile)
        let missing = await #expect(throws: AppError.self) { try await RefreshAccount(env).run(viaFile.id, force: true) }
        #expect(missing?.title == "The client assertion from the file \(tokenFile.path) is missing")

        let federated = try #require(try await emulator.get(env, "stats")["federated"] as? [String])
        #expect(federated == ["repo:authdeck/ci:ref:refs/heads/main", "system:serviceaccount:ci:first", "system:serviceaccount:ci:rotated"])
        // The request token went only to the Actions service: not into any stored file.
        let stored = try FileManager.default.subpathsOfDirectory(atPath: home.root.path).compactMap {
            FileManager.default.contents(atPath: home.root.appendingPathComponent($0).path)
        }
        #expect(!stored.contains { String(decoding: $0, as: UTF8.self).contains(emulator.actionsRequestToken.exposedValue) })
        await emulator.stop()
    }

    @Test("RFC 8693 at the emulator: exchanged for a resource and an audience, kept while fresh; refusals named, the account kept")
    func tokenExchangeAtTheEmulator() async throws {
        let idp = try await LocalIdentityProvider.shared()
        let home = try TemporaryHome(provider: idp)
        defer { home.remove() }
        let env = AppEnvironment.live(processEnvironment: home.environment, vaultLimits: .minimum)
        let keys = ClientKeys(env)
        let key = try keys.generate()
        let api = "https://api.internal.test/"
        let emulator = try await MachineEmulator.start(registered: ["machine-x": keys.publicJWK(key)], federatedClients: ["ci-actions"],
                                                       exchangeTargets: [api, "billing"])
        // Refusals first, by the emulator itself: a subject_token_type it does not take (a reusable federated assertion).
        let minted = try #require(try await emulator.get(env, "actions/mint?audience=api://authdeck-machine")["value"] as? String)
        let saml = try await emulator.post(env, "token", form: [
            FormParameter("grant_type", tokenExchangeGrantType), FormParameter("client_id", "ci-actions"),
            FormParameter("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            FormParameter("client_assertion", minted), FormParameter("subject_token", "m-at-1"),
            FormParameter("subject_token_type", "urn:ietf:params:oauth:token-type:saml2"), FormParameter("audience", "billing"),
        ])
        #expect(saml.status == 400 && saml.body["error"] as? String == "invalid_request")

        let provider = machineProvider("mx", issuer: emulator.issuer, clientID: "machine-x", method: .privateKeyJWT)
        try ProviderAdmin(env).add(provider, clientSecret: nil, clientKey: key)
        let record = try await SignIn(env).run(SignInRequest(providerID: provider.id), progress: { _ in }).record
        let tokens = TokenForScripts(env)
        let forAPI = TokenAudience.exchangeTarget(for: api, requestedTokenType: nil)
        let first = try await tokens.exchangedToken(record, for: forAPI, minimumValidity: .seconds(60))
        let again = try await tokens.exchangedToken(record, for: forAPI, minimumValidity: .seconds(60))
        #expect(first.value.exposedValue.hasPrefix("m-xt-") && again.value == first.value, "kept while fresh")
        let billing = try await tokens.exchangedToken(record, for: TokenAudience.exchangeTarget(for: "billing", requestedTokenType: nil),
                                                      minimumValidity: .seconds(60))
        #expect(billing.value != first.value)

        let unknown = await #expect(throws: AppError.self) {
            try await tokens.exchangedToken(record, for: TokenAudience.exchangeTarget(for: "payroll", requestedTokenType: nil),
                                            minimumValidity: .seconds(60))
        }
        #expect(unknown?.description.contains("invalid_target") == true && unknown?.detail.contains("no token for payroll") == true)
        // The provider revokes every token: the stored subject, still fresh here, is refused there.
        _ = try await emulator.post(env, "forget")
        let revoked = await #expect(throws: AppError.self) {
            try await tokens.exchangedToken(record, for: TokenAudience.exchangeTarget(for: "billing", requestedTokenType: TokenTypeIdentifier.jwt),
                                            minimumValidity: .seconds(60))
        }
        #expect(revoked?.description.contains("invalid subject token") == true, "\(String(describing: revoked))")
        // The account's own grant is not the exchange's: its stored token is still handed out.
        _ = try await tokens.accessToken(record.id, minimumValidity: .seconds(60))

        let stats = try await emulator.get(env, "stats")
        #expect(stats["exchanged"] as? [String] == [api, "billing"])
        #expect(stats["refused"] as? [String] == ["unsupported subject_token_type", "no token for this audience", "invalid subject token"])
        await emulator.stop()
    }
}
