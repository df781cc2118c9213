import AppCore
import Foundation
import Testing
@testable import TerminalUI

/// RFC 9470 step-up: the overview says how the account's user authenticated (`acr`) and how long ago (`auth_time`).
@Suite("Authentication context in the accounts screen (RFC 9470, OIDC Core §2)")
struct StepUpRenderTests {
    @Test("The overview shows acr and the authentication's age when the ID token has them, and no such line otherwise")
    func authenticationLine() {
        var model = Fixtures.screen()
        model.detail?.overview.authentication = AuthenticationContext(acr: "urn:emulator:mfa", authTime: model.now.addingTimeInterval(-300))
        let text = Renderer.render(model, size: Size(width: 160, height: 30), theme: BuiltInThemes.monochrome).plainText
        #expect(text.contains("Authentication  acr urn:emulator:mfa, authenticated 5m"), "\(text)")
        let plain = Renderer.render(Fixtures.screen(), size: Size(width: 100, height: 30), theme: BuiltInThemes.monochrome).plainText
        #expect(!plain.contains("Authentication "))
    }
}
