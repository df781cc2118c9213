import Foundation

/// Runs blocking work (a libcurl transfer, the listener's poll loop, reaping a child) on a new
/// thread of its own: never on the Swift cooperative pool, which must not block (on 2 cores a
/// couple of blocked pool threads stall every other task), and not on a shared Dispatch queue,
/// so that concurrent waits (listener, transfers, reapers) never queue behind each other.
enum DedicatedThread {
    static func run(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
