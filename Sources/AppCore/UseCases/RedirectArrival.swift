import AuthEngine
import FoundationEssentials
import Synchronization

/// The redirect of a browser sign-in, from whichever comes first: the loopback listener (the
/// browser on this machine, or one whose port is forwarded here) or a line pasted back
/// (``PastedLines``: the browser on another machine). The other is closed; a redirect is
/// answered once. A pasted URL becomes the ``RedirectCallback`` the listener would have made
/// and goes through the same `decide` and validation (`state`, `iss`, the redirect URI code unit
/// for code unit); a line that is not this sign-in's redirect is said and the next one read.
enum RedirectArrival: Sendable {
    case callback(RedirectCallback)
    case codeAlone(AuthorizationCode)

    /// - Throws: the listener's ``RedirectListenerFailure`` (timed out, cancelled) when no line
    ///   wins first; a Task cancellation ends both.
    /// - Parameter validate: the delivered redirect's checks (`state`, `iss`, …); a pasted address
    ///   they refuse is said and another line read (a stale tab's address does not end the sign-in),
    ///   while an authorization error that passes them (`access_denied` with this `state`) is the answer.
    static func first(listener: RedirectListener, timeout: Duration, decide: @escaping @Sendable (RedirectCallback) -> RedirectCallbackVerdict,
                      validate: @escaping @Sendable (RedirectCallback) throws -> Void,
                      pasted: PastedLines, progress: @escaping @Sendable (SignInProgress) -> Void) async throws -> RedirectArrival {
        let redirectURI = listener.redirectURI
        return try await withThrowingTaskGroup(of: (arrival: RedirectArrival, pasted: Bool)?.self) { group in
            group.addTask { (.callback(try await listener.waitForCallback(timeout, decide)), false) }
            group.addTask {
                while !Task.isCancelled, let line = await pasted.next() {
                    switch parsePastedRedirect(line, redirectURI: redirectURI) {
                    case .success(.codeAlone(let code)):
                        return (.codeAlone(code), true)
                    case .success(.callback(let callback)):
                        // What the listener would answer 404 (a wrong path) is no redirect of this sign-in.
                        if case .ignore = decide(callback) {
                            progress(.pastedLineRefused(PastedRedirectProblem.unreadable.description))
                            continue
                        }
                        do {
                            try validate(callback)
                        } catch AuthError.protocolViolation(let violation) {
                            // The title names what did not match; the detail's advice is for a delivered redirect.
                            let said = PresentableError(from: .protocolViolation(violation))
                            progress(.pastedLineRefused("That address was refused before any token request: \(said.title)."
                                + " It is not this sign-in's redirect (an earlier tab's?)."))
                            continue
                        } catch {
                            // Anything else (the provider's own error, with this state) is the answer.
                        }
                        return (.callback(callback), true)
                    case .failure(let problem):
                        progress(.pastedLineRefused(problem.description))
                    }
                }
                return nil  // end of input: the listener alone waits on
            }
            while let next = try await group.next() {
                guard let next else { continue }
                group.cancelAll()
                listener.close()
                if next.pasted { progress(.pastedRedirectAccepted) }
                return next.arrival
            }
            throw RedirectListenerFailure.cancelled
        }
    }
}

/// Lines handed over by a front end that reads them itself (the accounts screen's paste field)
/// to the running sign-in's ``PastedLines``: ``send(_:)`` queues one, ``lines`` waits for the
/// next (nil when its Task is cancelled), ``reset()`` drops what an earlier sign-in left.
public final class PastedLineMailbox: Sendable {
    private struct Box {
        var queue: [String] = []
        var waiter: CheckedContinuation<String?, Never>?
    }
    private let box = Mutex(Box())

    public init() {}

    public func send(_ line: String) {
        let waiter = box.withLock { box -> CheckedContinuation<String?, Never>? in
            if let waiter = box.waiter {
                box.waiter = nil
                return waiter
            }
            box.queue.append(line)
            return nil
        }
        waiter?.resume(returning: line)
    }

    public func reset() {
        let waiter = box.withLock { box -> CheckedContinuation<String?, Never>? in
            box.queue.removeAll()
            defer { box.waiter = nil }
            return box.waiter
        }
        waiter?.resume(returning: nil)
    }

    public var lines: PastedLines { PastedLines { [self] in await next() } }

    private func next() async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let ready = box.withLock { box -> String?? in
                    if Task.isCancelled { return .some(nil) }
                    if !box.queue.isEmpty { return .some(box.queue.removeFirst()) }
                    box.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = box.withLock { box -> CheckedContinuation<String?, Never>? in
                defer { box.waiter = nil }
                return box.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
