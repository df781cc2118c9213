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

@Suite("Rendering at every size")
struct RenderAnySizeTests {
    static let screens: [ScreenModel] = {
        let device = DeviceDialog(providerName: "P", userCode: "ABCD-EFGH", verificationURI: "http://127.0.0.1/device",
                                  qr: Fixtures.qrMatrix33, expiresAt: at(60))
        let signIn = SignInDialog(providers: [ProviderOption(id: "a", name: "A")])
        let confirm = SignOutConfirmDialog(accountID: "alice", accountName: "alice", willRevoke: true, willEndSession: true)
        var filtered = Fixtures.screen(tab: .idToken)
        filtered.filter = FilterState(text: "zzz", isEditing: true)
        return [Fixtures.screen(), Fixtures.screen(tab: .idToken), Fixtures.screen(help: true), filtered,
                Fixtures.screen(dialog: .device(device)), Fixtures.screen(dialog: .signIn(signIn)),
                Fixtures.screen(dialog: .signOutConfirm(confirm)),
                Fixtures.screen(dialog: .browserWaiting(BrowserWaitingDialog(providerName: "P", url: String(repeating: "u", count: 300))))]
    }()

    @Test("No size from 0×0 to 130×45 traps (edges of every layout mode), and frames have the requested size")
    func anySize() {
        for m in Self.screens {
            for w in [0, 1, 2, 3, 5, 8, 13, 21, 34, 39, 40, 41, 55, 79, 80, 81, 99, 130] {
                for h in [0, 1, 2, 3, 5, 9, 10, 11, 13, 14, 17, 20, 24, 45] {
                    let f = Renderer.render(m, size: Size(width: w, height: h), theme: BuiltInThemes.monochrome)
                    #expect(f.cells.count == w * h)
                }
            }
        }
    }
}
