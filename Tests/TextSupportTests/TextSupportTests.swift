import Foundation
import Testing
import TextSupport

/// Each helper against what Foundation's own API (which the shipped modules no longer import)
/// returns for the same input: the tests link Foundation, so it is the reference here.
@Suite("TextSupport: the string operations of Foundation that the modules no longer import")
struct TextSupportTests {
    static let samples = [
        "", " ", "\t a b \t", "\n x \r\n", "\u{00A0}nbsp\u{2003}", "\u{2028}line\u{85}", "caf\u{E9} ", " \u{1F600} ",
        "\u{0B}\u{0C}v", "é\u{301} ", "no-trim",
    ]

    @Test("trimmingWhitespace and trimmingWhitespaceAndNewlines match CharacterSet.whitespaces / .whitespacesAndNewlines")
    func trimming() {
        for sample in Self.samples {
            #expect(sample.trimmingWhitespace() == sample.trimmingCharacters(in: .whitespaces), "\(sample.debugDescription)")
            #expect(sample.trimmingWhitespaceAndNewlines() == sample.trimmingCharacters(in: .whitespacesAndNewlines), "\(sample.debugDescription)")
        }
    }

    @Test("RFC 3986 §2.1: percentEncoded matches addingPercentEncoding (UTF-8, uppercase hex)")
    func percentEncoding() {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        func allowed(_ byte: UInt8) -> Bool { byte < 0x80 && unreserved.contains(Unicode.Scalar(byte)) }
        for sample in Self.samples + ["a+b=c&d/e?f#g%h", "\u{0}x"] {
            #expect(sample.percentEncoded(allowing: allowed) == sample.addingPercentEncoding(withAllowedCharacters: unreserved))
        }
    }

    @Test("percentDecoded: valid escapes decoded, %zz, a cut escape and invalid UTF-8 refused, as Foundation does")
    func percentDecoding() {
        for sample in ["a%20b", "%E2%82%AC", "%e2%82%ac", "100%", "%zz", "%4", "%FF", "plain", "", "a%2Bb+c"] {
            #expect(sample.percentDecoded == (sample as NSString).removingPercentEncoding, "\(sample)")
        }
    }

    @Test("hex, code points, padding")
    func small() {
        #expect([0x00, 0x0F, 0xA5, 0xFF].lowercaseHex == "000fa5ff")
        #expect(Unicode.Scalar(0xE9)!.codePointText == "U+00E9")
        #expect(Unicode.Scalar(0x1F600)!.codePointText == "U+1F600")
        #expect("ab".padded(to: 4) == "ab  ")
        #expect("abcdef".padded(to: 4) == "abcdef")
    }

    @Test("PathText: last component and directory as NSString's path methods give them")
    func paths() {
        // Expected values from NSString's lastPathComponent / deletingLastPathComponent; compared
        // as literals, since Foundation on Linux traps on some of these inputs.
        let cases: [(String, String, String)] = [
            ("/a/b", "b", "/a"), ("/a/b/", "b", "/a"), ("/a", "a", "/"), ("/", "/", "/"), ("a", "a", ""),
            ("a/b", "b", "a"), ("/a//b", "b", "/a"), ("", "", ""), ("/x/y.lock", "y.lock", "/x"),
            // A component starting with a combining mark: the `/` before it is still a separator.
            ("/tmp/w/\u{301}d/x.lock", "x.lock", "/tmp/w/\u{301}d"), ("/tmp/\u{301}d", "\u{301}d", "/tmp"),
        ]
        for (path, last, directory) in cases {
            #expect(PathText.lastComponent(path) == last, "\(path)")
            #expect(PathText.directory(path) == directory, "\(path)")
        }
    }
}
