// render(model, size, theme) -> Frame: the whole screen as a pure function.
import AppCore
import FoundationEssentials
import TextSupport

/// A run of text in one role, or a countdown bar.
public enum Span: Equatable, Sendable {
    case text(String, StyleRole)
    case bar(width: Int, fraction: Double, role: StyleRole)
    /// Fills the rest of the line with spaces, then right-aligns the following spans.
    case flexibleSpace

    var width: Int {
        switch self {
        case .text(let s, _): DisplayWidth.of(s)
        case .bar(let w, _, _): w
        case .flexibleSpace: 0
        }
    }
}

/// One line of spans.
public typealias Line = [Span]

extension Frame {
    /// Draws a line of spans in `rect` row `y`, clipped to the rect's width. A `.flexibleSpace`
    /// pushes the spans after it to the right edge (they are dropped first when space runs out).
    mutating func draw(_ line: Line, x: Int, y: Int, width: Int) {
        let split = line.firstIndex(of: .flexibleSpace)
        let left = split.map { Array(line[..<$0]) } ?? line
        let right = split.map { Array(line[($0 + 1)...]) } ?? []
        var cx = x
        let limit = x + width
        func drawSpan(_ s: Span, at cx: inout Int, limit: Int) {
            guard cx < limit else { return }
            switch s {
            case .text(let t, let role):
                let room = limit - cx
                cx += text(DisplayWidth.of(t) > room ? DisplayWidth.truncate(t, to: room) : t, x: cx, y: y, role: role, maxWidth: room)
            case .bar(let w, let f, let role):
                let bw = min(w, limit - cx)
                bar(x: cx, y: y, width: bw, fraction: f, role: role, emptyRole: .barEmpty)
                cx += bw
            case .flexibleSpace: break
            }
        }
        for s in left { drawSpan(s, at: &cx, limit: limit) }
        let rightWidth = right.reduce(0) { $0 + $1.width }
        if !right.isEmpty, cx + rightWidth + 1 <= limit {
            var rx = limit - rightWidth
            for s in right { drawSpan(s, at: &rx, limit: limit) }
        }
    }
}

public enum Renderer {
    /// Renders the whole screen. `theme` only names the theme in the help overlay; colours are
    /// applied by the backend from each cell's role.
    public static func render(_ m: ScreenModel, size: Size, theme: Theme) -> Frame {
        var f = Frame(size: size)
        guard size.width > 0, size.height > 0 else { return f }
        let layout = Layout.compute(size: size, focus: m.focus, notes: m.notes.count)
        drawHeader(&f, m, rect: layout.header)
        if layout.mode == .tooSmall {
            let msg = "Terminal too small (\(size.width)×\(size.height)); need \(Layout.minimum.width)×\(Layout.minimum.height)"
            f.text(DisplayWidth.truncate(msg, to: size.width), x: 0, y: min(size.height - 1, size.height / 2), role: .statusError)
            return f
        }
        if let r = layout.accounts { drawAccounts(&f, m, rect: r, focused: m.focus == .accounts || layout.mode == .single) }
        if let r = layout.detail { drawDetail(&f, m, rect: r, focused: m.focus == .detail || layout.mode == .single) }
        if let r = layout.notes { drawNotes(&f, m, rect: r) }
        drawFlash(&f, m, rect: layout.flash)
        drawFooter(&f, m, rect: layout.footer)
        if let d = m.dialog { drawDialog(&f, m, d, size: size) }
        if m.helpVisible { drawHelp(&f, m, size: size, theme: theme) }
        return f
    }

    // MARK: Header, flash, footer

    static func drawHeader(_ f: inout Frame, _ m: ScreenModel, rect: Rect) {
        f.fill(rect, role: .header)
        var line: Line = [.text(" authdeck ", .header)]
        line.append(.text("│ active: ", .headerDim))
        line.append(.text(m.header.activeAccountName.map(Sanitizer.visible) ?? "none", .header))
        if let source = m.header.activeAccountSource { line.append(.text(" (\(Sanitizer.visible(source)))", .headerDim)) }
        line.append(.text(" │ store: ", .headerDim))
        line.append(.text(Sanitizer.visible(m.header.storeBackend), .header))
        if m.header.storeIsInsecure { line += [.text(" ", .header), .text(" ⚠ PLAINTEXT ", .badgeInsecure)] }
        line += [.flexibleSpace, .text(clock(m.now, m.timeZone) + " ", .header)]
        f.draw(line, x: rect.x, y: rect.y, width: rect.width)
    }

    static func clock(_ date: Date, _ tz: DisplayTimeZone) -> String {
        String(TimeText.absolute(date, timeZone: tz).split(separator: " ")[1].prefix(5))
    }

