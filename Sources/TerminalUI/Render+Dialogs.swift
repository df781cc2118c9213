// Dialogs (sign-in, confirmations, the device grant's code and QR) and the help overlay.
import AppCore
import FoundationEssentials
import TextSupport

extension Renderer {
    // MARK: Dialogs

    /// The rows a dialog's box may take: below the header, above the flash line and the footer.
    static func dialogMaxHeight(_ size: Size) -> Int { size.height - 3 }

    /// The widest of `lines`, in columns.
    static func widest(_ lines: [Line]) -> Int { lines.map { $0.reduce(0) { $0 + $1.width } }.max() ?? 0 }

    static func dialogRect(size: Size, width: Int, height: Int) -> Rect {
        let w = min(width, size.width - 2)
        let h = min(height, dialogMaxHeight(size))
        return Rect(x: (size.width - w) / 2, y: max(1, (size.height - h) / 2), width: w, height: h)
    }

    static func drawDialogBox(_ f: inout Frame, _ r: Rect, title: String) -> Rect {
        f.fill(r, role: .dialog)
        f.box(r, title: title, role: .dialogBorder, titleRole: .dialogTitle)
        return Rect(x: r.x + 2, y: r.y + 1, width: r.width - 4, height: r.height - 2)
    }

    static func drawLines(_ f: inout Frame, _ lines: [Line], in r: Rect) {
        for (i, l) in lines.prefix(r.height).enumerated() { f.draw(l, x: r.x, y: r.y + i, width: r.width) }
    }

    static func drawDialog(_ f: inout Frame, _ m: ScreenModel, _ d: Dialog, size: Size) {
        switch d {
        case .signIn(let s):
            // The provider list scrolls inside the dialog: as many rows as the terminal leaves (less the box's border).
            // Lines as wide as the box's inside (``dialogRect`` less border and margins).
            let lines = DialogContent.signIn(s, width: min(70, size.width - 2) - 4, maxLines: dialogMaxHeight(size) - 2)
            let r = dialogRect(size: size, width: 70, height: lines.count + 2)
            drawLines(&f, lines, in: drawDialogBox(&f, r, title: "Sign in"))
        case .presetForm(let p):
            // The box's border and the dialog's margin take four rows.
            let lines = DialogContent.presetForm(p, width: min(70, size.width - 6), maxLines: size.height - 4)
            let r = dialogRect(size: size, width: 74, height: lines.count + 2)
            drawLines(&f, lines, in: drawDialogBox(&f, r, title: "Add a provider from a preset"))
        case .providerEdit(let p):
            // The rows inside the box (``dialogMaxHeight`` less its border): the key hints never cut.
            let lines = DialogContent.providerEdit(p, width: min(70, size.width - 6), maxLines: dialogMaxHeight(size) - 2)
            let r = dialogRect(size: size, width: 74, height: lines.count + 2)
            drawLines(&f, lines, in: drawDialogBox(&f, r, title: "Edit provider"))
        case .browserWaiting(let b):
            let lines = DialogContent.browserWaiting(b, width: min(76, size.width - 6))
            let r = dialogRect(size: size, width: 80, height: lines.count + 2)
            drawLines(&f, lines, in: drawDialogBox(&f, r, title: "Sign in with the browser"))
        case .device(let dev):
            drawDevice(&f, m, dev, size: size)
        case .signOutConfirm(let c):
            // As wide as its longest line (the terminal permitting): nothing cut while there is room.
            let lines = DialogContent.signOutConfirm(c)
            let r = dialogRect(size: size, width: max(64, widest(lines) + 4), height: lines.count + 2)
            drawLines(&f, lines, in: drawDialogBox(&f, r, title: "Sign out"))
        case .signOutProgress(let p):
            let lines = DialogContent.signOutProgress(p, width: size.width - 6)
            let r = dialogRect(size: size, width: max(68, widest(lines) + 4), height: lines.count + 2)
            drawLines(&f, lines, in: drawDialogBox(&f, r, title: "Sign out"))
        case .resourceSignInConfirm(let c):
            let lines = DialogContent.resourceSignInConfirm(c)
            let r = dialogRect(size: size, width: 96, height: lines.count + 2)
            drawLines(&f, lines, in: drawDialogBox(&f, r, title: "Sign in to a resource"))
        }
    }

