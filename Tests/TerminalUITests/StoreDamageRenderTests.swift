import Testing
@testable import TerminalUI

@Suite("Accounts pane: a damaged store is named instead of 'No accounts'")
struct StoreDamageRenderTests {
    static func empty(damage: [String]?) -> ScreenModel {
        var m = Fixtures.screen()
        m.accounts = []
        m.selection = nil
        m.detail = nil
        m.flash = nil
        m.storeDamage = damage
        return m
    }

    @Test("With a damaged file the empty list names it and says to run 'authdeck doctor'")
    func damaged() {
        let lines = ["file damaged:", "  /s/accounts.json", "  (truncated)", "run 'authdeck doctor'"]
        let frame = Renderer.render(Self.empty(damage: lines), size: Size(width: 120, height: 30), theme: BuiltInThemes.monochrome)
        for line in lines { #expect(frame.plainText.contains(line)) }
        #expect(!frame.plainText.contains("No accounts"))
    }

    @Test("Without damage the empty list still invites a sign-in")
    func notDamaged() {
        let frame = Renderer.render(Self.empty(damage: nil), size: Size(width: 120, height: 30), theme: BuiltInThemes.monochrome)
        #expect(frame.plainText.contains("No accounts. Press l to sign in."))
    }
}