    static func drawFlash(_ f: inout Frame, _ m: ScreenModel, rect: Rect) {
        guard let flash = m.flash else { return }
        let (role, mark): (StyleRole, String) = switch flash.level {
        case .info: (.flashInfo, "ℹ ")
        case .warn: (.flashWarn, "⚠ ")
        case .error: (.flashError, "✗ ")
        }
        f.draw([.text(" " + mark + Sanitizer.visible(flash.text), role)], x: rect.x, y: rect.y, width: rect.width)
    }

    /// The notes (the demo's users and commands), dim, one a line, under the panes: they stay on
    /// screen without `?`.
    static func drawNotes(_ f: inout Frame, _ m: ScreenModel, rect: Rect) {
        for (i, note) in m.notes.prefix(rect.height).enumerated() {
            f.draw([.text(" " + Sanitizer.visible(note), .textDim)], x: rect.x, y: rect.y + i, width: rect.width)
        }
    }

    static func drawFooter(_ f: inout Frame, _ m: ScreenModel, rect: Rect) {
        var line: Line = [.text(" ", .keyHintLabel)]
        for h in KeyBindings.footerHints(for: m) {
            line.append(.text(h.key, h.disabled ? .keyDisabled : .keyHint))
            line.append(.text(" " + h.label + "  ", h.disabled ? .keyDisabled : .keyHintLabel))
        }
        f.draw(line, x: rect.x, y: rect.y, width: rect.width)
    }

    // MARK: Accounts

    /// Rows per account in the list.
    static let rowsPerAccount = 2

    /// Geometry of the accounts list inside its pane: where rows start, how many accounts fit,
    /// and the first visible index (the selection is kept in view).
    struct ListGeometry {
        var top: Int
        var capacity: Int
        var first: Int
        var inner: Rect
    }

    static func listGeometry(_ m: ScreenModel, rect: Rect) -> ListGeometry {
        let inner = rect.inset(1)
        let filterRows = (m.filter.isEditing || !m.filter.text.isEmpty) ? 1 : 0
        let top = inner.y + filterRows
        let capacity = max(1, (inner.height - filterRows) / rowsPerAccount)
        let visible = m.visibleAccounts
        let sel = m.selection.flatMap { id in visible.firstIndex { $0.id == id } } ?? 0
        let first = sel < capacity ? 0 : sel - capacity + 1
        return ListGeometry(top: top, capacity: capacity, first: first, inner: inner)
    }

    static func drawAccounts(_ f: inout Frame, _ m: ScreenModel, rect: Rect, focused: Bool) {
        let visible = m.visibleAccounts
        let title = m.filter.text.isEmpty ? "Accounts (\(m.accounts.count))" : "Accounts (\(visible.count)/\(m.accounts.count))"
        f.box(rect, title: title, role: focused ? .borderFocused : .border, titleRole: .title)
        let g = listGeometry(m, rect: rect)
        if m.filter.isEditing || !m.filter.text.isEmpty {
            var line: Line = [.text("/", .keyHint), .text(Sanitizer.visible(m.filter.text), .input)]
            if m.filter.isEditing { line.append(.text("▏", .inputFocused)) }
            f.draw(line, x: g.inner.x, y: g.inner.y, width: g.inner.width)
        }
        if visible.isEmpty {
            if m.accounts.isEmpty, let damage = m.storeDamage {
                for (index, line) in damage.enumerated() where g.top + index < rect.y + rect.height - 1 {
                    f.draw([.text(Sanitizer.visible(line), index == 0 ? .statusError : .text)],
                           x: g.inner.x + 1, y: g.top + index, width: g.inner.width - 1)
                }
                return
            }
            let msg = m.accounts.isEmpty ? "No accounts. Press l to sign in." : "No account matches the filter."
            f.draw([.text(msg, .textDim)], x: g.inner.x + 1, y: g.top, width: g.inner.width - 1)
            return
        }
        let last = min(visible.count, g.first + g.capacity)
        for (row, i) in (g.first..<last).enumerated() {
            let a = visible[i]
            let y = g.top + row * rowsPerAccount
            let selected = a.id == m.selection
            let w = g.inner.width
            let name = Sanitizer.visible(a.displayName)
            let provider = Sanitizer.visible(a.provider)
            let line1: Line = [
                .text(selected ? "▸" : " ", .text),
                .text(a.isActive ? "★ " : "  ", .activeMarker),
                .text(DisplayWidth.truncate(name, to: max(4, w - 3 - min(DisplayWidth.of(provider), w / 3) - 1)), .text),
                .flexibleSpace,
                .text(DisplayWidth.truncate(provider, to: w / 3), .textDim),
            ]
            f.draw(line1, x: g.inner.x, y: y, width: w)
            let role = StatusText.role(a.status)
            var line2: Line = [.text("   " + StatusText.glyph(a.status) + " " + StatusText.text(a.status, now: m.now), role)]
            if a.dpopThumbprint != nil { line2.append(.text(" · DPoP", .textDim)) } // sender-constrained (RFC 9449)
            if !a.status.accessTokenUsable {
                line2 += [.flexibleSpace, .text("token not usable", .textDim)]
            } else if let exp = a.accessExpiresAt {
                line2.append(.flexibleSpace)
                line2.append(.text(TimeText.countdown(to: exp, now: m.now), role))
                if w >= 34, let frac = TimeText.remainingFraction(expiresAt: exp, lifetime: a.accessLifetime, now: m.now) {
                    line2.append(.text(" ", .text))
                    line2.append(.bar(width: 8, fraction: frac, role: role))
                }
            }
            f.draw(line2, x: g.inner.x, y: y + 1, width: w)
            if selected {
                f.restyle(Rect(x: g.inner.x, y: y, width: w, height: rowsPerAccount), role: focused ? .selection : .selectionUnfocused)
            }
        }
        if visible.count > g.capacity {
            let note = " \(g.first + 1)-\(last) of \(visible.count) "
            f.text(note, x: rect.maxX - 2 - DisplayWidth.of(note), y: rect.maxY - 1, role: .textDim)
        }
    }

