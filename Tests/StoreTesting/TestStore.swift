import AppCore
import AuthEngine
import Foundation
import Synchronization
import Testing

/// An exhaustive test store (TCA's TestStore, ours): every state change must be asserted in
/// `send`/`receive`, every action an effect sends must be received, and no effect may still be
/// running at `finish()`.
public final class TestStore<State: Equatable & Sendable, Action: Equatable & Sendable>: @unchecked Sendable {
    public private(set) var state: State
    private let reduce: (inout State, Action) -> Effect<Action>
    private let inbox = Mutex<[Action]>([])
    private let tasks = Mutex<[UUID: (id: EffectID?, task: Task<Void, Never>)]>([:])

    public init(initialState: State, reduce: @escaping (inout State, Action) -> Effect<Action>) {
        self.state = initialState
        self.reduce = reduce
    }

    /// Sends `action`; `update` describes exactly how the state must change.
    public func send(_ action: Action, sourceLocation: SourceLocation = #_sourceLocation, _ update: ((inout State) -> Void)? = nil) {
        let pending = inbox.withLock { $0 }
        #expect(pending.isEmpty, "Must receive \(pending) before sending \(action)", sourceLocation: sourceLocation)
        apply(action, update, sourceLocation)
    }

    /// Waits (up to `timeout` seconds) for the next action an effect sent and asserts it.
    public func receive(_ expected: Action, timeout: Double = 30, sourceLocation: SourceLocation = #_sourceLocation,
                        _ update: ((inout State) -> Void)? = nil) async {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let next = inbox.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                #expect(next == expected, "Received an unexpected action", sourceLocation: sourceLocation)
                apply(next, update, sourceLocation)
                return
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("Timed out waiting for \(expected)", sourceLocation: sourceLocation)
    }

    /// Asserts that every effect finished (waiting up to `timeout` s) and every action was received.
    public func finish(timeout: Double = 30, sourceLocation: SourceLocation = #_sourceLocation) async {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, !tasks.withLock({ $0.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let running = tasks.withLock { $0.values.map { $0.id?.rawValue ?? "unnamed" } }
        #expect(running.isEmpty, "Effects still running: \(running)", sourceLocation: sourceLocation)
        let pending = inbox.withLock { $0 }
        #expect(pending.isEmpty, "Unreceived actions: \(pending)", sourceLocation: sourceLocation)
    }

    /// Whether an effect with this id is running.
    public func isRunning(_ id: EffectID) -> Bool { tasks.withLock { $0.values.contains { $0.id == id } } }

    private func apply(_ action: Action, _ update: ((inout State) -> Void)?, _ sourceLocation: SourceLocation) {
        var expected = state
        update?(&expected)
        let effect = reduce(&state, action)
        #expect(state == expected, "State after \(action) differs from the asserted change", sourceLocation: sourceLocation)
        start(effect, id: nil)
    }

    private func start(_ effect: Effect<Action>, id: EffectID?) {
        switch effect.operation {
        case .none: break
        case .send(let action): inbox.withLock { $0.append(action) }
        case .merge(let effects): effects.forEach { start($0, id: id) }
        case .cancel(let cancelID): cancel(cancelID)
        case .cancellable(let newID, let inner):
            cancel(newID)
            start(inner, id: newID)
        case .run(let body):
            let token = UUID()
            // Like the runtime: a cancelled effect's late actions are dropped.
            let send = Send<Action> { action in
                guard !Task.isCancelled else { return }
                self.inbox.withLock { $0.append(action) }
            }
            tasks.withLock { tasks in
                let task = Task {
                    await body(send)
                    _ = self.tasks.withLock { $0.removeValue(forKey: token) }
                }
                tasks[token] = (id, task)
            }
        }
    }

    private func cancel(_ id: EffectID) {
        let cancelled = tasks.withLock { tasks -> [Task<Void, Never>] in
            let matching = tasks.filter { $0.value.id == id }
            matching.keys.forEach { tasks[$0] = nil }
            return matching.values.map(\.task)
        }
        cancelled.forEach { $0.cancel() }
    }
}

/// A clock for stories: time only moves when the test says so.
public struct TestClock {
    public private(set) var now: Date
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { now = start }
    public mutating func advance(by seconds: Double) -> Date {
        now = now.addingTimeInterval(seconds)
        return now
    }
}

/// Holds an effect until the test opens it (to observe in-flight states).
public final class Gate: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    public init() { (stream, continuation) = AsyncStream.makeStream() }
    public func wait() async { for await _ in stream { return } }
    public func open() { continuation.yield(); continuation.finish() }
}

/// Counts calls from effects.
public final class Counter: Sendable {
    private let value = Mutex(0)
    public init() {}
    public func increment() { value.withLock { $0 += 1 } }
    public var count: Int { value.withLock { $0 } }
}
