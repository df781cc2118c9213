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
}
