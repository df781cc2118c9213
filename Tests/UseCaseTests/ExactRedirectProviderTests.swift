import AppCore
import AuthEngine
import Foundation
import Synchronization
import Testing

/// A provider that compares redirect URIs exactly and answers refusals with a bare status
/// (§3, §4): the port rule, and errors that say what to do next.
@Suite("Providers that match redirect URIs exactly (use case, stub environment)")
struct ExactRedirectProviderTests {
    final class Ports: Sendable {
        let asked = Mutex<[UInt16?]>([])
    }

    /// The world's environment with a loopback that records the port each listener asked for.
    func recordingPorts(_ world: StubWorld, _ ports: Ports) -> AppEnvironment {
        var env = world.environment()
        let bind = env.loopback.bind
        env.loopback = LoopbackClient { path, port throws(RedirectListenerFailure) in
            ports.asked.withLock { $0.append(port) }
            return try bind(path, port)
        }
        return env
    }

    @Test("The port rule: login --redirect-port, else the provider's redirectPort, else a registration's, else any; sign-out listens on the same")
    func portRule() async throws {
        let world = StubWorld()
        let ports = Ports()
        world.approveInBrowser()
        _ = try await SignIn(recordingPorts(world, ports)).run(SignInRequest(providerID: "op")) { _ in }
        world.files.withLock { $0.providers[0].redirectPort = 8765 }
        world.approveInBrowser()
        _ = try await SignIn(recordingPorts(world, ports)).run(SignInRequest(providerID: "op")) { _ in }
        world.approveInBrowser()
        let outcome = try await SignIn(recordingPorts(world, ports)).run(SignInRequest(providerID: "op", redirectPort: 9001)) { _ in }
        #expect(ports.asked.withLock { $0 } == [nil, 8765, 9001])
        world.browserAction.withLock {
            $0 = { url in [[("state", URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? "")]] }
        }
        _ = await SignOut(recordingPorts(world, ports)).run(outcome.record.id, options: SignOutOptions()) { _ in }
        #expect(ports.asked.withLock { $0.last } == 8765, "the post-logout redirect follows the provider's port rule")
    }

    @Test("A busy registered port is an error naming the port and its holder and what to do, never another port")
    func busyPort() async throws {
        let world = StubWorld()
        world.files.withLock { $0.providers[0].redirectPort = 8765 }
        var env = world.environment()
        env.loopback = LoopbackClient { _, port throws(RedirectListenerFailure) in throw .portBusy(port: port ?? 0, holder: "pid 42 (python3)") }
        do {
            _ = try await SignIn(env).run(SignInRequest(providerID: "op")) { _ in }
            Issue.record("signed in on a busy port")
        } catch {
            #expect(error.title == "Port 8765 on 127.0.0.1 is in use by pid 42 (python3)")
            #expect(error.nextStep?.contains("--redirect-port") == true)
        }
        #expect(world.provider.total <= 1, "nothing but discovery was asked")
    }

    @Test("A bare 403 at the pushed authorization request names the redirect URI sent and the next steps; nothing is opened")
    func bareForbiddenAtPAR() async throws {
        let world = StubWorld()
        world.provider.script.withLock {
            $0.pushedAuthorization = true
            $0.bareAnswers["/par"] = 403
        }
        do {
            _ = try await SignIn(world.environment()).run(SignInRequest(providerID: "op")) { _ in }
            Issue.record("signed in")
        } catch {
            #expect(error.title.contains("HTTP 403 and no explanation"), "\(error.title)")
            #expect(error.detail.contains("redirect_uri=http://127.0.0.1:49152/callback"), "\(error.detail)")
            let next = try #require(error.nextStep)
            #expect(next.contains("--redirect-port") && next.contains("--device"), "\(next)")
        }
        #expect(world.browserOpened.withLock { $0 }.isEmpty)
    }

    @Test("A bare 400 at the code exchange names the redirect URI repeated there")
    func bareRefusalAtCodeExchange() async throws {
        let world = StubWorld()
        world.approveInBrowser()
        world.provider.script.withLock { $0.bareAnswers["/token"] = 400 }
        do {
            _ = try await SignIn(world.environment()).run(SignInRequest(providerID: "op")) { _ in }
            Issue.record("signed in")
        } catch {
            #expect(error.title == "The provider refused the authorization code with HTTP 400 and no explanation")
            #expect(error.nextStep?.contains("authdeck login op --redirect-port") == true)
        }
    }

