import AppCore
import AppCoreLive
import Synchronization
import AuthEngine
import CredentialStore
import CredentialStoreLive
import Dispatch
import FoundationEssentials
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif
/// Ctrl-C during a long operation (login): cancels the task instead of killing the process, so
/// the loopback listener closes and nothing is stored.
enum Interrupt {
    /// Runs `operation` as a task that SIGINT (and SIGTERM) cancels; returns its result and
    /// whether it was interrupted.
    static func cancellable<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> (T, interrupted: Bool) {
        let task = Task { await operation() }
        let flag = InterruptFlag()
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                flag.set()
                task.cancel()
            }
            source.resume()
            return source
        }
        let value = await task.value
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        return (value, flag.isSet)
    }
}

final class InterruptFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
