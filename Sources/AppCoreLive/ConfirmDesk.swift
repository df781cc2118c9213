import AppCore
import FoundationEssentials
import QuickToken
import Synchronization
import TextSupport

#if canImport(Glibc)
import Glibc
#endif

/// `--confirm`'s questions on this machine's terminal, one at a time (a question waits for the one
/// before it; each says how many more wait): `y` allows; anything else, no terminal, or no answer
/// within `timeout` seconds of the request's arrival (at most ``AgentConnection/maximumConfirmTimeout``)
/// is no. The wait behind other questions counts, so every request is answered within its
/// timeout (the remote's client waits that plus 5 s); a question whose time ran out in the queue
/// is not asked, and the terminal says so. Each question waits on a thread of its own (never a
/// cooperative pool thread: other requests are answered meanwhile).
public final class ConfirmDesk: Sendable {
    /// Seconds, clamped to 0…``AgentConnection/maximumConfirmTimeout``.
    public let timeout: Double
    /// The terminal asked: `/dev/tty` (a test's pseudo-terminal).
    let terminalPath: String
    /// Held while a question is on the terminal.
    let terminal = Mutex(())
    /// Questions asked and not yet decided, the one on the terminal included.
    let pending = Atomic<Int>(0)

    public init(timeout: Double, terminalPath: String = "/dev/tty") {
        self.timeout = min(max(timeout.isFinite ? timeout : 0, 0), Double(AgentConnection.maximumConfirmTimeout))
        self.terminalPath = terminalPath
    }

    public func ask(_ question: AgentService.Question) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        pending.add(1, ordering: .sequentiallyConsistent)
        return await Blocking.onOwnThread {
            self.terminal.withLock { _ in
                // Decided before the next question takes the terminal and counts the ones waiting.
                defer { self.pending.subtract(1, ordering: .sequentiallyConsistent) }
                return self.askOnTerminal(question, deadline: deadline)
            }
        }
    }

    /// The question's words: who asks for what, the seconds left and how many questions wait behind it.
    public static func text(_ question: AgentService.Question, seconds: Int, waiting: Int) -> String {
        "authdeck agent: \(Sanitizer.visible(question.host)) runs '\(Sanitizer.visible(question.command))' and asks for"
            + " \(Sanitizer.visible(question.account))\(question.resource.map { " for the resource \(Sanitizer.visible($0))" } ?? "")."
            + " Allow? [y/N] (\(seconds) s\(waiting > 0 ? "; \(waiting) more waiting" : "")) "
    }

    private func askOnTerminal(_ question: AgentService.Question, deadline: ContinuousClock.Instant) -> Bool {
        let fd = open(terminalPath, O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        func say(_ text: String) { _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        let left = (deadline - ContinuousClock.now).components
        let milliseconds = left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000
        guard milliseconds > 0 else {
            say("authdeck agent: \(Sanitizer.visible(question.host)) asked for \(Sanitizer.visible(question.account))"
                + " ('\(Sanitizer.visible(question.command))'): its \(Int(timeout)) s ran out while other questions were asked: denied\n")
            return false
        }
        say(Self.text(question, seconds: Int((milliseconds + 999) / 1000), waiting: pending.load(ordering: .sequentiallyConsistent) - 1))
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(clamping: milliseconds)) == 1 else {
            say("no answer: denied\n")
            return false
        }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count > 0 && (buffer[0] == UInt8(ascii: "y") || buffer[0] == UInt8(ascii: "Y"))
    }
}
