import AppCore
import FoundationEssentials

/// Which account a mouse click hits, given the same geometry `render` uses.
public enum AccountsHitTest {
    public static func account(atX x: Int, y: Int, model m: ScreenModel, size: Size? = nil) -> AccountRow.ID? {
        guard let size, m.dialog == nil, !m.helpVisible else { return nil }
        let layout = Layout.compute(size: size, focus: m.focus, notes: m.notes.count)
        guard let rect = layout.accounts, x >= rect.x, x < rect.maxX else { return nil }
        let g = Renderer.listGeometry(m, rect: rect)
        guard y >= g.top, y < g.inner.maxY else { return nil }
        let index = g.first + (y - g.top) / Renderer.rowsPerAccount
        let visible = m.visibleAccounts
        return index < visible.count && index < g.first + g.capacity ? visible[index].id : nil
    }
}

/// Which detail tab a mouse click hits (the tab bar is the first one or two rows inside the detail pane).
public enum DetailTabHitTest {
    public static func tab(atX x: Int, y: Int, model m: ScreenModel, size: Size) -> DetailTab? {
        guard m.dialog == nil, !m.helpVisible, let d = m.detail, m.selectedAccount != nil else { return nil }
        guard let rect = Layout.compute(size: size, focus: m.focus, notes: m.notes.count).detail else { return nil }
        let inner = rect.inset(1)
        let rows = Renderer.tabRows(d.tab, width: inner.width)
        guard y >= inner.y, y < inner.y + rows.count, x >= inner.x, x < inner.maxX else { return nil }
        var cx = inner.x
        for label in rows[y - inner.y] {
            let w = label.span.width
            if x >= cx && x < cx + w { return label.tab }
            cx += w
        }
        return nil
    }
}
