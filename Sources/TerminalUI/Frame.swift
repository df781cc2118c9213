// Frame: a grid of cells (one grapheme + one style role each), the output of `render`.
// The ncurses backend blits it; tests export it as plain text and a role map.

/// A terminal size in character cells (columns × rows).
public struct Size: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
    }
}

/// A rectangle in cells; origin is the top-left corner, `x` grows right, `y` grows down.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    /// The rectangle shrunk by `n` cells on every side.
    public func inset(_ n: Int) -> Rect { Rect(x: x + n, y: y + n, width: width - 2 * n, height: height - 2 * n) }
    public var description: String { "(\(x),\(y) \(width)×\(height))" }
}

/// One cell. `text` is one grapheme cluster; the second column of a wide (2-column) grapheme
/// holds a continuation cell whose `text` is empty.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var role: StyleRole
    public init(text: String, role: StyleRole) {
        self.text = text
        self.role = role
    }
    public static let blank = Cell(text: " ", role: .text)
    public var isContinuation: Bool { text.isEmpty }
}

/// Display width of text in terminal columns (0, 1 or 2 per grapheme), independent of the
/// process locale so that pure tests are deterministic. Close to `wcwidth` for what we draw.
public enum DisplayWidth {
    /// Columns taken by one grapheme cluster.
    public static func of(_ ch: Character) -> Int {
        guard let first = ch.unicodeScalars.first else { return 0 }
        let v = first.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if v == 0x200B { return 0 }
        // Emoji that present as emoji by default, or with VS16.
        if first.properties.isEmojiPresentation { return 2 }
        if ch.unicodeScalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji { return 2 }
        if isEastAsianWide(v) { return 2 }
        return 1
    }

    /// Columns taken by a string.
    public static func of(_ s: String) -> Int { s.reduce(0) { $0 + of($1) } }

    static func isEastAsianWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
             0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// The longest prefix of `s` that fits in `width` columns; with `ellipsis`, a cut string ends in "…".
    public static func truncate(_ s: String, to width: Int, ellipsis: Bool = true) -> String {
        guard width > 0 else { return "" }
        if of(s) <= width { return s }
        // Only padding is cut (an input field's spaces): nothing is missing, so no "…".
        if ellipsis {
            let whole = truncate(s, to: width, ellipsis: false)
            if s.dropFirst(whole.count).allSatisfy({ $0 == " " }) { return whole }
        }
        let budget = ellipsis ? width - 1 : width
        var out = ""
        var used = 0
        for ch in s {
            let w = of(ch)
            if used + w > budget { break }
            out.append(ch)
            used += w
        }
        return ellipsis ? out + "…" : out
    }

    /// `s` truncated or right-padded with spaces to exactly `width` columns.
    public static func pad(_ s: String, to width: Int) -> String {
        let t = truncate(s, to: width)
        return t + String(repeating: " ", count: max(0, width - of(t)))
    }

    /// `s` left-padded with spaces to `width` columns (truncated if longer).
    public static func padLeft(_ s: String, to width: Int) -> String {
        let t = truncate(s, to: width)
        return String(repeating: " ", count: max(0, width - of(t))) + t
    }
}

/// A rectangular grid of cells. Drawing is clipped to the frame (and to an optional clip rect).
public struct Frame: Equatable, Sendable {
    public let size: Size
    public private(set) var cells: [Cell]

    public init(size: Size, fill: Cell = .blank) {
        self.size = size
        self.cells = Array(repeating: fill, count: size.width * size.height)
    }

