import FoundationEssentials
import TerminalUI
import TerminalUINCurses

/// The device flow's verification URI as a QR code on stderr (plain text, no colours). Light
/// modules (and the 2-module quiet zone) are drawn as filled cells, which scans on the usual
/// dark-background terminal. The matrix comes from libqrencode (`QRCode.matrix`), the glyphs
/// from the TUI's half-block renderer. Without libqrencode installed, one line saying so (the
/// URL and code above it are enough to sign in).
enum DeviceQRCode {
    static func terminalText(for text: String) -> String? {
        let encoded: [[Bool]]?
        do { encoded = try QRCode.encode(text) } catch { return "(no QR code: \(error))" }
        guard let matrix = encoded else { return nil }
        let quiet = 2
        let size = matrix.count + 2 * quiet
        let inverted = (0..<size).map { y in
            (0..<size).map { x in
                let (mx, my) = (x - quiet, y - quiet)
                let dark = my >= 0 && my < matrix.count && mx >= 0 && mx < matrix.count && matrix[my][mx]
                return !dark
            }
        }
        return QRText.lines(inverted, quietZone: 0, glyphs: .unicode).joined(separator: "\n")
    }
}