    @Test("A bare 400 on a refresh: the grant may have ended; try again, then sign in again")
    func bareRefusalAtRefresh() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.bareAnswers["/token"] = 400 }
        do {
            _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
            Issue.record("refreshed")
        } catch {
            #expect(error.detail.contains("The grant may have ended"), "\(error.detail)")
            #expect(error.nextStep == "Try again later; if it persists, sign in again: authdeck login op.")
        }
    }

    @Test("Introspection refused with 401 to a public client: the server does not admit public clients")
    func introspectionRefusesPublicClients() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.bareAnswers["/introspect"] = 401 }
        do {
            _ = try await IntrospectAccessToken(world.environment()).run(alice.record.id)
            Issue.record("introspected")
        } catch {
            #expect(error.detail.contains("does not admit public clients"), "\(error.detail)")
        }
    }

    @Test("Revocation refused with 401 where the metadata admits no public client: named as such with the token's life, not a failure")
    func revocationRefusesPublicClients() async throws {
        let world = StubWorld()
        world.provider.script.withLock {
            $0.bareAnswers["/revoke"] = 401
            $0.metadataLists["revocation_endpoint_auth_methods_supported"] = ["client_secret_basic"]
        }
        let alice = try await signedIn(world)
        let steps = Mutex<[SignOutStepResult]>([])
        let outcome = await SignOut(world.environment()).run(alice.record.id, options: SignOutOptions(endSession: false)) { step in
            steps.withLock { $0.append(step) }
        }
        #expect(outcome.removed)
        for step in steps.withLock({ $0 }) where step.step == .revokeRefreshToken || step.step == .revokeAccessToken {
            guard case .skipped(let text) = step.outcome else { Issue.record("\(step)"); continue }
            #expect(text.contains("does not let a public client revoke") && text.contains("valid until"), "\(text)")
        }
    }

    @Test("Without that metadata, a bare 401 at revocation stays a failure (the tokens may be valid)")
    func revocationFailureWithoutMetadata() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.bareAnswers["/revoke"] = 401 }
        let alice = try await signedIn(world)
        let steps = Mutex<[SignOutStepResult]>([])
        _ = await SignOut(world.environment()).run(alice.record.id, options: SignOutOptions(endSession: false)) { step in steps.withLock { $0.append(step) } }
        let refresh = try #require(steps.withLock { $0 }.first { $0.step == .revokeRefreshToken })
        guard case .failed = refresh.outcome else { Issue.record("\(refresh)"); return }
    }

    @Test("The provider's page does not send the browser back in time: an honest line naming where to close the session")
    func endSessionNotConfirmed() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.browserAction.withLock { $0 = { _ in [] } }  // the page never redirects back
        let steps = Mutex<[SignOutStepResult]>([])
        _ = await SignOut(world.environment()).run(alice.record.id, options: SignOutOptions()) { step in steps.withLock { $0.append(step) } }
        let end = try #require(steps.withLock { $0 }.last)
        guard end.step == .endSession, case .failed(let error) = end.outcome else { Issue.record("\(end)"); return }
        #expect(error.title == "The provider did not confirm the sign-out")
        #expect(error.nextStep?.contains("\(world.provider.issuer)/logout") == true, "\(error.nextStep ?? "")")
    }

    @Test("Sign-out's one-time page (its answer carries the ID token) is served only to this user's connection, and another user's fetch uses nothing up")
    func startPageOnlyForThisUser() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let verdicts = Mutex<[String]>([])
        var env = world.environment()
        env.loopback = LoopbackClient { path, _ throws(RedirectListenerFailure) in
            RedirectListener(
                redirectURI: URL(string: "http://127.0.0.1:49152\(path)")!,
                waitForCallback: { (_: Duration, decide) async throws(RedirectListenerFailure) -> RedirectCallback in
                    let start = world.browserOpened.withLock { $0.last }!.path
                    func verdict(_ peer: RedirectPeer) -> String {
                        switch decide(RedirectCallback(method: "GET", path: start, parameters: [], peer: peer)) {
                        case .ignore: "ignore"
                        case .respond(.redirect(let next)): next.absoluteString.contains("id_token_hint=") ? "hint" : "redirect"
                        default: "other"
                        }
                    }
                    verdicts.withLock { $0 = [verdict(.otherUser), verdict(.unknown), verdict(.sameUser), verdict(.sameUser)] }
                    throw .timedOut
                },
                close: {})
        }
        _ = await SignOut(env).run(alice.record.id, options: SignOutOptions()) { _ in }
        #expect(verdicts.withLock { $0 } == ["ignore", "ignore", "hint", "ignore"], "another user: nothing; this user: once")
    }
}
