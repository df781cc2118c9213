import AppCore
import AuthEngine
import Foundation
import Synchronization
import Testing

/// The browser sign-in of a person whose browser runs on another machine: the
/// redirect pasted back races the loopback listener; whichever comes first wins.
@Suite("Sign-in with the redirect pasted back (use case, stub environment)")
struct PastedRedirectSignInTests {
    /// A world whose listener waits until it is closed (the browser is elsewhere), or delivers
    /// `deliver` once the paste reader has asked for a line.
    final class Setup: Sendable {
        let world = StubWorld()
        let authorizationURL = Mutex<URL?>(nil)
        let progress = ProgressLog()
        let listenerClosed = Mutex(false)
        let readerCancelled = Mutex(false)
        let lines: Mutex<[@Sendable (URL) -> String]>
        let listenerDelivers: Bool

        init(lines: [@Sendable (URL) -> String], listenerDelivers: Bool = false) {
            self.lines = Mutex(lines)
            self.listenerDelivers = listenerDelivers
        }

        var environment: AppEnvironment {
            var env = world.environment()
            env.loopback = LoopbackClient { [self] path, _ in
                RedirectListener(
                    redirectURI: URL(string: "http://127.0.0.1:49152\(path)")!,
                    waitForCallback: { [self] (_: Duration, decide) async throws(RedirectListenerFailure) -> RedirectCallback in
                        if listenerDelivers, let url = authorizationURL.withLock({ $0 }) {
                            try? await Task.sleep(for: .milliseconds(50))
                            let callback = RedirectCallback(method: "GET", path: path, parameters: redirect(for: url))
                            if case .finish = decide(callback) { return callback }
                        }
                        while !Task.isCancelled && !listenerClosed.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
                        throw .cancelled
                    },
                    close: { [self] in listenerClosed.withLock { $0 = true } })
            }
            return env
        }

        /// The parameters the provider's redirect carries for the authorization request at `url`.
        func redirect(for url: URL, state override: String? = nil, issuer: String? = nil) -> [(name: String, value: String)] {
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let pushed = query.first { $0.name == "request_uri" }?.value.flatMap(world.provider.pushedParameters)
            let state = override ?? pushed?["state"] ?? query.first { $0.name == "state" }?.value ?? ""
            let nonce = pushed?["nonce"] ?? query.first { $0.name == "nonce" }?.value
            return [("code", world.provider.issueCode(subject: "alice", nonce: nonce)), ("state", state), ("iss", issuer ?? world.provider.issuer)]
        }

        func query(_ parameters: [(name: String, value: String)]) -> String {
            parameters.map { "\($0.name)=\(FormEncoding.encode($0.value))" }.joined(separator: "&")
        }

        var pasted: PastedLines {
            PastedLines { [self] in
                while authorizationURL.withLock({ $0 }) == nil { try? await Task.sleep(for: .milliseconds(2)) }
                let url = authorizationURL.withLock { $0 }!
                if let line = lines.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return line(url) }
                // No more lines: wait, as a terminal does, until the Task is cancelled.
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(2)) }
                readerCancelled.withLock { $0 = true }
                return nil
            }
        }

        func run(noBrowser: Bool = true) async throws(AppError) -> SignInOutcome {
            try await SignIn(environment).run(SignInRequest(providerID: "op", noBrowser: noBrowser), pasted: pasted) { [self] progress in
                self.progress.append(progress)
                if case .waitingForBrowser(let url, _) = progress { authorizationURL.withLock { $0 = url } }
            }
        }
    }

    @Test("The address the browser ended on, pasted: signed in through the same checks; a line for another port is refused and read again; the listener is closed")
    func pastedAddressSignsIn() async throws {
        let setup = Setup(lines: [])
        setup.lines.withLock {
            $0 = [{ url in "http://127.0.0.1:9/callback?" + setup.query(setup.redirect(for: url)) },
                  { url in "  http://127.0.0.1:49152/callback?" + setup.query(setup.redirect(for: url)) + "  " }]
        }
        let outcome = try await setup.run()
        #expect(outcome.record.id == AccountID("op/alice"))
        let names = setup.progress.names
        #expect(names.contains("waitingForPaste") && names.contains("pastedRedirectAccepted"), "\(names)")
        #expect(names.filter { $0 == "pastedLineRefused" }.count == 1, "the other port's address: \(names)")
        #expect(setup.listenerClosed.withLock { $0 }, "the listener is closed once the paste won")
        #expect(setup.world.provider.tokenRequests.count == 1)
    }

    @Test("A pasted address with another state, or another iss (RFC 9207), is refused before any token request, saying what did not match; the next line is read")
    func pastedForgeriesRefused() async throws {
        for (forged, word) in [("state", "state"), ("iss", "issuer")] {
            let setup = Setup(lines: [])
            setup.lines.withLock {
                $0 = [{ url in
                    let parameters = forged == "state" ? setup.redirect(for: url, state: "forged")
                        : setup.redirect(for: url, issuer: "https://evil.example")
                    return "http://127.0.0.1:49152/callback?" + setup.query(parameters)
                }, { url in "http://127.0.0.1:49152/callback?" + setup.query(setup.redirect(for: url)) }]
            }
            let outcome = try await setup.run()
            #expect(outcome.record.id == AccountID("op/alice"), "the next line signed in")
            let refusals = setup.progress.all.compactMap { progress -> String? in
                if case .pastedLineRefused(let text) = progress { return text }
                return nil
            }
            #expect(refusals.count == 1 && refusals[0].lowercased().contains(word), "\(forged): \(refusals)")
            #expect(setup.world.provider.tokenRequests.count == 1, "no token request for the forged \(forged)")
        }
    }

    @Test("The provider's own error, pasted with this request's state (access_denied), ends the sign-in as a delivered one does; no token request")
    func pastedDenial() async throws {
        let setup = Setup(lines: [])
        setup.lines.withLock {
            $0 = [{ url in
                let state = setup.redirect(for: url)[1].value
                return "error=access_denied&state=\(state)&iss=" + FormEncoding.encode(setup.world.provider.issuer)
            }]
        }
        do {
            _ = try await setup.run()
            Issue.record("signed in")
        } catch {
            #expect(error.title == "Access denied", "\(error.title)")
        }
        #expect(setup.world.provider.tokenRequests.isEmpty)
    }

    @Test("The code alone, pasted: exchanged with this request's PKCE verifier")
    func codeAlone() async throws {
        let setup = Setup(lines: [])
        setup.lines.withLock { $0 = [{ url in setup.redirect(for: url)[0].value }] }
        let outcome = try await setup.run()
        #expect(outcome.record.id == AccountID("op/alice"))
        let exchange = try #require(setup.world.provider.tokenRequests.first)
        #expect(exchange["code_verifier"]?.isEmpty == false && exchange["code"]?.hasPrefix("code-") == true)
    }

    @Test("The listener's redirect first: the paste reader is cancelled and ends")
    func listenerFirst() async throws {
        let setup = Setup(lines: [], listenerDelivers: true)
        let outcome = try await setup.run()
        #expect(outcome.record.id == AccountID("op/alice"))
        #expect(setup.readerCancelled.withLock { $0 }, "the reader was cancelled, not left waiting")
        #expect(!setup.progress.names.contains("pastedRedirectAccepted"))
    }

    @Test("A browser opened here: nothing is read from the terminal")
    func browserOpenedReadsNothing() async throws {
        let setup = Setup(lines: [{ _ in Issue.record("a line was read"); return "" }], listenerDelivers: true)
        _ = try await setup.run(noBrowser: false)
        #expect(!setup.progress.names.contains("waitingForPaste"))
    }
}
