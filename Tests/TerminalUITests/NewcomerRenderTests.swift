// What a newcomer saw on the accounts screen: a live access-token countdown on an account that
// needs sign-in, tab names gone at 80 columns, a lone "…" in an empty dialog field, a device
// dialog without the complete URI the CLI prints.
import AppCore
import Foundation
import Testing
@testable import TerminalUI

@Suite("Rendering: a newcomer's detours")
struct NewcomerRenderTests {
    let mono = BuiltInThemes.monochrome

    @Test("An account that needs sign-in shows its access token as not usable, never a countdown (row and overview)")
    func needsSignInHasNoCountdown() {
        var m = Fixtures.screen()
        m.accounts[0].status = .needsSignIn
        let text = Renderer.render(m, size: Size(width: 100, height: 30), theme: mono).plainText
        let lines = text.split(separator: "\n")
        let row = lines.first { $0.contains("✗ needs sign-in") }
        #expect(row?.contains("token not usable") == true, "\(text)")
        #expect(row?.contains("in 4m 10s") == false, "no countdown in the row: \(text)")
        #expect(lines.contains { $0.contains("Access token    not usable (sign in again)") }, "\(text)")
        #expect(!lines.contains { $0.contains("Access token    in 4m 10s") }, "\(text)")
        // The other accounts keep their countdowns.
        #expect(text.contains("in 42s"))
    }

    @Test("At 80 columns every detail tab keeps its name (two rows when one does not hold them)")
    func tabNamesAt80Columns() {
        let text = Renderer.render(Fixtures.screen(), size: Size(width: 80, height: 24), theme: mono).plainText
        for name in ["1 Overview", "2 Scopes", "3 ID token", "4 Access token", "5 Userinfo", "6 Raw"] {
            #expect(text.contains(name), "\(name) missing:\n\(text)")
        }
        // A click on the second row picks a tab there.
        let layout = Layout.compute(size: Size(width: 80, height: 24), focus: .accounts)
        let inner = layout.detail!.inset(1)
        #expect(DetailTabHitTest.tab(atX: inner.x + 2, y: inner.y + 1, model: Fixtures.screen(), size: Size(width: 80, height: 24)) == .accessToken)
        #expect(DetailTabHitTest.tab(atX: inner.x + 2, y: inner.y, model: Fixtures.screen(), size: Size(width: 80, height: 24)) == .overview)
    }

    @Test("An empty dialog field is blank: no lone '…' where only its padding was cut", arguments: [80, 100])
    func emptyFieldsHaveNoEllipsis(width: Int) {
        let s = SignInDialog(providers: [ProviderOption(id: "local", name: "Local IdP", detail: "http://127.0.0.1:8999")], focusedField: .provider)
        let text = Renderer.render(Fixtures.screen(dialog: .signIn(s)), size: Size(width: width, height: 30), theme: mono).plainText
        for label in ["Extra scopes", "Audience", "Resource"] {
            // The field, from its label to the dialog's right border (the panes behind it are cut too).
            let line = text.split(separator: "\n").first { $0.contains(label) }.map(String.init) ?? ""
            let field = line.components(separatedBy: label).dropFirst().first?.split(separator: "│").first ?? ""
            #expect(!field.isEmpty && !field.contains("…"), "\(label): \(line)")
        }
        #expect(DisplayWidth.truncate("ab    ", to: 3) == "ab ", "padding cut: no ellipsis")
        #expect(DisplayWidth.truncate("abcdef", to: 3) == "ab…", "text cut: ellipsis")
    }

    @Test("The device dialog shows the complete verification URI (RFC 8628 §3.3.1) as the CLI prints it")
    func deviceDialogCompleteURI() {
        let d = DeviceDialog(providerName: "Local IdP", userCode: "WDJB-MJHT", verificationURI: "http://127.0.0.1:8999/device",
                             verificationURIComplete: "http://127.0.0.1:8999/device?user_code=WDJB-MJHT",
                             qr: nil, expiresAt: at(600), polling: .waiting)
        let text = Renderer.render(Fixtures.screen(dialog: .device(d)), size: Size(width: 100, height: 30), theme: mono).plainText
        #expect(text.contains("or, with the code filled in:"), "\(text)")
        #expect(text.contains("http://127.0.0.1:8999/device?use") && text.contains("r_code=WDJB-MJHT"), "\(text)")
        let without = DeviceDialog(providerName: "Local IdP", userCode: "WDJB-MJHT", verificationURI: "http://127.0.0.1:8999/device",
                                   qr: nil, expiresAt: at(600), polling: .waiting)
        let plain = Renderer.render(Fixtures.screen(dialog: .device(without)), size: Size(width: 100, height: 30), theme: mono).plainText
        #expect(!plain.contains("filled in"), "nothing to show without one")
    }

    @Test("Notes (the demo's hints) stay under the panes without ?, escaped; a terminal too short for them keeps them in ? only")
    func notesUnderThePanes() throws {
        var m = Fixtures.screen()
        m.notes = ["Users: alice / pw1 · bob / pw2", "Device code: /tmp/d/bin/approve-device CODE [bob]", "Evil \u{1B}[2J"]
        let f = Renderer.render(m, size: Size(width: 80, height: 24), theme: mono)
        let lines = f.plainText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[19] == " Users: alice / pw1 · bob / pw2", "\(f.plainText)")
        #expect(lines[20].hasPrefix(" Device code: /tmp/d/bin/approve-device CODE [bob]"))
        #expect(lines[21].hasPrefix(" Evil \\e[2J"), "escape sequences from outside are made visible")
        #expect(lines[22].hasPrefix(" ℹ Signed in as alice@example.test"), "the flash line stays")
        #expect(lines[18].hasPrefix("└"), "the panes end above the notes")
        let layout = Layout.compute(size: Size(width: 80, height: 24), focus: .accounts, notes: 3)
        #expect(layout.notes == Rect(x: 0, y: 19, width: 80, height: 3) && layout.accounts?.maxY == 19)
        // A click still finds the accounts (the list geometry knows about the notes).
        #expect(AccountsHitTest.account(atX: 5, y: 2, model: m, size: Size(width: 80, height: 24)) == "alice")
        let short = Renderer.render(m, size: Size(width: 80, height: 16), theme: mono).plainText
        #expect(!short.contains("Users: alice"), "no room at 16 rows: \(short)")
        var help = m
        help.helpVisible = true
        #expect(Renderer.render(help, size: Size(width: 80, height: 16), theme: mono).plainText.contains("Users: alice / pw1"), "still in ?")
    }
}
