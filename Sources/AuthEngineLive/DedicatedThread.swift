import Foundation

/// Runs blocking work (a libcurl transfer, the listener's poll loop, reaping a child) on a new
/// thread of its own. Not Dispatch: libdispatch on Linux caps the worker threads of its
/// concurrent queues at about the core count, so several blocking items starve each other; and
/// never the Swift cooperative pool, which must not block.
enum DedicatedThread {
    static func run(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
