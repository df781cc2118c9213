import Foundation
import Testing
import TerminalUI
@testable import TerminalUINCurses

@Suite("TerminalUINCurses helpers: QR matrix, OSC 52, key decoding, colour fallback")
struct NCursesHelpersTests {
    @Test("libqrencode: a 50-character device URL gives a version 4 code (33×33) with three finder patterns")
    func qrMatrix() throws {
        let url = "http://127.0.0.1:8999/device?user_code=WDJB-MJHTXY"
        #expect(url.count == 50)
        let m = try #require(QRCode.matrix(for: url))
        #expect(m.count == 33)
        #expect(m.allSatisfy { $0.count == 33 })
        // ISO/IEC 18004 finder pattern: 7×7, dark ring, light ring, dark 3×3 core.
        func finder(atX ox: Int, y oy: Int) -> Bool {
            for y in 0..<7 {
                for x in 0..<7 {
                    let ring = x == 0 || y == 0 || x == 6 || y == 6
                    let core = (2...4).contains(x) && (2...4).contains(y)
                    if m[oy + y][ox + x] != (ring || core) { return false }
                }
            }
            return true
        }
        #expect(finder(atX: 0, y: 0))
        #expect(finder(atX: 26, y: 0))
        #expect(finder(atX: 0, y: 26))
        #expect(!finder(atX: 26, y: 26))
        // Half blocks with a 4-module quiet zone: 41 columns × 21 lines.
        let lines = QRText.lines(m, quietZone: 4, glyphs: .unicode)
        #expect(lines.count == 21)
        #expect(lines.allSatisfy { $0.count == 41 })
    }

    @Test("libqrencode: text too long for any version gives nil")
    func qrTooLong() {
        #expect(QRCode.matrix(for: String(repeating: "x", count: 4000)) == nil)
    }

    @Test("OSC 52: ESC ] 52 ; c ; base64 BEL")
    func osc52() {
        #expect(Clipboard.osc52("hello") == "\u{1B}]52;c;aGVsbG8=\u{07}")
        #expect(Clipboard.osc52("") == "\u{1B}]52;c;\u{07}")
    }

    @Test("Characters from get_wch", arguments: [
        (UInt32(10), KeyEvent.enter), (13, .enter), (9, .tab), (27, .escape), (127, .backspace), (8, .backspace),
        (3, .ctrl("c")), (106, .char("j")), (0x00E9, .char("é")), (0x2713, .char("✓")),
    ])
    func decode(code: UInt32, expected: KeyEvent) {
        #expect(CursesScreen.decodeCharacter(code) == expected)
    }

    @Test("256-colour indices map to the nearest basic colour on 8/16-colour terminals", arguments: [
        (196, 8, 1), (46, 8, 2), (21, 16, 4), (231, 16, 15), (232, 8, 0), (24, 8, 6), (236, 16, 0),
    ])
    func colourFallback(index: Int, available: Int, expected: Int) {
        #expect(ColorApproximation.nearestBasic(index, available: available) == expected)
    }

    @Test("Missing TERM is an error, not exit(1)")
    @MainActor
    func missingTerm() {
        #expect(throws: TerminalError.noTerminalType) { try CursesScreen(environment: [:]) }
    }
}