    public var bounds: Rect { Rect(x: 0, y: 0, width: size.width, height: size.height) }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * size.width + x] }
        set { cells[y * size.width + x] = newValue }
    }

    func inBounds(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < size.width && y < size.height }

    /// Puts one grapheme at (x, y). A wide grapheme that does not fit before `limitX` becomes a space.
    /// Returns the number of columns used.
    @discardableResult
    public mutating func put(_ ch: Character, x: Int, y: Int, role: StyleRole, limitX: Int? = nil) -> Int {
        let limit = min(limitX ?? size.width, size.width)
        let w = DisplayWidth.of(ch)
        guard w > 0 else { return 0 }
        guard inBounds(x, y), x < limit else { return w }
        if w == 2 && x + 1 >= limit {
            self[x, y] = Cell(text: " ", role: role)
            return 1
        }
        clearWide(x: x, y: y)
        self[x, y] = Cell(text: String(ch), role: role)
        if w == 2 {
            clearWide(x: x + 1, y: y)
            self[x + 1, y] = Cell(text: "", role: role)
        }
        return w
    }

    /// Keeps wide graphemes consistent when one of their two cells is overwritten.
    private mutating func clearWide(x: Int, y: Int) {
        guard inBounds(x, y) else { return }
        if self[x, y].isContinuation, x > 0 {
            self[x - 1, y] = Cell(text: " ", role: self[x - 1, y].role)
        }
        if x + 1 < size.width, self[x + 1, y].isContinuation, !self[x, y].isContinuation {
            self[x + 1, y] = Cell(text: " ", role: self[x + 1, y].role)
        }
    }

    /// Draws `text` from (x, y), clipped at `maxWidth` columns (and the frame edge). The text must
    /// already be sanitised (see `Sanitizer`); control characters are skipped as zero-width.
    /// Returns the columns used.
    @discardableResult
    public mutating func text(_ text: String, x: Int, y: Int, role: StyleRole, maxWidth: Int? = nil) -> Int {
        let limit = maxWidth.map { x + max(0, $0) } ?? size.width
        var cx = x
        for ch in text {
            if cx >= limit { break }
            cx += put(ch, x: cx, y: y, role: role, limitX: limit)
        }
        return cx - x
    }

    /// Fills a rectangle with `ch`.
    public mutating func fill(_ rect: Rect, _ ch: Character = " ", role: StyleRole) {
        for y in rect.y..<rect.maxY where y >= 0 && y < size.height {
            for x in rect.x..<rect.maxX where x >= 0 && x < size.width {
                self[x, y] = Cell(text: String(ch), role: role)
            }
        }
    }

    /// Changes the role of every cell in `rect` (keeps the text).
    public mutating func restyle(_ rect: Rect, role: StyleRole) {
        for y in rect.y..<rect.maxY where y >= 0 && y < size.height {
            for x in rect.x..<rect.maxX where x >= 0 && x < size.width {
                self[x, y].role = role
            }
        }
    }

    /// Draws a single-line box around `rect` with an optional title in the top border.
    public mutating func box(_ rect: Rect, title: String? = nil, role: StyleRole, titleRole: StyleRole? = nil) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let (l, r, t, b) = (rect.x, rect.maxX - 1, rect.y, rect.maxY - 1)
        for x in (l + 1)..<r {
            put("─", x: x, y: t, role: role)
            put("─", x: x, y: b, role: role)
        }
        for y in (t + 1)..<b {
            put("│", x: l, y: y, role: role)
            put("│", x: r, y: y, role: role)
        }
        put("┌", x: l, y: t, role: role)
        put("┐", x: r, y: t, role: role)
        put("└", x: l, y: b, role: role)
        put("┘", x: r, y: b, role: role)
        if let title, rect.width > 4 {
            text(" " + title + " ", x: l + 1, y: t, role: titleRole ?? role, maxWidth: rect.width - 2)
        }
    }

    /// A horizontal bar of `width` cells showing `fraction` (0…1) filled, with eighth-block precision.
    public mutating func bar(x: Int, y: Int, width: Int, fraction: Double, role: StyleRole, emptyRole: StyleRole) {
        guard width > 0 else { return }
        let f = fraction.isFinite ? min(1, max(0, fraction)) : 0
        let eighths = Int((f * Double(width * 8)).rounded())
        let partials: [Character] = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        for i in 0..<width {
            let cellEighths = min(8, max(0, eighths - i * 8))
            if cellEighths == 8 {
                put("█", x: x + i, y: y, role: role)
            } else if cellEighths > 0 {
                put(partials[cellEighths], x: x + i, y: y, role: role)
            } else {
                put("░", x: x + i, y: y, role: emptyRole)
            }
        }
    }

    /// The frame as text: one line per row, trailing spaces removed, continuation cells skipped.
    public var plainText: String {
        var lines: [String] = []
        for y in 0..<size.height {
            var line = ""
            for x in 0..<size.width where !self[x, y].isContinuation {
                line += self[x, y].text
            }
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// One line per row, one character per cell: the role's `code` (see `StyleRole.code`).
    public var roleMap: String {
        var lines: [String] = []
        for y in 0..<size.height {
            var line = ""
            for x in 0..<size.width { line.append(self[x, y].role.code) }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
