// Layout: a pure function from terminal size and focus to rectangles.

public struct Layout: Equatable, Sendable {
    public enum Mode: Equatable, Sendable {
        /// Accounts left, detail right (≥ 80 columns).
        case sideBySide
        /// Accounts above detail (narrow but tall enough).
        case stacked
        /// Only the focused pane (narrow and short).
        case single
        /// Below 40×10: only a "terminal too small" note.
        case tooSmall
    }

    public var mode: Mode
    public var header: Rect
    public var accounts: Rect?
    public var detail: Rect?
    public var flash: Rect
    public var footer: Rect
    /// Lines of notes (the demo's users and commands) above the flash line, when the terminal
    /// leaves room for them (nil otherwise; the `?` overlay still shows them).
    public var notes: Rect? = nil

    /// Minimum width for side-by-side panes (the detail pane stacks or hides below it).
    public static let sideBySideMinWidth = 80
    public static let minimum = Size(width: 40, height: 10)
    /// At most this many note lines on the screen.
    public static let maxNoteLines = 4
    /// Notes are shown only while the panes keep at least this many rows.
    public static let minimumBodyWithNotes = 14

    /// Header on the first row, footer on the last, flash line above the footer, panes between.
    /// - ≥ 80 columns: side by side; accounts take 2/5 of the width, clamped to 36…56 columns.
    /// - < 80 columns with ≥ 14 body rows: stacked; accounts take 2/5 of the body height (≥ 5 rows).
    /// - otherwise only the focused pane.
    /// `notes` lines (at most ``maxNoteLines``) go between the panes and the flash line while the
    /// panes keep ``minimumBodyWithNotes`` rows.
    public static func compute(size: Size, focus: Pane, notes: Int = 0) -> Layout {
        var layout = panes(size: size, focus: focus, reserving: 0)
        let lines = min(notes, maxNoteLines)
        guard lines > 0, layout.mode != .tooSmall, size.height - 3 - lines >= minimumBodyWithNotes else { return layout }
        layout = panes(size: size, focus: focus, reserving: lines)
        layout.notes = Rect(x: 0, y: size.height - 2 - lines, width: size.width, height: lines)
        return layout
    }

    private static func panes(size: Size, focus: Pane, reserving noteLines: Int) -> Layout {
        let w = size.width, h = size.height
        let header = Rect(x: 0, y: 0, width: w, height: 1)
        let footer = Rect(x: 0, y: max(0, h - 1), width: w, height: 1)
        let flash = Rect(x: 0, y: max(0, h - 2), width: w, height: 1)
        if w < minimum.width || h < minimum.height {
            return Layout(mode: .tooSmall, header: header, accounts: nil, detail: nil, flash: flash, footer: footer)
        }
        let body = Rect(x: 0, y: 1, width: w, height: h - 3 - noteLines)
        if w >= sideBySideMinWidth {
            let aw = min(56, max(36, w * 2 / 5))
            return Layout(
                mode: .sideBySide, header: header,
                accounts: Rect(x: 0, y: body.y, width: aw, height: body.height),
                detail: Rect(x: aw, y: body.y, width: w - aw, height: body.height),
                flash: flash, footer: footer)
        }
        if body.height >= 14 {
            let ah = max(5, body.height * 2 / 5)
            return Layout(
                mode: .stacked, header: header,
                accounts: Rect(x: 0, y: body.y, width: w, height: ah),
                detail: Rect(x: 0, y: body.y + ah, width: w, height: body.height - ah),
                flash: flash, footer: footer)
        }
        return Layout(
            mode: .single, header: header,
            accounts: focus == .accounts ? body : nil,
            detail: focus == .detail ? body : nil,
            flash: flash, footer: footer)
    }

    /// The layout as ASCII art (for tests): header `H`, accounts `A`, detail `D`, flash `F`,
    /// footer `K`, notes `N`, each pane drawn as a box of its letter.
    public func ascii(size: Size) -> String {
        var grid = Array(repeating: Array(repeating: Character(" "), count: size.width), count: size.height)
        func paint(_ r: Rect?, _ c: Character, outline: Bool) {
            guard let r else { return }
            for y in r.y..<r.maxY where y >= 0 && y < size.height {
                for x in r.x..<r.maxX where x >= 0 && x < size.width {
                    let edge = x == r.x || x == r.maxX - 1 || y == r.y || y == r.maxY - 1
                    grid[y][x] = (!outline || edge) ? c : " "
                }
            }
        }
        paint(header, "H", outline: false)
        paint(accounts, "A", outline: true)
        paint(detail, "D", outline: true)
        paint(notes, "N", outline: false)
        paint(flash, "F", outline: false)
        paint(footer, "K", outline: false)
        return grid.map { String($0) }.joined(separator: "\n")
    }
}
