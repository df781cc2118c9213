import Synchronization

/// A monotonic clock for `AppEnvironment.clock` that sleeps by moving its own time: a 130 s lock
/// wait takes no real time. `onSleep` sees the time after each sleep (a story can release a lock
/// at a chosen moment).
final class FakeClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let elapsed = Mutex(Duration.zero)
    private let sleeps = Mutex(0)
    let onSleep: @Sendable (_ elapsed: Duration) -> Void

    init(onSleep: @escaping @Sendable (Duration) -> Void = { _ in }) { self.onSleep = onSleep }

    var now: Instant { Instant(offset: elapsed.withLock { $0 }) }
    var minimumResolution: Duration { .zero }
    /// The time passed on this clock.
    var totalElapsed: Duration { elapsed.withLock { $0 } }
    var sleepCount: Int { sleeps.withLock { $0 } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        let after = elapsed.withLock { value in
            value = max(value, deadline.offset)
            return value
        }
        sleeps.withLock { $0 += 1 }
        onSleep(after)
    }
}
