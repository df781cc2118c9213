import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

/// RFC 9126 pushed authorization requests in the sign-in use case (stub environment).
@Suite("PAR (RFC 9126), sign-in use case")
struct PushedAuthorizationUseCaseTests {
    func world(par: Bool = true, require: Bool = false, setting: ProtocolFeatureSetting? = nil) -> StubWorld {
        let world = StubWorld()
        world.provider.script.withLock {
            $0.pushedAuthorization = par
            $0.requirePushedAuthorization = require
        }
        if let setting {
            world.files.withLock { $0.providers[0].par = setting }
        }
        return world
    }

    func query(_ url: URL) -> [String: String] {
        Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                   uniquingKeysWith: { first, _ in first })
    }

    @Test("PAR RFC 9126 §2, §4: with a PAR endpoint (auto) the request is pushed; the browser gets only client_id and request_uri")
    func pushedSignIn() async throws {
        let world = world()
        let outcome = try await signedIn(world)
        #expect(outcome.record.id == AccountID("op/alice"))
        let opened = try #require(world.browserOpened.withLock { $0.first })
        let parameters = query(opened)
        #expect(Set(parameters.keys) == ["client_id", "request_uri"])
        #expect(parameters["client_id"] == world.provider.clientID)
        let pushed = try #require(world.provider.pushedParameters(parameters["request_uri"] ?? ""))
        #expect(pushed["response_type"] == "code" && pushed["code_challenge_method"] == "S256")
        #expect(pushed["state"] != nil && pushed["redirect_uri"] != nil && pushed["client_id"] == world.provider.clientID)
        #expect(world.provider.count("/par") == 1)
    }

    @Test("PAR-02, RFC 9126 §4: each sign-in pushes again; a request_uri is used once")
    func requestURIUsedOnce() async throws {
        let world = world()
        _ = try await signedIn(world)
        _ = try await signedIn(world, as: "bob")
        let uris = world.browserOpened.withLock { $0 }.map { query($0)["request_uri"] ?? "" }
        #expect(world.provider.count("/par") == 2)
        #expect(uris.count == 2 && uris[0] != uris[1])
    }

    @Test("PAR RFC 9126 §5: require_pushed_authorization_requests is honoured (no longer refused)")
    func requiredPAR() async throws {
        let world = world(require: true)
        _ = try await signedIn(world)
        #expect(world.provider.count("/par") == 1)
    }

    @Test("PAR setting never: the request goes through the browser's URL; always without an endpoint is refused")
    func settings() async throws {
        let never = world(setting: .never)
        _ = try await signedIn(never)
        #expect(never.provider.count("/par") == 0)
        #expect(query(try #require(never.browserOpened.withLock { $0.first }))["state"] != nil)

        let always = world(par: false, setting: .always)
        let error = await #expect(throws: AppError.self) { _ = try await signedIn(always) }
        #expect(error?.title == "Not supported" && error?.disposition == .other, "\(String(describing: error))")
        #expect(always.browserOpened.withLock { $0.isEmpty })

        let refused = world(require: true, setting: .never)
        do {
            _ = try await signedIn(refused)
            Issue.record("a provider requiring PAR was used without it")
        } catch let error as AppError {
            #expect(error.specReference == "RFC 9126 §5")
        }
        #expect(refused.browserOpened.withLock { $0.isEmpty })
    }

    @Test("PAR RFC 9126 §2.3, §2.2: each refusal is a clear error and nothing opens in the browser",
          arguments: [
            (400, ["error": "invalid_request"], [:], "invalid_request"),
            (401, ["error": "invalid_client"], [:], "invalid_client"),
            (429, [:], ["Retry-After": "30"], "HTTP 429"),
            (201, ["expires_in": "60"], [:], "request_uri"),
            (201, ["request_uri": "urn:ietf:params:oauth:request_uri:x"], [:], "expires_in"),
          ] as [(Int, [String: String], [String: String], String)])
    func refusals(status: Int, body: [String: String], headers: [String: String], named: String) async throws {
        let world = world()
        world.provider.script.withLock { $0.nextPARResponse = (status, body, headers) }
        do {
            _ = try await signedIn(world)
            Issue.record("the sign-in went on after a refused push")
        } catch let error as AppError {
            #expect(error.title.contains(named), "\(error.title)")
            if status == 429 { #expect(error.disposition == .transient(retryAfter: 30)) }
        }
        #expect(world.browserOpened.withLock { $0.isEmpty })
        #expect(world.accounts.isEmpty)
    }
}
