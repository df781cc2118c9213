import Testing
@testable import TerminalUI

@Suite("Frame: clipping, wide characters, bars")
struct FrameTests {
    @Test("Display width of narrow, wide, combining and emoji graphemes", arguments: [
        ("a", 1), ("日", 2), ("👍", 2), ("é", 1), ("e\u{301}", 1), ("─", 1), ("█", 1), ("\u{200B}", 0),
    ])
    func width(s: String, expected: Int) {
        #expect(DisplayWidth.of(Character(s)) == expected)
    }

    @Test("Wide characters take two cells; plain text skips the continuation")
    func wide() {
        var f = Frame(size: Size(width: 6, height: 1))
        let used = f.text("日本x", x: 0, y: 0, role: .text)
        #expect(used == 5)
        #expect(f[1, 0].isContinuation)
        #expect(f.plainText == "日本x")
    }

    @Test("Text clips at maxWidth; a wide char that does not fit becomes a space")
    func clipping() {
        var f = Frame(size: Size(width: 10, height: 1))
        f.text("ab日", x: 0, y: 0, role: .text, maxWidth: 3)
        #expect(f.plainText == "ab")
        #expect(f[2, 0].text == " ")
        f.text("0123456789ABC", x: 5, y: 0, role: .text)
        #expect(f.plainText == "ab   01234")
    }

    @Test("Overwriting half of a wide character blanks the other half")
    func overwriteWide() {
        var f = Frame(size: Size(width: 4, height: 1))
        f.text("日日", x: 0, y: 0, role: .text)
        f.text("x", x: 1, y: 0, role: .text)
        #expect(f.plainText == " x日")
    }

    @Test("Truncation adds an ellipsis within the width")
    func truncate() {
        #expect(DisplayWidth.truncate("alice@example.test", to: 8) == "alice@e…")
        #expect(DisplayWidth.truncate("日本語", to: 4) == "日…")
        #expect(DisplayWidth.truncate("short", to: 8) == "short")
    }

    @Test("Bars show the fraction in eighths", arguments: [(0.0, "░░░░"), (1.0, "████"), (0.5, "██░░"), (0.3125, "█▎░░")])
    func bar(fraction: Double, expected: String) {
        var f = Frame(size: Size(width: 4, height: 1))
        f.bar(x: 0, y: 0, width: 4, fraction: fraction, role: .statusValid, emptyRole: .barEmpty)
        #expect(f.plainText == expected)
    }

    @Test("QR half blocks: two module rows per line, quiet zone on every side")
    func qrHalfBlocks() {
        let m: [[Bool]] = [[true, false, true], [false, true, false], [true, true, false]]
        #expect(QRText.lines(m, quietZone: 1, glyphs: .unicode) == [" ▄ ▄ ", " ▄█  ", "     "])
        #expect(QRText.lines(m, quietZone: 1, glyphs: .ascii) == ["          ", "  ##  ##  ", "    ##    ", "  ####    ", "          "])
    }
}
