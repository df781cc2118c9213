/// Identifies a running effect so that it can be cancelled (or replaced) by id.
public struct EffectID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// Sends an action back into the store from an effect.
public struct Send<Action: Sendable>: Sendable {
    let send: @Sendable (Action) -> Void
    public init(_ send: @escaping @Sendable (Action) -> Void) { self.send = send }
    public func callAsFunction(_ action: Action) { send(action) }
}

/// The work a reducer asks for, as a value (TCA's small vocabulary). Effects run through the
/// injected dependencies and come back as actions; the reducer itself never performs I/O.
public struct Effect<Action: Sendable>: Sendable {
    public indirect enum Operation: Sendable {
        case none
        /// Async work; it may send any number of actions.
        case run(@Sendable (Send<Action>) async -> Void)
        /// Send an action right away (after the current reduce).
        case send(Action)
        case merge([Effect<Action>])
        /// Cancel the running effect with this id.
        case cancel(EffectID)
        /// Run `effect` under `id`; a new one with the same id cancels the old one first.
        case cancellable(EffectID, Effect<Action>)
    }

    public let operation: Operation

    public static var none: Self { Self(operation: .none) }
    public static func run(_ body: @escaping @Sendable (Send<Action>) async -> Void) -> Self { Self(operation: .run(body)) }
    public static func send(_ action: Action) -> Self { Self(operation: .send(action)) }
    public static func merge(_ effects: Self...) -> Self { merge(effects) }
    public static func merge(_ effects: [Self]) -> Self {
        let kept = effects.filter { if case .none = $0.operation { false } else { true } }
        return kept.isEmpty ? .none : kept.count == 1 ? kept[0] : Self(operation: .merge(kept))
    }
    public static func cancel(_ id: EffectID) -> Self { Self(operation: .cancel(id)) }
    public func cancellable(_ id: EffectID) -> Self { Self(operation: .cancellable(id, self)) }

    public var isNone: Bool { if case .none = operation { true } else { false } }

    /// The same work sending `transform(action)` for each action: a parent feature runs a child
    /// reducer's effect this way (TCA's scoping), with the ids unchanged.
    public func map<Parent: Sendable>(_ transform: @escaping @Sendable (Action) -> Parent) -> Effect<Parent> {
        switch operation {
        case .none: .none
        case .run(let body): .run { send in await body(Send { send(transform($0)) }) }
        case .send(let action): .send(transform(action))
        case .merge(let effects): .merge(effects.map { $0.map(transform) })
        case .cancel(let id): .cancel(id)
        case .cancellable(let id, let effect): effect.map(transform).cancellable(id)
        }
    }
}
