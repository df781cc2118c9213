import Dispatch
import Synchronization

/// Runs a subcommand's async work on the main thread instead of Swift's cooperative thread pool.
///
/// A command such as `authdeck token` awaits a handful of times (use cases are async because they
/// may refresh), and on the global executor every hop may wake or create a pool thread: 4–5
/// thread creations and cross-core hand-offs per call, for work that is sequential anyway
/// (PERFORMANCE.md). With this executor as the task's preference (SE-0417), nonisolated async
/// code runs here, one job at a time, on the thread that calls ``run(until:)``. Blocking work
/// (libcurl transfers, libsecret calls) still runs on its own threads and resumes the task here.
/// Not for the TUI: its main-actor code needs the main queue, which this loop does not serve.
final class CommandLineExecutor: TaskExecutor, @unchecked Sendable {
    private let jobs = Mutex<[UnownedJob]>([])
    private let wakeUp = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        wakeUp.signal()
    }

    /// Wakes ``run(until:)`` to look at its condition again.
    func wake() { wakeUp.signal() }

    /// Runs enqueued jobs on the calling thread until `done()` holds.
    func run(until done: () -> Bool) {
        while !done() {
            wakeUp.wait()
            while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    /// `operation` as a task preferring this executor, run to completion on the calling thread.
    static func runToCompletion(_ operation: @escaping @Sendable () async -> Int32) -> Int32 {
        let executor = CommandLineExecutor()
        let result = Mutex<Int32?>(nil)
        Task.detached(executorPreference: executor) {
            let code = await operation()
            result.withLock { $0 = code }
            executor.wake()
        }
        executor.run(until: { result.withLock { $0 } != nil })
        return result.withLock { $0 }!
    }
}
