import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// A stalled provider, or a process that dies with a refresh request out, must
/// not sign accounts out silently. Stub environment: the HTTP edge is scripted per story, the
/// clock and `sleep` are the world's (no timed waits).
@Suite("Stalled provider and unknown refresh outcomes (use case, stub environment)")
struct StalledProviderUseCaseTests {
    /// An environment whose token requests reach the stub provider (which rotates the refresh
    /// token) but whose answer is then lost with `failure`, as when a stalled provider answers
    /// after the client gave up or the process was killed.
    private func answerLost(_ world: StubWorld, _ failure: TransportError) -> AppEnvironment {
        var env = world.environment()
        env.http = { _ in
            HTTPClient { (request: HTTPRequest) async throws(TransportError) -> HTTPResponse in
                let response = world.provider.handle(request, now: world.now)
                guard request.url.path == "/token" else { return response }
                throw failure
            }
        }
        return env
    }

    @Test("RFC 6749 §6: the in-flight marker is in the file before the refresh request is sent, and cleared with the answer")
    func markerPersistedBeforeSendingAndClearedAfter() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let markerAtSend = Mutex<[Date?]>([])
        var env = world.environment()
        env.http = { _ in
            HTTPClient { (request: HTTPRequest) async throws(TransportError) -> HTTPResponse in
                if request.url.path == "/token" { markerAtSend.withLock { $0.append(world.accounts.first?.refreshSentAt) } }
                return world.provider.handle(request, now: world.now)
            }
        }
        world.advance(10)
        let record = try await RefreshAccount(env).run(alice.record.id, force: true)
        #expect(markerAtSend.withLock { $0 } == [t0.addingTimeInterval(10)], "persisted under the lock, before the request left")
        #expect(record.refreshSentAt == nil)
        #expect(world.accounts.first?.refreshSentAt == nil, "cleared in the file once the answer was handled")
    }

    @Test("The account lock is held while the refresh request is out: no other process can send the same refresh token")
    func lockHeldWhileRequestIsOut() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let lockFreeDuringRequest = Mutex<[Bool]>([])
        let key = AccountKey(provider: "op", account: "alice")
        var env = world.environment()
        env.http = { _ in
            HTTPClient { (request: HTTPRequest) async throws(TransportError) -> HTTPResponse in
                if request.url.path == "/token" {
                    let handle = try? world.secrets.tryLockAccount(key)
                    lockFreeDuringRequest.withLock { $0.append(handle != nil) }
                    handle?.release()
                }
                return world.provider.handle(request, now: world.now)
            }
        }
        _ = try await RefreshAccount(env).run(alice.record.id, force: true)
        #expect(lockFreeDuringRequest.withLock { $0 } == [false])
        let after = try world.secrets.tryLockAccount(key)
        #expect(after != nil, "released after the answer")
        after?.release()
    }

    @Test("A refresh waits the whole 130 s for another process's account lock (on the environment's clock), then says the lock is busy and sends nothing")
    func lockWaitTimesOutAfter130Seconds() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let held = try #require(try world.secrets.tryLockAccount(AccountKey(provider: "op", account: "alice")))
        defer { held.release() }
        let clock = FakeClock()
        var env = world.environment()
        env.clock = clock
        let sentBefore = world.provider.tokenRequests.count
        do {
            _ = try await RefreshAccount(env).run(alice.record.id, force: true)
            Issue.record("the refresh ran while another process held the lock")
        } catch {
            #expect(error.disposition == .transient(retryAfter: nil))
            #expect(error.nextStep == "Another authdeck process holds the lock; try again when it has finished.")
        }
        #expect(clock.totalElapsed >= RefreshAccount.lockWait && clock.totalElapsed < RefreshAccount.lockWait + .milliseconds(20))
        #expect(clock.sleepCount >= 13_000, "polled every 10 ms")
        #expect(world.provider.tokenRequests.count == sentBefore, "no refresh request without the lock")
    }

    @Test("A refresh still waiting for the account lock at 129 s takes it when the other process lets go, and refreshes")
    func lockWaitGetsTheLockBefore130Seconds() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let held = Mutex<(any AccountLockHandle)?>(try world.secrets.tryLockAccount(AccountKey(provider: "op", account: "alice")))
        let clock = FakeClock { elapsed in
            if elapsed >= .seconds(129) { held.withLock { $0?.release(); $0 = nil } }
        }
        var env = world.environment()
        env.clock = clock
        let sentBefore = world.provider.tokenRequests.count
        _ = try await RefreshAccount(env).run(alice.record.id, force: true)
        #expect(clock.totalElapsed >= .seconds(129) && clock.totalElapsed < RefreshAccount.lockWait)
        #expect(world.provider.tokenRequests.count == sentBefore + 1)
    }

    @Test("Refresh requests carry a timeout longer than the UI's patience; the lock waits longer than a request")
    func requestTimeoutLongerThanPatience() async throws {
        #expect(RefreshAccount.requestTimeout > RefreshAccount.providerPatience * 10)
        #expect(RefreshAccount.lockWait > RefreshAccount.requestTimeout, "a second process waits for the first one's answer instead of giving up")
        let world = StubWorld()
        let alice = try await signedIn(world)
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        let sent = try #require(world.provider.requests.withLock { $0.last { $0.url.path == "/token" } })
        #expect(sent.timeout == RefreshAccount.requestTimeout)
    }

    @Test("A slow provider: after the UI's patience the refresh says 'provider is slow' and keeps waiting for the answer")
    func slowProviderIsSaidAndAwaited() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let notices = Mutex<[RefreshNotice]>([])
        var env = world.environment()
        env.http = { _ in
            HTTPClient { (request: HTTPRequest) async throws(TransportError) -> HTTPResponse in
                if request.url.path == "/token" {
                    // The provider answers only after the notice was given (no wall-clock wait).
                    while notices.withLock({ $0.isEmpty }) { await Task.yield() }
                }
                return world.provider.handle(request, now: world.now)
            }
        }
        let before = try #require(world.storedSecrets()?.refreshToken?.exposedValue)
        _ = try await RefreshAccount(env).run(alice.record.id, force: true) { notice in notices.withLock { $0.append(notice) } }
        #expect(notices.withLock { $0 } == [.providerSlow(account: "Alice")])
        #expect(notices.withLock { $0 }.first?.message.contains("provider is slow") == true)
        #expect(world.sleeps.withLock { $0 }.contains(RefreshAccount.providerPatience))
        #expect(world.storedSecrets()?.refreshToken?.exposedValue != before, "the late answer's rotated refresh token is kept")
    }

    @Test("An answer lost after the provider rotated the token (timeout): the marker stays and status says 'refresh outcome unknown'")
    func timeoutKeepsMarker() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        do {
            _ = try await RefreshAccount(answerLost(world, .timeout(url: "https://op.example/token", seconds: 120))).run(alice.record.id, force: true)
            Issue.record("the refresh succeeded")
        } catch {
            #expect(error.disposition == .transient(retryAfter: nil))
        }
        let record = try #require(world.accounts.first)
        #expect(record.refreshSentAt == t0)
        #expect(record.needsSignInSince == nil, "not known to be signed out yet")
        let status = AccountState(record: record).status(now: world.now, policy: .standard, storeLocked: false)
        #expect(status == .refreshOutcomeUnknown)
        #expect(status.label(now: world.now) == "refresh outcome unknown")
        #expect(status.needsAttention)
    }

    @Test("A request that certainly never left (connection refused) leaves no unknown outcome behind")
    func refusedConnectionLeavesNoMarker() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        var env = world.environment()
        env.http = { _ in HTTPClient { (_: HTTPRequest) async throws(TransportError) -> HTTPResponse in throw .connection(url: "https://op.example/token", detail: "refused") } }
        _ = try? await RefreshAccount(env).run(alice.record.id, force: true)
        #expect(world.accounts.first?.refreshSentAt == nil)
        #expect(TransportError.interrupted(url: "u", detail: "reset").requestMayHaveArrived)
        #expect(TransportError.timeout(url: "u", seconds: 120).requestMayHaveArrived)
        #expect(!TransportError.tls(url: "u", detail: "bad certificate").requestMayHaveArrived)
    }

    @Test("token after an unknown outcome: no stored (possibly revoked) token; the replay is said; invalid_grant marks needs sign-in")
    func tokenAfterUnknownOutcomeReplaysAndSaysSo() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        // The killed `authdeck refresh`: the provider rotated the refresh token, the answer was lost.
        _ = try? await RefreshAccount(answerLost(world, .cancelled)).run(alice.record.id, force: true)
        #expect(world.accounts.first?.refreshSentAt != nil)
        let notices = Mutex<[RefreshNotice]>([])
        do {
            // The stored access token is still "valid" for an hour by its expiry.
            let issued = try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(10)) { notice in
                notices.withLock { $0.append(notice) }
            }
            Issue.record("token handed out \(issued.value) after an unknown refresh outcome")
        } catch {
            #expect(error.disposition == .needsSignIn)
            #expect(error.detail.contains("sent again"), "the replay is said plainly: \(error.detail)")
        }
        // (The stub `sleep` returns at once, so a "provider is slow" notice may come too.)
        #expect(notices.withLock { $0 }.filter(\.isReplay) == [.replayAfterUnknownOutcome(account: "Alice", sentAt: t0)])
        let record = try #require(world.accounts.first)
        #expect(record.needsSignInSince != nil, "every process sees needs sign-in")
        #expect(record.refreshSentAt == nil, "the outcome is known now")
        // Every command after it: needs sign-in.
        let error = await #expect(throws: AppError.self) { try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(10)) }
        #expect(error?.title == "Alice needs to sign in again" && error?.disposition == .needsSignIn, "\(String(describing: error))")
    }

    @Test("token after an unknown outcome the provider never saw: the replay works and says so; the marker is cleared")
    func replayThatWorks() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        var record = try #require(world.accounts.first)
        record.refreshSentAt = t0
        world.files.withLock { $0.accounts = [record] }
        let notices = Mutex<[RefreshNotice]>([])
        let before = try #require(world.storedSecrets()?.accessToken(for: nil)?.token.exposedValue)
        let issued = try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(10)) { notice in
            notices.withLock { $0.append(notice) }
        }
        #expect(issued.value.exposedValue != before, "refreshed instead of the stored token")
        #expect(notices.withLock { $0 }.filter(\.isReplay).count == 1)
        #expect(world.accounts.first?.refreshSentAt == nil)
        #expect(world.accounts.first?.needsSignInSince == nil)
    }

    @Test("A replay answered with 503 settles nothing: the earlier outcome stays unknown; a first refresh answered 503 leaves no marker")
    func errorResponseKeepsEarlierUnknownOutcome() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.nextTokenError = (503, ["error": "temporarily_unavailable"], [:]) }
        _ = try? await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(world.accounts.first?.refreshSentAt == nil, "an answered request leaves nothing unknown")
        var record = try #require(world.accounts.first)
        record.refreshSentAt = t0
        world.files.withLock { $0.accounts = [record] }
        world.advance(5)
        world.provider.script.withLock { $0.nextTokenError = (503, ["error": "temporarily_unavailable"], [:]) }
        _ = try? await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(world.accounts.first?.refreshSentAt == t0, "the earlier request's fate is still unknown")
    }

    @Test("An account file written before the marker existed decodes (refreshSentAt absent: nil)")
    func oldRecordDecodes() throws {
        let record = AccountRecord(id: "op/alice", providerID: "op", issuer: "https://op.example", subject: "alice", displayName: "Alice",
                                   requestedScopes: ["openid"], grantedScopes: ["openid"], accessTokens: [], hasRefreshToken: true,
                                   signedInAt: t0, storage: .memory)
        var withMarker = record
        withMarker.refreshSentAt = t0
        guard case .object(var object) = withMarker.json else { Issue.record("not an object"); return }
        object["refreshSentAt"] = nil
        let decoded = try AccountRecord(json: .object(object))
        #expect(decoded == record)
    }
}

extension RefreshNotice {
    var isReplay: Bool { if case .replayAfterUnknownOutcome = self { true } else { false } }
}
