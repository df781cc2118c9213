import CTerminalSignals
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The signals `authdeck exec` passes on to its child (CTerminalSignals'
/// `authdeck_relay_signals_install`: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM),
/// and SIGCHLD to wake the watch.
struct SignalRelay {
    let descriptor: Int32

    /// - Throws: ``CLIFailure`` when the wake pipe cannot be made.
    static func install() throws -> SignalRelay {
        let descriptor = authdeck_relay_signals_install()
        guard descriptor >= 0 else { throw CLIFailure("Cannot watch signals for the child: \(Output.describe(errno: errno))") }
        return SignalRelay(descriptor: descriptor)
    }

    /// Whether this process leads its session (`tmux new-session 'exec authdeck exec …'`, `ssh -t`,
    /// `xterm -e`): the terminal's hangup then reaches only us, never the child.
    let leadsSession = getsid(0) == getpid()

    /// Waits until a signal arrives or `deadline` (nil: no deadline) passes; returns the signals
    /// to pass on: every one but SIGCHLD, except those the kernel sent to the whole foreground
    /// process group, which the child got as we did (the terminal's Ctrl-C, Ctrl-\, and its
    /// hangup unless we lead the session).
    func wait(until deadline: Date?) -> [Int32] {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let timeout = deadline.map { Int32(clamping: Int(max(0, min($0.timeIntervalSinceNow, 3600)) * 1000) + 1) } ?? -1
        _ = poll(&poller, 1, timeout)
        var relayed: [Int32] = []
        var record: (UInt8, UInt8) = (0, 0)
        while withUnsafeMutableBytes(of: &record, { read(descriptor, $0.baseAddress, 2) }) == 2 {
            let (signal, fromKernel) = (Int32(record.0), record.1 == 1)
            if signal != SIGCHLD, !fromKernel || (signal == SIGHUP && leadsSession) { relayed.append(signal) }
        }
        return relayed
    }
}
