import Testing
@testable import TerminalUI

@Suite("Layout: size + focus → rectangles")
struct LayoutTests {
    @Test("80×24: side by side, accounts 36 columns")
    func at80x24() {
        let size = Size(width: 80, height: 24)
        let l = Layout.compute(size: size, focus: .accounts)
        #expect(l.mode == .sideBySide)
        #expect(l.ascii(size: size) == expected80x24)
    }

    @Test("120×40: side by side, accounts 48 columns")
    func at120x40() {
        let size = Size(width: 120, height: 40)
        let l = Layout.compute(size: size, focus: .accounts)
        #expect(l.mode == .sideBySide)
        #expect(l.ascii(size: size) == expected120x40)
    }

    @Test("60×20: below 80 columns the detail pane stacks under the accounts")
    func at60x20() {
        let size = Size(width: 60, height: 20)
        let l = Layout.compute(size: size, focus: .accounts)
        #expect(l.mode == .stacked)
        #expect(l.ascii(size: size) == expected60x20)
    }

    @Test("Narrow and short: only the focused pane", arguments: [Pane.accounts, .detail])
    func single(focus: Pane) {
        let l = Layout.compute(size: Size(width: 60, height: 14), focus: focus)
        #expect(l.mode == .single)
        #expect((l.accounts != nil) == (focus == .accounts))
        #expect((l.detail != nil) == (focus == .detail))
    }

    @Test("Below 40×10 nothing but a note")
    func tooSmall() {
        #expect(Layout.compute(size: Size(width: 39, height: 24), focus: .accounts).mode == .tooSmall)
        let f = Renderer.render(Fixtures.screen(), size: Size(width: 30, height: 8), theme: BuiltInThemes.monochrome)
        #expect(f.plainText.contains("Terminal too small"))
    }
}
