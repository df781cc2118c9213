import CQREncode

/// QR codes through libqrencode.
public enum QRCode {
    /// The module matrix for `text` (8-bit mode, automatic version, error correction level M),
    /// row-major, `true` = dark module, without quiet zone. nil when libqrencode fails (e.g. the
    /// text is too long for any version).
    ///
    /// Polarity: `true` is a dark module. `TerminalUI.QRText` puts glyph ink on dark modules and
    /// the `qr` style role draws ink dark on a light background (black on bright white), so the
    /// code reads dark-on-light like print, whatever the terminal's own colours.
    public static func matrix(for text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        var rows: [[Bool]] = []
        rows.reserveCapacity(width)
        for y in 0..<width {
            rows.append((0..<width).map { x in data[y * width + x] & 1 == 1 })
        }
        return rows
    }
}
