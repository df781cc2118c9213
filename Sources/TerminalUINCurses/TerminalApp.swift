// The UI run loop: one thread (the main thread) owns ncurses. Other threads post messages to an
// Inbox, which wakes the loop through a pipe. The loop sleeps in poll(2) on stdin and that pipe,
// with a timeout only while something on screen changes with time: no busy loop.
@preconcurrency import CNCurses
import FoundationEssentials
import Glibc
import Synchronization
import TerminalUI

/// A thread-safe mailbox for the UI loop. `post` may be called from any thread or task; the loop
/// drains messages on the main thread in order.
public final class Inbox<Message: Sendable>: Sendable {
    private let queue = Mutex<[Message]>([])
    private let readFD: Int32
    private let writeFD: Int32

    public init() {
        var fds: [Int32] = [-1, -1]
        if authdeck_pipe_nonblock(&fds) != 0 { fds = [-1, -1] }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }

    /// Queues a message and wakes the loop.
    public func post(_ message: Message) {
        queue.withLock { $0.append(message) }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)  // a full pipe already means "wake up"; EAGAIN is fine
    }

    /// `post` as a function value, for effect runners on other threads.
    public var sender: @Sendable (Message) -> Void {
        { [self] in self.post($0) }
    }

    /// The descriptor the loop polls (the accessible mode's loop too).
    public var wakeFD: Int32 { readFD }

    /// Empties the wake pipe and returns the queued messages.
    public func drain() -> [Message] {
        var buf = [UInt8](repeating: 0, count: 256)
        while read(readFD, &buf, buf.count) > 0 {}
        return queue.withLock { q in
            defer { q.removeAll() }
            return q
        }
    }
}

/// What the loop reports to the app.
public enum LoopEvent<Message: Sendable> {
    /// A key, with what the key tables make of it for the model on screen.
    case key(KeyEvent, KeyResult)
    /// A message posted to the inbox.
    case message(Message)
    /// The terminal was resized (the loop re-lays out by itself).
    case resize(Size)
}

public enum LoopControl: Sendable {
    case `continue`
    case quit
}

/// Why `run` returned.
public enum LoopExit: Equatable, Sendable {
    /// The handler returned `.quit`.
    case quit
    /// SIGINT, SIGTERM or SIGHUP (the signal number).
    case signal(Int32)
    /// The terminal went away (hang-up or endless read errors).
    case terminalGone
}

/// Runs the TUI: draws `model(now)` whenever it changes, a resize happens, or a tick is due.
///
/// Ticks: the loop sleeps until `ScreenModel.nextRedraw(after:)` (the next step of a visible
/// countdown, else the next minute of the header clock), input, a message or a signal.
/// Main thread only; `run` returns after restoring the terminal.
@MainActor
public final class TerminalApp<Message: Sendable> {
    public let inbox = Inbox<Message>()
    public let screen: CursesScreen
    private let clock: () -> Date
    /// Pending terminal writes outside ncurses (OSC 52), flushed after the next draw.
    private var rawWrites: [String] = []

    /// Starts ncurses (see `CursesScreen.init`). `clock` is the time source for `now`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                clock: @escaping () -> Date = Date.init) throws(TerminalError) {
        screen = try CursesScreen(environment: environment)
        self.clock = clock
    }

    /// Queues an OSC 52 clipboard write of `text` (written straight to the terminal after the next
    /// draw, never through ncurses cells).
    public func copyToClipboard(_ text: String) {
        rawWrites.append(Clipboard.osc52(text))
    }

    /// The loop.
    /// - Parameters:
    ///   - model: the screen for an instant (the loop passes its clock's `now`). Called after
    ///     every batch of events; cheap to call.
    ///   - theme: the theme to draw with (re-applied when it changes).
    ///   - handle: receives keys (already dispatched through the key tables), inbox messages and
    ///     resizes; returns `.quit` to leave.
    public func run(
        model: (Date) -> ScreenModel,
        theme: () -> Theme,
        handle: (LoopEvent<Message>) -> LoopControl
    ) -> LoopExit {
        defer { screen.end() }
        var current = model(clock())
        var lastModel: ScreenModel?
        var lastSize: Size?
        var lastTheme: Theme?
        var force = true
        var idleErrors = 0
        while true {
            if let sig = screen.takeQuitSignal() { return .signal(sig) }
            let th = theme()
            screen.apply(theme: th)
            let size = screen.size
            // Render only when the model, the size or the theme changed (or after a resize).
            if force || current != lastModel || size != lastSize || th != lastTheme {
                screen.draw(Renderer.render(current, size: size, theme: th), force: force)
                lastModel = current
                lastSize = size
                lastTheme = th
            }
            force = false
            flushRawWrites()

            // Sleep until input, a message, a signal (EINTR) or the next tick.
            let now = clock()
            let wake = current.nextRedraw(after: now).timeIntervalSince(now)
            let timeoutMS = Int32(min(60_000, max(1, (wake * 1000).rounded(.up) + 2)))
            // The signal pipe wakes us even when the kernel delivers the signal to another thread.
            // That is the usual case in authdeck: with Swift's async main on Linux, thread 0 parks
            // in dispatch_main (sigsuspend) while the main queue, and so this loop, runs on a worker
            // thread; a process-directed SIGTERM runs its handler on thread 0 and never
            // interrupted this poll (measured: 10 s, the test's limit, without the pipe).
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: inbox.wakeFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: screen.signalFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, nfds_t(fds.count), timeoutMS)
            let pollError = errno  // before anything else can change it
            if let sig = screen.takeQuitSignal() { return .signal(sig) }
            if ready < 0 && pollError != EINTR { return .terminalGone }
            if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 && fds[0].revents & Int16(POLLIN) == 0 {
                return .terminalGone
            }

            var quit = false
            // Messages first (effect results), then keys against the updated model.
            for m in inbox.drain() where !quit {
                if handle(.message(m)) == .quit { quit = true }
            }
            if quit { return .quit }
            current = model(clock())

            var gotKey = false
            while let key = screen.readKey() {
                gotKey = true
                if key == .resize {
                    force = true
                    screen.invalidate()
                    if handle(.resize(screen.size)) == .quit { return .quit }
                    current = model(clock())
                    continue
                }
                let result = KeyBindings.dispatch(key, model: current, size: screen.size)
                if handle(.key(key, result)) == .quit { return .quit }
                current = model(clock())
            }
            // stdin readable but nothing decodable, over and over: the terminal is gone (docs/PLATFORM.md, "Terminal").
            if fds[0].revents & Int16(POLLIN) != 0 && !gotKey {
                idleErrors += 1
                if idleErrors > 100 { return .terminalGone }
            } else {
                idleErrors = 0
            }
            current = model(clock())
        }
    }

    private func flushRawWrites() {
        guard !rawWrites.isEmpty else { return }
        for s in rawWrites {
            let bytes = Array(s.utf8)
            _ = bytes.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        }
        rawWrites.removeAll()
    }
}
