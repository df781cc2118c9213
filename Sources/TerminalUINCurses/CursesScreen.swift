// The ncurses session: setup and teardown, colour pairs from a theme, blitting frames, and
// decoding keys. Every call here must run on the one UI thread (the main thread).
@preconcurrency import CNCurses
import LibraryLoader
import CTerminalSignals
import FoundationEssentials
import Glibc
import TerminalUI
import TextSupport

/// Why the terminal could not be used.
public enum TerminalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `TERM` is unset or empty.
    case noTerminalType
    /// ncurses has no terminfo entry for `TERM`.
    case unknownTerminal(String)
    /// stdin or stdout is not a terminal.
    case notATerminal
    /// The terminfo entry for `TERM` has no cursor addressing (`cup`), e.g. `TERM=dumb`.
    case noCursorAddressing(String)
    /// libncursesw (or its libtinfo) cannot be loaded: not installed, or too old.
    case library(LibraryLoadError)

    public var description: String {
        switch self {
        case .noTerminalType: "TERM is not set; the interactive UI needs a terminal (use a subcommand instead, e.g. authdeck status)"
        case .unknownTerminal(let t): "unknown terminal type \"\(Sanitizer.visible(t))\" (no terminfo entry); try TERM=xterm-256color"
        case .notATerminal: "standard input and output must be a terminal for the interactive UI"
        case .noCursorAddressing(let t):
            "terminal type \"\(Sanitizer.visible(t))\" cannot move the cursor, which the interactive UI needs;"
                + " try TERM=xterm-256color, or use a subcommand (e.g. authdeck status)"
        case .library(let error): "the interactive UI needs ncurses: \(error.description)"
        }
    }
}

/// An ncurses screen on stdin/stdout. Create it, draw frames, read keys, and call `end()` (also
/// done on deinit). Only one may exist at a time. Main thread only.
@MainActor
public final class CursesScreen {
    private var screen: OpaquePointer?
    private let nc: NCurses
    private var ended = false
    /// True when the locale's character set is UTF-8 (else draw the QR code with `GlyphSet.ascii`;
    /// box drawing needs UTF-8 too, so tell the user to set LANG=C.UTF-8).
    public private(set) var isUTF8 = false
    /// Number of colours the terminal supports (0 without colour support or with `NO_COLOR`).
    public private(set) var colors: Int = 0
    private var theme: Theme?
    private var styles: [StyleRole: (attrs: attr_t, pair: Int32)] = [:]
    private var lastFrame: Frame?
    private let noColor: Bool
    /// ncurses gets its own FILE streams on duplicated descriptors, so it never touches the
    /// process's stdio buffers (output printed after `end()` is not lost).
    private var output: UnsafeMutablePointer<FILE>?
    private var input: UnsafeMutablePointer<FILE>?

