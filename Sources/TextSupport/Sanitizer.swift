// Sanitisation: every string from outside (claims, names, error descriptions, URLs) passes through
// `Sanitizer.visible` before it reaches a cell, so escape sequences can never reach the terminal.

public enum Sanitizer {
    /// `s` with every control character made visible:
    /// - ESC (U+001B) → `\e`, so `ESC ] 52 ; …` shows as `\e]52;…` and `ESC [ 2 J` as `\e[2J`;
    /// - other C0 controls → `\0 \a \b \t \n \v \f \r` or `\xNN`; DEL → `\x7f`;
    /// - C1 controls (U+0080–U+009F, e.g. the 8-bit CSI U+009B) → `\u{9b}`;
    /// - bidirectional overrides, embeddings, isolates and marks (U+202A–202E, U+2066–2069,
    ///   U+200E, U+200F, U+061C) → `<U+202E>`, so text cannot be visually reordered;
    /// - line and paragraph separators (U+2028, U+2029) → `<U+2028>`.
    /// Everything else (including wide and combining characters) is kept.
    public static func visible(_ s: String) -> String {
        // Fast path: most strings have nothing to escape.
        if !s.unicodeScalars.contains(where: needsEscape) { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            guard needsEscape(u) else {
                out.append(u)
                continue
            }
            out.append(contentsOf: escape(u).unicodeScalars)
        }
        return String(out)
    }

    /// Whether a scalar must not reach the terminal as is.
    public static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C, 0x2028, 0x2029: return true
        default: return false
        }
    }

    static func escape(_ u: Unicode.Scalar) -> String {
        let v = u.value
        switch v {
        case 0x1B: return "\\e"
        case 0x00: return "\\0"
        case 0x07: return "\\a"
        case 0x08: return "\\b"
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0B: return "\\v"
        case 0x0C: return "\\f"
        case 0x0D: return "\\r"
        case 0x00...0x1F, 0x7F: return "\\x" + hex(v, width: 2)
        case 0x80...0x9F: return "\\u{" + hex(v, width: 2) + "}"
        default: return "<U+" + hex(v, width: 4).uppercased() + ">"
        }
    }

    static func hex(_ v: UInt32, width: Int) -> String {
        let h = String(v, radix: 16)
        return String(repeating: "0", count: max(0, width - h.count)) + h
    }
}
