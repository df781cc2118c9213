import Glibc

/// Runs blocking work (a libcurl transfer, the listener's poll loop, reaping a child) on a new
/// thread of its own: never on the Swift cooperative pool, which must not block (on 2 cores a
/// couple of blocked pool threads stall every other task), and not on a shared Dispatch queue,
/// so that concurrent waits (listener, transfers, reapers) never queue behind each other.
/// A detached POSIX thread (pthread_create(3)); `name` says at the call site what it waits for.
enum DedicatedThread {
    private final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    static func run(name: String, _ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            let work = Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue()
            work.body()
            return nil
        }, work)
        guard created == 0 else {
            // No thread (EAGAIN: the process is out of threads): run it here rather than lose it.
            Unmanaged<Work>.fromOpaque(work).takeRetainedValue().body()
            return
        }
        pthread_detach(thread)
    }
}
