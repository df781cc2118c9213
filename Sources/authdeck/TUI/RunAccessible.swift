import AccountsScreen
import AppCore
import AppCoreLive
import FoundationEssentials
import Glibc
import TerminalUI
import TerminalUINCurses
import TextSupport

// `authdeck --accessible` (or ACCESSIBLE=1): the accounts screen's store (the same reducer and
// state as the screen) read out as append-only lines for a screen reader or a braille display.
// No cursor addressing, no redraw, no colour: each change said once (Announcements), countdowns
// only at thresholds or on request (`time`); typed lines are keys through the same bindings
// (AccessibleText.request). The terminal stays in its line mode: nothing to restore.

/// The accessible mode's loop; returns the exit status (0 on `q` or end of input).
@MainActor
func runAccessible(_ parsed: ParsedCommand, environment: [String: String]) -> Int32 {
    let live = AppEnvironment.live(processEnvironment: environment)
    let unlockError: AppError? = { do throws(AppError) { try LoadAccounts(live).unlock(); return nil } catch { return error } }()
    let inbox = Inbox<TUIMessage>()
    let store = makeScreenStore(parsed, environment: environment, live: live, unlockError: unlockError, inbox: inbox)
    defer {
        store.setOnChange(nil)
        store.cancelAll()
    }
    func say(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        Output.raw(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
    func model(_ now: Date) -> ScreenModel {
        var model = AccountsScreen.model(store.state)
        model.now = now
        return model
    }
    say(["authdeck accounts, accessible mode. Type a key and Enter; 'keys' lists the keys, 'read' reads the screen,"
        + " 'time' says the time left, q quits."])
    var said = store.state.app
    said.now = live.now()
    var shown = model(said.now)
    var loaded = false
    var pending: [UInt8] = []
    // Echo off while a secret is typed (tcsetattr on the terminal's own mode), put back on return.
    var original = termios()
    let terminal = isatty(STDIN_FILENO) == 1 && tcgetattr(STDIN_FILENO, &original) == 0
    var echoing = true
    defer { if terminal && !echoing { tcsetattr(STDIN_FILENO, TCSANOW, &original) } }
    func echo(_ on: Bool) {
        guard terminal, on != echoing else { return }
        var mode = original
        if !on { mode.c_lflag &= ~tcflag_t(ECHO) }
        if tcsetattr(STDIN_FILENO, TCSANOW, &mode) == 0 { echoing = on }
    }
    while true {
        echo(!AccessibleText.typesSecret(model(live.now())))
        // Awake for input, the store's changes, and the next threshold a countdown crosses.
        let now = live.now()
        let wake = nextThreshold(store.state.app, after: now).map { Int32(min(60_000, max(1, ($0.timeIntervalSince(now) * 1000).rounded(.up) + 2))) }
        var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: inbox.wakeFD, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 2, wake ?? 60_000)
        if ready < 0 && errno != EINTR { return ExitCode.failure }
        for message in inbox.drain() {
            // The clipboard (OSC 52) is no cursor movement: the copy works as on the screen.
            if case .copy(let text) = message { Output.raw(Data(Clipboard.osc52(text).utf8)) }
        }
        var lines: [String] = []
        if fds[0].revents & Int16(POLLIN | POLLHUP) != 0 {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count <= 0 && !(count < 0 && errno == EINTR) { return ExitCode.ok }
            if count > 0 { pending += buffer[0..<count] }
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<end].filter { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
                pending.removeSubrange(...end)
                let current = model(live.now())
                switch AccessibleText.request(line, model: current) {
                case .read: lines += AccessibleText.screen(current)
                case .listKeys: lines += AccessibleText.keys(current)
                case .time: lines += current.accounts.map { AccessibleText.account($0, number: nil, model: current) }
                case .keys(let keys):
                    for key in keys {
                        switch KeyBindings.dispatch(key, model: model(live.now())) {
                        case .command(.quit): return ExitCode.ok
                        case .command(let command): store.send(.command(command))
                        case .disabled(let reason): lines.append("Not now: \(reason)")
                        case .unhandled: lines.append("No key \(AccessibleText.spokenKey(key)) here; 'keys' lists them.")
                        }
                    }
                }
            }
        }
        // What changed, said once.
        let at = live.now()
        var state = store.state.app
        state.now = at
        let current = model(at)
        if loaded {
            lines += Announcements.changes(from: said, to: state, now: at).map(Sanitizer.visible)
            lines += AccessibleText.changed(from: shown, to: current)
        } else if case .loaded = state.load {
            // The first load: the screen read in order, and a start-up message (not every account "signed in").
            loaded = true
            var quiet = state
            quiet.flash = nil
            lines += AccessibleText.screen(current) + Announcements.changes(from: quiet, to: state, now: at).map(Sanitizer.visible)
        }
        said = state
        shown = current
        say(lines)
    }
}

/// The next instant an access token's time left crosses a threshold (Announcements), or nil.
func nextThreshold(_ state: AppState, after now: Date) -> Date? {
    state.accounts.compactMap { account -> Date? in
        guard let expiresAt = account.record.accessTokenExpiresAt else { return nil }
        return ([0] + Announcements.thresholds).map { expiresAt.addingTimeInterval(-Double($0)) }.filter { $0 > now }.min()
    }.min()
}
