import CQREncode
import Foundation

/// The device flow's verification URI as a QR code for a terminal (libqrencode), drawn with
/// half-block characters (two modules per character row) and a 2-module quiet zone. Light
/// modules are drawn as filled cells, which scans on the usual dark-background terminal.
enum QRCode {
    /// Module rows (`true` = dark) for `text`, or nil when libqrencode cannot encode it.
    static func modules(for text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        return (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    static func terminalText(for text: String) -> String? {
        guard let rows = modules(for: text) else { return nil }
        let quiet = 2
        let size = rows.count + 2 * quiet
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (mx, my) = (x - quiet, y - quiet)
            guard my >= 0, my < rows.count, mx >= 0, mx < rows.count else { return false }
            return rows[my][mx]
        }
        var lines: [String] = []
        for y in stride(from: 0, to: size, by: 2) {
            var line = ""
            for x in 0..<size {
                let top = !dark(x, y), bottom = y + 1 < size ? !dark(x, y + 1) : false
                line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
