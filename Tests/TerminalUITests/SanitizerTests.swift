import AppCore
import Foundation
import Testing
import TextSupport
@testable import TerminalUI

@Suite("Sanitisation of strings from outside")
struct SanitizerTests {
    @Test("Control characters and escape sequences are made visible", arguments: [
        ("\u{1B}]52;c;ZXZpbA==\u{07}", "\\e]52;c;ZXZpbA==\\a"),
        ("\u{1B}[2J", "\\e[2J"),
        ("a\tb\nc\r", "a\\tb\\nc\\r"),
        ("\u{00}\u{01}\u{7F}", "\\0\\x01\\x7f"),
        ("\u{9B}31m", "\\u{9b}31m"),
        ("user\u{202E}gpj.exe", "user<U+202E>gpj.exe"),
        ("\u{2066}x\u{2069}", "<U+2066>x<U+2069>"),
        ("plain ünïcødé 日本 👍", "plain ünïcødé 日本 👍"),
    ])
    func visible(input: String, expected: String) {
        #expect(Sanitizer.visible(input) == expected)
    }

    @Test("A hostile claim never reaches a frame cell raw")
    func hostileClaimInFrame() {
        var m = Fixtures.screen(tab: .idToken)
        m.detail!.idToken!.claims = obj([
            ("iss", .string("http://127.0.0.1:8999")),
            ("name", .string("\u{1B}]52;c;cGF5bG9hZA==\u{07}")),
            ("evil", .string("\u{1B}[2J\u{1B}[H")),
            ("\u{1B}[31mkey", .string("x")),
        ])
        m.accounts[0].displayName = "mallory\u{1B}[2J"
        m.flash = Flash(level: .error, text: "error_description: \u{1B}]0;pwned\u{07}")
        let f = Renderer.render(m, size: Size(width: 120, height: 40), theme: BuiltInThemes.monochrome)
        for cell in f.cells {
            #expect(!cell.text.unicodeScalars.contains { Sanitizer.needsEscape($0) }, "raw control in cell \(cell)")
        }
        #expect(f.plainText.contains("\\e]52;c;cGF5bG9hZA==\\a"))
        #expect(f.plainText.contains("\\e[2J"))
        #expect(f.plainText.contains("mallory\\e[2J"))
    }
}
