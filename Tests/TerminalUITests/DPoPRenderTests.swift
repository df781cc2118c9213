import Foundation
import Testing
@testable import TerminalUI

/// RFC 9449: the accounts screen shows which accounts hold sender-constrained (DPoP) tokens.
@Suite("DPoP in the accounts screen (RFC 9449)")
struct DPoPRenderTests {
    static func screen() -> ScreenModel {
        var model = Fixtures.screen()
        model.accounts[0].dpopThumbprint = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        return model
    }

    @Test("DPoP RFC 9449: a sender-constrained account is marked DPoP in the list and shows its key thumbprint in the overview")
    func dpopAccount() throws {
        let frame = Renderer.render(Self.screen(), size: Size(width: 100, height: 30), theme: BuiltInThemes.monochrome)
        try assertSnapshot(frame, named: "dpopAccount")
        let text = frame.plainText
        #expect(text.contains("· DPoP"))
        #expect(text.contains("Token binding   DPoP, key NzbLsXh8uDCcd"))
        let others = Renderer.render(Fixtures.screen(), size: Size(width: 100, height: 30), theme: BuiltInThemes.monochrome)
        #expect(!others.plainText.contains("DPoP"))
    }
}