    // MARK: Detail

    static func drawDetail(_ f: inout Frame, _ m: ScreenModel, rect: Rect, focused: Bool) {
        let title = m.selectedAccount.map { Sanitizer.visible($0.displayName) } ?? "Details"
        f.box(rect, title: title, role: focused ? .borderFocused : .border, titleRole: .title)
        let inner = rect.inset(1)
        guard inner.height > 0, inner.width > 0 else { return }
        guard let d = m.detail, let account = m.selectedAccount else {
            f.draw([.text("Select an account, or press l to sign in.", .textDim)], x: inner.x + 1, y: inner.y, width: inner.width - 1)
            return
        }
        for (row, tabs) in tabRows(d.tab, width: inner.width).enumerated() where row < inner.height {
            f.draw(tabs.map(\.span), x: inner.x, y: inner.y + row, width: inner.width)
        }
        guard inner.height > 2 else { return }
        let body = Rect(x: inner.x + 1, y: inner.y + 2, width: inner.width - 2, height: inner.height - 2)
        let lines = DetailContent.lines(d, account: account, model: m, width: body.width)
        let maxScroll = max(0, lines.count - body.height)
        let scroll = min(max(0, d.scroll), maxScroll)
        for (i, line) in lines.dropFirst(scroll).prefix(body.height).enumerated() {
            f.draw(line, x: body.x, y: body.y + i, width: body.width)
        }
        if lines.count > body.height {
            let note = " \(scroll + 1)-\(min(lines.count, scroll + body.height))/\(lines.count) "
            f.text(note, x: rect.maxX - 2 - DisplayWidth.of(note), y: rect.maxY - 1, role: .textDim)
        }
    }

    /// The largest useful `DetailModel.scroll` for this model and screen size (0 when the
    /// content fits), so the app can clamp scrolling.
    public static func detailScrollLimit(_ m: ScreenModel, size: Size) -> Int {
        let layout = Layout.compute(size: size, focus: m.focus, notes: m.notes.count)
        guard let rect = layout.detail, let d = m.detail, let a = m.selectedAccount else { return 0 }
        let inner = rect.inset(1)
        let bodyHeight = inner.height - 2
        let bodyWidth = inner.width - 2
        guard bodyHeight > 0, bodyWidth > 0 else { return 0 }
        return max(0, DetailContent.lines(d, account: a, model: m, width: bodyWidth).count - bodyHeight)
    }

    /// The tab bar: one row of " 1 Overview " labels when they fit in `width`, else shorter
    /// titles, else two rows (the second on the row that otherwise stays blank above the body),
    /// numbers alone only when even two rows of short titles do not fit. Each label with its tab.
    static func tabRows(_ active: DetailTab, width: Int) -> [[(tab: DetailTab, span: Span)]] {
        func labels(_ title: (DetailTab) -> String?) -> [(tab: DetailTab, span: Span)] {
            DetailTab.allCases.map { tab in
                let t = title(tab) ?? (tab == active ? tab.shortTitle : nil)
                return (tab, .text(" \(tab.rawValue)" + (t.map { " " + $0 } ?? "") + " ", tab == active ? .tabActive : .tabInactive))
            }
        }
        /// The labels in rows of at most `width` columns, filled in order.
        func rows(_ all: [(tab: DetailTab, span: Span)]) -> [[(tab: DetailTab, span: Span)]] {
            var out: [[(tab: DetailTab, span: Span)]] = [[]]
            var used = 0
            for label in all {
                if used + label.span.width > width, !out[out.count - 1].isEmpty {
                    out.append([])
                    used = 0
                }
                out[out.count - 1].append(label)
                used += label.span.width
            }
            return out
        }
        let full = labels { $0.title }, short = labels { $0.shortTitle }
        for candidate in [rows(full), rows(short)] where candidate.count == 1 { return candidate }
        for candidate in [rows(full), rows(short)] where candidate.count == 2 { return candidate }
        return [labels { _ in nil }]
    }
}
