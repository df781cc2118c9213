import FoundationEssentials
import Glibc
import Synchronization

/// Reads lines a person pastes on the controlling terminal (`/dev/tty`) while a browser sign-in
/// waits for its redirect: the address a browser on another machine ended on, or the code.
///
/// - Echo is off while a line is read (it may carry the authorization code) and the terminal's
///   modes come back after each line, on cancellation and on close; line editing (ICANON) stays.
///   Only the terminal's foreground job reads or sets the modes (`tcgetpgrp`): a background
///   `login &` leaves the terminal alone until it is brought to the foreground.
/// - A line read drops what follows it in the same paste (`tcflush`), and so does ``close()``:
///   nothing pasted reaches the shell after authdeck exits.
/// - ``nextLine()`` waits on a thread of its own (``DedicatedThread``), polling the terminal and
///   a wake pipe: a cancelled Task, or ``close()``, ends the wait at once and it returns nil.
/// - A line is at most ``maximumLineBytes``; end of input (the terminal hung up) is nil.
/// - Nothing read is logged or kept after it is returned.
public final class TerminalLineReader: Sendable {
    /// The longest line kept (a redirect URL with its parameters fits many times over).
    public static let maximumLineBytes = 16 * 1024

    private let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let closed = Mutex(false)

    /// Opens the controlling terminal; nil when there is none (a script, a service) or it is not a terminal.
    public init?() {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        guard isatty(fd) == 1 else { _ = Glibc.close(fd); return nil }
        var pipeDescriptors: [Int32] = [-1, -1]
        guard pipe(&pipeDescriptors) == 0 else { _ = Glibc.close(fd); return nil }
        for end in pipeDescriptors {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        descriptor = fd
        wakeRead = pipeDescriptors[0]
        wakeWrite = pipeDescriptors[1]
    }

    deinit {
        for fd in [descriptor, wakeRead, wakeWrite] { _ = Glibc.close(fd) }
    }

    /// The next line, without its line ending; nil at end of input, after ``close()`` or when the Task is cancelled.
    public func nextLine() async -> String? {
        if closed.withLock({ $0 }) || Task.isCancelled { return nil }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                DedicatedThread.run(name: "authdeck.terminal-line") { continuation.resume(returning: self.readLine()) }
            }
        } onCancel: {
            self.close()
        }
    }

    /// Ends a pending and every later ``nextLine()`` (idempotent); what was typed and not read is
    /// dropped (it would reach the shell).
    public func close() {
        closed.withLock { $0 = true }
        discardPendingInput()
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func readLine() -> String? {
        // The terminal's modes before this read (echo on), put back when it ends; only the
        // foreground job reads or sets them: a background `login &` waits, and a stopped one that
        // is brought back gets echo turned off again.
        var saved: termios?
        defer {
            if var modes = saved, isForeground { _ = tcsetattr(descriptor, TCSANOW, &modes) }
        }
        var bytes: [UInt8] = []
        defer { for index in bytes.indices { bytes[index] = 0 } }
        var chunk = [UInt8](repeating: 0, count: 1024)
        while !closed.withLock({ $0 }) {
            let foreground = isForeground
            if foreground {
                var modes = termios()
                if tcgetattr(descriptor, &modes) == 0 {
                    if saved == nil { saved = modes }
                    if modes.c_lflag & tcflag_t(ECHO) != 0 || modes.c_lflag & tcflag_t(ICANON) == 0 {
                        modes.c_lflag &= ~tcflag_t(ECHO)
                        modes.c_lflag |= tcflag_t(ICANON)
                        _ = tcsetattr(descriptor, TCSANOW, &modes)
                    }
                }
            }
            var descriptors = [pollfd(fd: foreground ? descriptor : -1, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, 250)
            if ready < 0 { if errno == EINTR { continue } else { return nil } }
            if descriptors[1].revents != 0 { return nil }
            guard foreground, descriptors[0].revents != 0 else { continue }
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 { if errno == EINTR || errno == EAGAIN || errno == EIO { continue } else { return nil } }
            if count == 0 { return nil }
            bytes += chunk.prefix(count)
            for index in chunk.indices { chunk[index] = 0 }
            if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                // The rest of a paste of several lines is dropped, not left for the shell to run
                // after authdeck exits; the person's Enter was not echoed.
                _ = tcflush(descriptor, TCIFLUSH)
                _ = write(descriptor, "\n", 1)
                var line = Array(bytes[..<end])
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line.prefix(Self.maximumLineBytes), as: UTF8.self)
            }
            if bytes.count > Self.maximumLineBytes * 4 { bytes.removeAll() }
        }
        return nil
    }

    /// Whether this process's group is the terminal's foreground job.
    private var isForeground: Bool { tcgetpgrp(descriptor) == getpgrp() }

    /// The longest line a Linux terminal in canonical mode passes on (N_TTY_BUF_SIZE less the
    /// newline): a longer paste arrives cut at this length.
    public static let canonicalLineLimit = 4095

    /// Drops what was typed but not read (a paste of several lines), so the shell does not run it
    /// after authdeck exits. Only from the foreground.
    public func discardPendingInput() {
        if isForeground { _ = tcflush(descriptor, TCIFLUSH) }
    }
}
