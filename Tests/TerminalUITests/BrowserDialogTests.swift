import Foundation
import Testing
@testable import TerminalUI

@Suite("Browser sign-in dialog stages")
struct BrowserDialogTests {
    func text(_ stage: BrowserWaitingDialog.Stage, url: String = "", note: String? = nil) -> String {
        let dialog = BrowserWaitingDialog(providerName: "Local demo", url: url, browserNote: note, stage: stage)
        return Renderer.render(Fixtures.screen(dialog: .browserWaiting(dialog)), size: Size(width: 100, height: 30), theme: BuiltInThemes.monochrome).plainText
    }

    @Test("Each stage has its own heading; the URL hint only with a URL; a failure says Esc closes")
    func stages() {
        #expect(text(.contacting).contains("Contacting Local demo…"))
        let waiting = text(.waiting, url: "http://127.0.0.1:1/o/authorize/?client_id=x")
        #expect(waiting.contains("Waiting for the sign-in to Local demo in the browser…"))
        #expect(waiting.contains("If no browser opened, open this URL:"))
        #expect(text(.verifying).contains("exchanging the code, verifying the ID token"))
        let failed = text(.failed, note: "The browser sign-in timed out")
        #expect(failed.contains("The sign-in to Local demo failed"))
        #expect(failed.contains("The browser sign-in timed out"))
        #expect(failed.contains("Esc closes"))
        #expect(!failed.contains("If no browser opened"))
        #expect(!failed.contains("Waiting for the sign-in"))
    }

    @Test("The paste field (no browser here): the prompt, how much was typed, never the text; its keys type, Enter hands it over, Esc cancels")
    func pasteField() {
        func screen(_ typed: Int) -> ScreenModel {
            Fixtures.screen(dialog: .browserWaiting(BrowserWaitingDialog(providerName: "Local demo", url: "http://127.0.0.1:1/o/authorize/?client_id=x",
                                                                         paste: .init(typedCount: typed))))
        }
        for size in [Size(width: 80, height: 24), Size(width: 100, height: 30)] {
            let text = Renderer.render(screen(3), size: size, theme: BuiltInThemes.monochrome).plainText
            #expect(text.contains("Paste the address its browser ended on") && text.contains("3 characters (hidden)"), "\(text)")
            #expect(text.contains("Enter uses the pasted address"), "\(text)")
        }
        #expect(Renderer.render(screen(0), size: Size(width: 100, height: 30), theme: BuiltInThemes.monochrome).plainText.contains("(nothing pasted yet)"))
        #expect(KeyBindings.dispatch(.char("q"), model: screen(0)) == .command(.pasteKey("q")), "q types while the field is open")
        #expect(KeyBindings.dispatch(.backspace, model: screen(2)) == .command(.pasteKey(nil)))
        #expect(KeyBindings.dispatch(.enter, model: screen(2)) == .command(.pasteSubmit))
        #expect(KeyBindings.dispatch(.escape, model: screen(2)) == .command(.cancel))
        let noField = Fixtures.screen(dialog: .browserWaiting(BrowserWaitingDialog(providerName: "P", url: "http://x")))
        #expect(KeyBindings.dispatch(.char("q"), model: noField) == .command(.cancel), "without the field q cancels as before")
        #expect(KeyBindings.dispatch(.enter, model: screen(0)) != .command(.pasteSubmit), "nothing to hand over yet")
    }
}