    static func drawDevice(_ f: inout Frame, _ m: ScreenModel, _ d: DeviceDialog, size: Size) {
        let maxW = size.width - 2, maxH = dialogMaxHeight(size)
        // A 32-column text column keeps a version-4 QR code (33 modules, quiet zone 2) beside it
        // on an 80×24 terminal.
        let textW = min(32, max(20, maxW - 4))
        let text = DialogContent.device(d, now: m.now, width: textW)
        // QR: quiet zone 4 modules (ISO/IEC 18004) when it fits, else 2; side by side or below the text.
        var qrLines: [String] = []
        var placement = 0  // 0 none, 1 right, 2 below
        if let matrix = d.qr {
            for quiet in [4, 2] {
                let q = QRText.lines(matrix, quietZone: quiet, glyphs: m.glyphs)
                let qw = q.first.map(DisplayWidth.of) ?? 0
                if textW + qw + 7 <= maxW, max(text.count, q.count) + 2 <= maxH {
                    qrLines = q; placement = 1; break
                }
                if max(textW, qw) + 4 <= maxW, text.count + 1 + q.count + 2 <= maxH {
                    qrLines = q; placement = 2; break
                }
            }
        }
        let qw = qrLines.first.map(DisplayWidth.of) ?? 0
        var lines = text
        if d.qr != nil, placement == 0 { lines.append([.text("(enlarge window for QR code)", .textDim)]) }
        let w: Int, h: Int
        switch placement {
        case 1: (w, h) = (textW + qw + 7, max(lines.count, qrLines.count) + 2)
        case 2: (w, h) = (max(textW, qw) + 4, lines.count + 1 + qrLines.count + 2)
        default: (w, h) = (textW + 4, lines.count + 2)
        }
        let r = dialogRect(size: size, width: w, height: h)
        let inner = drawDialogBox(&f, r, title: "Sign in on another device · " + Sanitizer.visible(d.providerName))
        drawLines(&f, lines, in: Rect(x: inner.x, y: inner.y, width: textW, height: inner.height))
        let qx = placement == 1 ? inner.x + textW + 3 : inner.x + (inner.width - qw) / 2
        let qy = placement == 1 ? inner.y : inner.y + lines.count + 1
        for (i, l) in qrLines.enumerated() where qy + i < r.maxY - 1 {
            f.text(l, x: qx, y: qy + i, role: .qr, maxWidth: qw)
        }
    }

    // MARK: Help

    /// The columns a key's meaning keeps at least in the help overlay (its start, then "…").
    static let helpMeaningWidth = 16

    static func drawHelp(_ f: inout Frame, _ m: ScreenModel, size: Size, theme: Theme) {
        let r = Rect(x: 0, y: 1, width: size.width, height: size.height - 2)
        var inner = drawDialogBox(&f, r, title: "Keys · theme \(Sanitizer.visible(theme.name)) · ? or Esc closes")
        guard inner.height > 0 else { return }
        // Notes (the demo's users and commands) stay at the foot, above everything else cut first.
        let notes = m.notes.prefix(max(0, inner.height / 3))
        if !notes.isEmpty {
            for (i, note) in notes.enumerated() {
                f.draw([.text(Sanitizer.visible(note), .textDim)], x: inner.x, y: inner.y + inner.height - notes.count + i, width: inner.width)
            }
            inner.height -= notes.count + 1
        }
        let sections = KeyBindings.helpSections(for: m)
        let lineCount = sections.reduce(0) { $0 + 1 + $1.bindings.count }
        let spaced = lineCount + sections.count - 1 <= inner.height
        let keyWidth = min(12, sections.flatMap(\.bindings).map { DisplayWidth.of($0.keyLabel) }.max() ?? 8)
        var blocks: [[Line]] = []
        for (i, section) in sections.enumerated() {
            var block: [Line] = i > 0 && spaced ? [[]] : []
            block.append([.text(section.title, .title)])
            for b in section.bindings {
                var l: Line = [.text(" " + DisplayWidth.pad(b.keyLabel, to: keyWidth), .keyHint), .text(" " + b.description, .text)]
                if b.isDestructive { l.append(.text(" (asks first)", .textDim)) }
                if let reason = b.disabledReason(m) { l.append(.text(" — now: " + reason, .keyDisabled)) }
                block.append(l)
            }
            blocks.append(block)
        }
        var entries = blocks.flatMap { $0 }
        // Columns only as many as leave each key room for (the start of) its meaning; what does not
        // fit is counted on the last row, never dropped unsaid.
        let fitting = max(1, (inner.width + 2) / (keyWidth + 1 + Self.helpMeaningWidth + 2))
        let columns = max(1, min(3, fitting, (entries.count + inner.height - 1) / inner.height))
        let colW = (inner.width - (columns - 1) * 2) / columns
        var chunks = Self.helpColumns(blocks, columns: columns, height: inner.height)
        if chunks == nil {
            let room = columns * inner.height
            if entries.count > room {
                let rest = entries.count - room + 1
                entries = Array(entries.prefix(room - 1)) + [[.text("↓ \(rest) more: a larger terminal shows them", .textDim)]]
            }
            chunks = (0..<columns).map { Array(entries.dropFirst($0 * inner.height).prefix(inner.height)) }
        }
        for (c, chunk) in (chunks ?? []).enumerated() {
            for (i, l) in chunk.enumerated() {
                f.draw(l, x: inner.x + c * (colW + 2), y: inner.y + i, width: colW)
            }
        }
    }

    /// Sections kept whole in up to `columns` columns of at most `height` rows, about as long as each other
    /// (a section's spacer row dropped at the top of a column); nil when they do not fit so.
    static func helpColumns(_ blocks: [[Line]], columns: Int, height: Int) -> [[Line]]? {
        guard columns > 1 else { return nil }
        let total = blocks.reduce(0) { $0 + $1.count }
        for limit in stride(from: min(height, (total + columns - 1) / columns), through: height, by: 1) {
            var result: [[Line]] = [[]]
            for block in blocks {
                if !result[result.count - 1].isEmpty && result[result.count - 1].count + block.count > limit { result.append([]) }
                result[result.count - 1] += result[result.count - 1].isEmpty && block.first?.isEmpty == true ? Array(block.dropFirst()) : block
            }
            if result.count <= columns && result.allSatisfy({ $0.count <= height }) { return result }
        }
        return nil
    }
}
