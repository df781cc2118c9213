// String operations the modules need without Foundation: the shipped binary links
// FoundationEssentials only (no ICU, no FoundationInternationalization), which halves its
// relocations and page faults at start-up (PERFORMANCE.md). Each is defined once, here.

extension Unicode.Scalar {
    /// Foundation's `CharacterSet.whitespaces`: Unicode general category Zs and the tab.
    public var isHorizontalWhitespace: Bool { self == "\t" || properties.generalCategory == .spaceSeparator }

    /// Foundation's `CharacterSet.newlines`: U+000A–U+000D, U+0085, U+2028, U+2029.
    public var isNewline: Bool {
        switch value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing scalars for which `isTrimmed` holds.
    public func trimming(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[first...last])
        return String(kept)
    }

    /// Without leading and trailing spaces and tabs (`CharacterSet.whitespaces`).
    public func trimmingWhitespace() -> String { trimming(where: \.isHorizontalWhitespace) }

    /// Without leading and trailing white space and line breaks (`.whitespacesAndNewlines`).
    public func trimmingWhitespaceAndNewlines() -> String { trimming(where: { $0.isHorizontalWhitespace || $0.isNewline }) }

    /// RFC 3986 §2.1 percent-encoding of the UTF-8 bytes not `allowed` (uppercase hex digits).
    public func percentEncoded(allowing allowed: (UInt8) -> Bool) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for byte in utf8 {
            if allowed(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + byte.hex(uppercase: true)
            }
        }
        return out
    }

    /// The text with each `%XX` replaced by its byte; nil when a `%` is not followed by two hex
    /// digits or the bytes are not UTF-8 (as Foundation's `removingPercentEncoding`).
    public var percentDecoded: String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Padded with spaces on the right to `width` characters (unchanged when longer).
    public func padded(to width: Int) -> String {
        count >= width ? String(self) : String(self) + String(repeating: " ", count: width - count)
    }
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

extension UInt8 {
    /// Two hex digits.
    public func hex(uppercase: Bool = false) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        return String(decoding: [digits[Int(self >> 4)], digits[Int(self & 0x0F)]], as: UTF8.self)
    }
}

extension Sequence<UInt8> {
    /// Lowercase hex, two digits per byte (digests in file names and nonces). Inlinable, so that
    /// it is specialized where it is used: run unspecialized, it looked the sequence's element type
    /// up at run time, two scans of every conformance record of the image (2 % of `authdeck token`,
    /// PERFORMANCE.md).
    @inlinable public var lowercaseHex: String {
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            let high = byte >> 4, low = byte & 0x0F
            text.append(high < 10 ? 0x30 + high : 0x57 + high)  // 0x57 + 10 = "a"
            text.append(low < 10 ? 0x30 + low : 0x57 + low)
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension Unicode.Scalar {
    /// `U+00E9`: the code point in uppercase hex, at least four digits.
    public var codePointText: String {
        let digits = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// Path strings, as `NSString`'s path methods treated them (no file system access). They work
/// on the UTF-8 bytes: a `/` followed by a combining mark is still a separator (as a Character
/// it would join the mark into one grapheme and hide the separator).
public enum PathText {
    private static let slash = UInt8(ascii: "/")

    private static func trimmedSlashes(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var trimmed = bytes
        while trimmed.count > 1, trimmed.last == slash { trimmed = trimmed.dropLast() }
        return trimmed
    }

    /// The last component: `/a/b/` → `b`, `a` → `a`, `/` → `/`.
    public static func lastComponent(_ path: String) -> String {
        let trimmed = trimmedSlashes(Array(path.utf8)[...])
        guard trimmed != [slash] else { return "/" }
        guard let index = trimmed.lastIndex(of: slash) else { return String(decoding: trimmed, as: UTF8.self) }
        return String(decoding: trimmed[(index + 1)...], as: UTF8.self)
    }

    /// Without the last component: `/a/b` → `/a`, `/a` → `/`, `a` → `` (empty).
    public static func directory(_ path: String) -> String {
        let trimmed = trimmedSlashes(Array(path.utf8)[...])
        guard let index = trimmed.lastIndex(of: slash) else { return "" }
        if index == trimmed.startIndex { return "/" }
        return String(decoding: trimmedSlashes(trimmed[..<index]), as: UTF8.self)
    }
}

/// UTC times as RFC 3339 text without Foundation (the launcher has none).
public enum UTCTimeText {
    /// `secondsSince1970` as `YYYY-MM-DDTHH:MM:SSZ` (seconds rounded down) by arithmetic, the
    /// inverse of StrictJSON's `wholeSecondsUTC` (Hinnant's `civil_from_days`); nil outside the
    /// years 1900–9999.
    public static func wholeSeconds(_ interval: Double) -> String? {
        guard interval >= -2_208_988_800, interval < 253_402_300_800 else { return nil }
        let seconds = Int(interval.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }
}