    /// Starts ncurses: locale, `newterm` on stdout/stdin, cbreak, noecho, keypad, hidden cursor,
    /// mouse clicks, default colours. Throws instead of exiting when TERM is missing or unknown.
    /// `environment` is read for `TERM` and `NO_COLOR`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(TerminalError) {
        guard let term = environment["TERM"], !term.isEmpty else { throw .noTerminalType }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw .notATerminal }
        do { nc = try NCurses.shared.get() } catch { throw .library(error) }
        // Wide characters need the UTF-8 locale from the environment (docs/PLATFORM.md, "Terminal").
        setlocale(LC_ALL, "")
        isUTF8 = String(cString: nl_langinfo(nl_item(CODESET))) == "UTF-8"
        noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        authdeck_crash_restore_save_termios(STDIN_FILENO)
        authdeck_ui_signals_unblock()
        // Our SIGINT/SIGTERM/SIGHUP handlers go in first: ncurses then leaves those signals alone.
        signalFD = authdeck_quit_signals_install()
        fflush(authdeck_stdout())
        output = fdopen(dup(STDOUT_FILENO), "w")
        input = fdopen(dup(STDIN_FILENO), "r")
        guard let output, let input, let s = nc.newterm(term, output, input) else {
            failStart()
            throw .unknownTerminal(term)
        }
        screen = s
        _ = nc.set_term(s)
        // Without cursor addressing (TERM=dumb, printing terminals) the screen cannot be drawn.
        guard authdeck_tigetstr(nc.tigetstr, "cup") != nil else {
            failStart()
            throw .noCursorAddressing(term)
        }
        Self.installCrashRestore(nc)
        // A resize wakes the loop at once (ncurses's SIGWINCH handler runs first).
        authdeck_resize_signal_install()
        // ncurses answers ERR to these only for a terminal without the capability (no cursor to
        // hide, no escape delay); the screen works without it, so the results are not checked.
        _ = nc.cbreak()
        _ = nc.noecho()
        _ = nc.nonl()
        _ = nc.keypad(nc.stdscr, true)
        _ = nc.nodelay(nc.stdscr, true)
        _ = nc.curs_set(0)
        _ = nc.set_escdelay(25)
        _ = authdeck_enable_clicks(nc.mousemask)
        _ = nc.mouseinterval(0)
        if nc.has_colors() && !noColor {
            _ = nc.start_color()
            _ = nc.use_default_colors()
            colors = Int(nc.colors)
        }
    }

    isolated deinit { end() }

    /// Undoes a half-done `init` and marks the session ended, so `deinit` (which runs for a
    /// throwing init of a fully initialised class) closes nothing twice.
    private func failStart() {
        ended = true
        if let screen {
            _ = nc.endwin()
            nc.delscreen(screen)
        }
        screen = nil
        if let output { fclose(output) }
        if let input { fclose(input) }
        output = nil
        input = nil
        authdeck_quit_signals_restore()
    }

    /// Hands the crash path the terminal's "leave alternate screen, show cursor, plain text"
    /// strings (rmcup + cnorm + sgr0), whole parts only.
    private static func installCrashRestore(_ nc: NCurses) {
        var bytes: [CChar] = []
        for name in ["rmcup", "cnorm", "sgr0"] {
            guard let p = authdeck_tigetstr(nc.tigetstr, name) else { continue }
            let part = Array(UnsafeBufferPointer(start: p, count: strlen(p)))
            if bytes.count + part.count >= 256 { break }
            bytes += part
        }
        authdeck_crash_restore_install(bytes, bytes.count)
    }

    /// Restores the terminal (leaves the alternate screen, shows the cursor). Idempotent.
    public func end() {
        guard !ended else { return }
        ended = true
        _ = nc.endwin()
        if let screen { nc.delscreen(screen) }
        screen = nil
        if let output { fclose(output) }
        if let input { fclose(input) }
        output = nil
        input = nil
        authdeck_crash_restore_remove()
        authdeck_quit_signals_restore()
    }

    /// The SIGINT / SIGTERM / SIGHUP received since the last call, if any (the handlers set a
    /// flag and write to `signalFD`, so the loop's `poll` wakes on whichever thread the signal hit).
    func takeQuitSignal() -> Int32? {
        let s = authdeck_quit_signal_take()
        return s == 0 ? nil : s
    }

    /// Readable when a quit signal arrived (-1 without a wake pipe); poll it next to stdin.
    private(set) var signalFD: Int32 = -1

    /// The terminal size now.
    public var size: Size {
        Size(width: Int(nc.getmaxx(nc.stdscr)), height: Int(nc.getmaxy(nc.stdscr)))
    }

    /// Sets colour pairs and attributes from a theme (monochrome when colours are unavailable).
    public func apply(theme requested: Theme) {
        let t = ThemeCatalog.effective(requested, colors: colors, noColor: noColor || colors == 0)
        guard t != theme else { return }
        theme = t
        styles = [:]
        var pairs: [PairKey: Int32] = [:]
        let maxPairs = Int32(max(0, nc.colorPairs - 1))
        for role in StyleRole.allCases {
            let st = t.style(for: role)
            var attrs = authdeck_a_normal()
            if st.attributes.contains(.bold) { attrs |= authdeck_a_bold() }
            if st.attributes.contains(.dim) { attrs |= authdeck_a_dim() }
            if st.attributes.contains(.reverse) { attrs |= authdeck_a_reverse() }
            if st.attributes.contains(.underline) { attrs |= authdeck_a_underline() }
            if st.attributes.contains(.italic) { attrs |= authdeck_a_italic() }
            var pair: Int32 = 0
            if colors > 0 {
                let key = PairKey(fg: colorNumber(st.foreground), bg: colorNumber(st.background))
                if key.fg != -1 || key.bg != -1 {
                    if let p = pairs[key] {
                        pair = p
                    } else if Int32(pairs.count) < maxPairs {
                        pair = Int32(pairs.count + 1)
                        _ = nc.init_extended_pair(pair, key.fg, key.bg)
                        pairs[key] = pair
                    }
                }
            }
            styles[role] = (attrs, pair)
        }
        lastFrame = nil
    }

    private struct PairKey: Hashable {
        var fg: Int32
        var bg: Int32
    }

    /// ncurses colour number for a theme colour, approximated when the terminal has fewer colours.
    private func colorNumber(_ c: TerminalColor) -> Int32 {
        switch c {
        case .default: return -1
        case .index(let i) where i < colors: return Int32(i)
        case .index(let i): return Int32(ColorApproximation.nearestBasic(i, available: colors))
        }
    }

    /// Draws a frame. Unchanged frames are skipped; ncurses diffs the rest (wnoutrefresh/doupdate).
    public func draw(_ frame: Frame, force: Bool = false) {
        if !force, let lastFrame, lastFrame == frame { return }
        let win = nc.stdscr
        let sz = size
        if force || lastFrame?.size != frame.size { _ = nc.werase(win) }
        var wbuf = [wchar_t](repeating: 0, count: 6)
        for y in 0..<min(frame.size.height, sz.height) {
            for x in 0..<min(frame.size.width, sz.width) {
                let cell = frame[x, y]
                if cell.isContinuation { continue }
                if let lastFrame, !force, lastFrame.size == frame.size, lastFrame[x, y] == cell { continue }
                var n = 0
                for u in cell.text.unicodeScalars where n < 5 {
                    wbuf[n] = wchar_t(bitPattern: u.value)
                    n += 1
                }
                if n == 0 { wbuf[0] = 32; n = 1 }
                wbuf[n] = 0
                let st = styles[cell.role] ?? (authdeck_a_normal(), 0)
                _ = authdeck_put_cell(nc.setcchar, nc.mvwadd_wch, win, Int32(y), Int32(x), &wbuf, st.attrs, st.pair)
                // The frame reserved two columns; if the C library thinks the character is narrow
                // (e.g. U+2764 U+FE0F), blank the second column so nothing stale shows through.
                if x + 1 < frame.size.width, frame[x + 1, y].isContinuation, authdeck_wcwidth(wbuf[0]) < 2 {
                    var space: [wchar_t] = [32, 0]
                    _ = authdeck_put_cell(nc.setcchar, nc.mvwadd_wch, win, Int32(y), Int32(x + 1), &space, st.attrs, st.pair)
                }
            }
        }
        _ = nc.wnoutrefresh(win)
        _ = nc.doupdate()
        lastFrame = frame
    }

    /// Forces the next `draw` to repaint everything (after a resize or an outside write).
    public func invalidate() {
        lastFrame = nil
        _ = nc.clearok(nc.stdscr, true)
    }

    /// Reads one key without blocking; nil when none is pending. Input that decodes to nothing
    /// (unbound function keys, mouse motion) is skipped, so pending keys behind it are not delayed.
    public func readKey() -> KeyEvent? {
        while true {
            var ch: wint_t = 0
            let r = nc.wget_wch(nc.stdscr, &ch)
            if r == ERR { return nil }
            let key = r == KEY_CODE_YES ? Self.decodeFunctionKey(Int32(bitPattern: ch)) : Self.decodeCharacter(UInt32(ch))
            if let key { return key }
        }
    }

    static func decodeFunctionKey(_ k: Int32) -> KeyEvent? {
        switch k {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_BACKSPACE: .backspace
        case KEY_DC: .delete
        case KEY_BTAB: .backTab
        case KEY_ENTER: .enter
        case KEY_RESIZE: .resize
        case KEY_MOUSE:
            {
                // Only reached from a running session, which has loaded ncurses.
                guard case .success(let nc) = NCurses.shared else { return nil }
                var x: Int32 = 0, y: Int32 = 0
                return authdeck_get_click(nc.getmouse, &x, &y) == OK ? KeyEvent.mouse(x: Int(x), y: Int(y)) : nil
            }()
        default: nil
        }
    }

    /// Decodes a character from `get_wch` (OK): Enter, Tab, Esc, Backspace, Ctrl-letters, text.
    public nonisolated static func decodeCharacter(_ c: UInt32) -> KeyEvent? {
        switch c {
        case 10, 13: return .enter
        case 9: return .tab
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .ctrl(Character(Unicode.Scalar(UInt8(c + 96))))
        case 0...31: return nil
        default:
            guard let u = Unicode.Scalar(c) else { return nil }
            return .char(Character(u))
        }
    }

    /// Leaves curses mode to run `body` (e.g. a terminal browser), then restores the screen.
    public func suspend<T>(_ body: () throws -> T) rethrows -> T {
        _ = nc.def_prog_mode()
        _ = nc.endwin()
        defer {
            _ = nc.reset_prog_mode()
            invalidate()
            _ = nc.refresh()
        }
        return try body()
    }
}

/// Maps 256-colour indices to the 8/16 basic colours for terminals with fewer colours.
public enum ColorApproximation {
    static let basicRGB: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    /// RGB of an xterm 256-colour index.
    static func rgb(_ i: Int) -> (Int, Int, Int) {
        if i < 16 { return basicRGB[max(0, i)] }
        if i < 232 {
            let v = i - 16
            let steps = [0, 95, 135, 175, 215, 255]
            return (steps[v / 36], steps[(v / 6) % 6], steps[v % 6])
        }
        let g = 8 + (i - 232) * 10
        return (g, g, g)
    }

    /// Nearest of the first `available` (8 or 16) basic colours.
    public static func nearestBasic(_ index: Int, available: Int) -> Int {
        let n = available >= 16 ? 16 : 8
        let (r, g, b) = rgb(index)
        var best = 0, bestD = Int.max
        for c in 0..<n {
            let (cr, cg, cb) = basicRGB[c]
            let d = (r - cr) * (r - cr) + (g - cg) * (g - cg) + (b - cb) * (b - cb)
            if d < bestD { best = c; bestD = d }
        }
        return best
    }
}
