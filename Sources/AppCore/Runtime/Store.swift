import FoundationEssentials
import Synchronization

/// The store runtime: owns the state, reduces actions one at a time under a lock, and runs
/// effects as tasks whose actions come back through ``send(_:)``.
///
/// Thread-safe on purpose: the TUI's main thread sits in a blocking `get_wch` loop, which would
/// starve `@MainActor` tasks (docs/PLATFORM.md, "Main thread"), so the UI reads ``state`` each turn and
/// is woken through ``onChange`` instead.
public final class Store<State: Equatable & Sendable, Action: Sendable>: Sendable {
    public typealias Reduce = @Sendable (inout State, Action) -> Effect<Action>

    private struct Inner: @unchecked Sendable {
        var state: State
        var running: [EffectID: (token: UUID, task: Task<Void, Never>)] = [:]
        var untracked: [UUID: Task<Void, Never>] = [:]
        var onChange: (@Sendable () -> Void)?
    }

    private let reduce: Reduce
    private let inner: Mutex<Inner>

    public init(initialState: State, reduce: @escaping Reduce) {
        self.reduce = reduce
        self.inner = Mutex(Inner(state: initialState))
    }

    /// The current state (a copy).
    public var state: State { inner.withLock { $0.state } }

    /// Called (on any thread) after every action that changed the state.
    public func setOnChange(_ body: (@Sendable () -> Void)?) { inner.withLock { $0.onChange = body } }

    /// Reduces `action` and starts its effects.
    public func send(_ action: Action) {
        let (effect, changed, onChange) = inner.withLock { inner -> (Effect<Action>, Bool, (@Sendable () -> Void)?) in
            let before = inner.state
            let effect = reduce(&inner.state, action)
            return (effect, before != inner.state, inner.onChange)
        }
        if changed { onChange?() }
        start(effect, id: nil)
    }

    /// Cancels every running effect.
    public func cancelAll() {
        let tasks = inner.withLock { inner -> [Task<Void, Never>] in
            let all = inner.running.values.map(\.task) + Array(inner.untracked.values)
            inner.running = [:]
            inner.untracked = [:]
            return all
        }
        tasks.forEach { $0.cancel() }
    }

    private func start(_ effect: Effect<Action>, id: EffectID?) {
        switch effect.operation {
        case .none:
            return
        case .send(let action):
            send(action)
        case .merge(let effects):
            effects.forEach { start($0, id: id) }
        case .cancel(let cancelID):
            let entry = inner.withLock { $0.running.removeValue(forKey: cancelID) }
            entry?.task.cancel()
        case .cancellable(let newID, let inner):
            let old = self.inner.withLock { $0.running.removeValue(forKey: newID) }
            old?.task.cancel()
            start(inner, id: newID)
        case .run(let body):
            // A cancelled effect's late actions are dropped.
            let send = Send<Action> { [weak self] action in
                guard !Task.isCancelled else { return }
                self?.send(action)
            }
            let token = UUID()
            // Registered before the task can finish: the lock is held while the task is created.
            inner.withLock { inner in
                let task = Task.detached { [weak self] in
                    await body(send)
                    self?.finished(id: id, token: token)
                }
                if let id { inner.running[id] = (token, task) } else { inner.untracked[token] = task }
            }
        }
    }

    private func finished(id: EffectID?, token: UUID) {
        inner.withLock { inner in
            if let id {
                if inner.running[id]?.token == token { inner.running[id] = nil }
            } else {
                inner.untracked[token] = nil
            }
        }
    }
}
