import AppCore
import Foundation
import Testing
@testable import TerminalUI

/// Overlays and dialogs at the edges of the terminal's size. Nothing overflows onto
/// the flash and footer lines or is cut without a sign; a dialog with room to spare shows its
/// lines whole.
@Suite("Small and wide terminals: help, sign-in, sign-out (monochrome goldens)")
struct SmallTerminalTests {
    let mono = BuiltInThemes.monochrome

    /// The rows of `frame` as text.
    private func rows(_ frame: Frame) -> [String] { frame.plainText.components(separatedBy: "\n") }

    @Test("The ? help at 40×12: every key shown with (the start of) its meaning, and what did not fit said, not dropped")
    func helpAt40x12() throws {
        let size = Size(width: 40, height: 12)
        let frame = Renderer.render(Fixtures.screen(help: true), size: size, theme: mono)
        let inside = rows(frame).dropFirst(2).prefix(size.height - 4)
        var bindings = 0
        for row in inside where row.hasPrefix("│  ") {
            // A binding's row is "│  KEY  meaning…" (a section's title has one space): a key with no meaning beside it is the bug.
            bindings += 1
            let text = row.trimmingCharacters(in: CharacterSet(charactersIn: "│ "))
            if text.split(separator: " ").count < 2 { Issue.record("a key without its meaning: '\(row)'") }
        }
        #expect(bindings >= 3, "\(frame.plainText)")
        #expect(frame.plainText.contains("more"), "the keys that did not fit are counted:\n\(frame.plainText)")
        try assertSnapshot(frame, named: "helpOverlay40x12")
    }

    @Test("The sign-in dialog at 40×12 and 60×14 stays above the flash line: the selected provider and every field kept, the key line left to the footer when short", arguments: [
        Size(width: 40, height: 12), Size(width: 60, height: 14),
    ])
    func signInSmall(_ size: Size) throws {
        let providers = (1...6).map { ProviderOption(id: ProviderID("p\($0)"), name: "Provider \($0)", detail: "https://op\($0).example") }
        let s = SignInDialog(providers: providers, selectedProvider: 2, flow: .browser)
        let frame = Renderer.render(Fixtures.screen(dialog: .signIn(s)), size: size, theme: mono)
        let lines = rows(frame)
        #expect(lines[size.height - 2].contains("Signed in as alice"), "the flash line is not covered:\n\(frame.plainText)")
        #expect(!lines[size.height - 2].contains("│") && !lines[size.height - 2].contains("└"), "\(frame.plainText)")
        for field in ["Flow", "Extra scopes", "Audience", "Resource", "Or a URL"] { #expect(frame.plainText.contains(field), "\(frame.plainText)") }
        #expect(lines[size.height - 1].contains("Tab next field"), "the footer has the keys:\n\(frame.plainText)")
        #expect(frame.plainText.contains("Provider 3"), "the selection stays visible:\n\(frame.plainText)")
        try assertSnapshot(frame, named: "signInDialog\(size.width)x\(size.height)")
    }

    @Test("The sign-out checklist and its results at 120 and 160 columns: no line cut (…) while the terminal has room", arguments: [120, 160])
    func signOutWide(_ width: Int) throws {
        let size = Size(width: width, height: 30)
        let confirm = SignOutConfirmDialog(accountID: "alice", accountName: "alice@example.test", willRevoke: true, willEndSession: true)
        let asked = Renderer.render(Fixtures.screen(dialog: .signOutConfirm(confirm)), size: size, theme: mono)
        #expect(asked.plainText.contains("• End the provider session in the browser (RP-Initiated Logout)"), "\(asked.plainText)")
        #expect(!asked.plainText.contains("…"), "\(asked.plainText)")
        let progress = SignOutProgressDialog(accountName: "alice@example.test", steps: [
            SignOutStep(name: "Revoke the refresh token (RFC 7009)", result: .done("revoked at http://127.0.0.1:8000/o/revoke_token/")),
            SignOutStep(name: "End the provider session (RP-Initiated Logout)",
                        result: .done("opened http://127.0.0.1:8000/o/logout/ in the browser; the provider confirmed")),
            SignOutStep(name: "Delete the local secrets", result: .done("deleted")),
        ], finished: true)
        let done = Renderer.render(Fixtures.screen(dialog: .signOutProgress(progress)), size: size, theme: mono)
        // Beside its step at 160; at 120 what came of the step wraps below it, nothing cut.
        #expect(done.plainText.contains("opened http://127.0.0.1:8000/o/logout/ in the browser; the provider confirmed"), "\(done.plainText)")
        #expect(done.plainText.contains("(RP-Initiated Logout): opened") == (width == 160), "\(done.plainText)")
        #expect(!done.plainText.contains("…"), "\(done.plainText)")
        try assertSnapshot(asked, named: "signOutConfirm\(width)")
        try assertSnapshot(done, named: "signOutResults\(width)")
    }
}
