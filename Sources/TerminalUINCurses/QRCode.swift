import CQREncode
import LibraryLoader

/// QR codes through libqrencode, opened with `dlopen` the first time a code is drawn (the
/// device flow), so no other command loads it (PERFORMANCE.md).
public enum QRCode {
    /// The module matrix for `text` (8-bit mode, automatic version, error correction level M),
    /// row-major, `true` = dark module, without quiet zone. nil when libqrencode fails (e.g. the
    /// text is too long for any version) or cannot be loaded (``encode(_:)`` tells which).
    ///
    /// Polarity: `true` is a dark module. `TerminalUI.QRText` puts glyph ink on dark modules and
    /// the `qr` style role draws ink dark on a light background (black on bright white), so the
    /// code reads dark-on-light like print, whatever the terminal's own colours.
    public static func matrix(for text: String) -> [[Bool]]? {
        (try? encode(text)) ?? nil
    }

    /// ``matrix(for:)``, throwing ``LibraryLoadError`` (soname, Debian package `libqrencode4`)
    /// when libqrencode is not installed; nil when it cannot encode `text`.
    public static func encode(_ text: String) throws(LibraryLoadError) -> [[Bool]]? {
        let lib = try LibQREncode.shared.get()
        guard let code = lib.QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { lib.QRcode_free(code) }
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

/// The two libqrencode functions ``QRCode`` calls, resolved with `dlopen` / `dlsym` on first use.
struct LibQREncode: @unchecked Sendable {
    let QRcode_encodeString: authdeck_QRcode_encodeString_fn
    let QRcode_free: authdeck_QRcode_free_fn

    static func load(_ spec: LibrarySpec = .qrencode) throws(LibraryLoadError) -> LibQREncode {
        let library = try DynamicLibrary.open(spec)
        return LibQREncode(QRcode_encodeString: try library.function("QRcode_encodeString"),
                           QRcode_free: try library.function("QRcode_free"))
    }

    /// The process's libqrencode, loaded once.
    static let shared = Result { () throws(LibraryLoadError) -> LibQREncode in try load() }
}
