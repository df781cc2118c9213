import AuthEngine
import Foundation
import Testing

@Suite("Configured URL rules (provider add: issuer RFC 8414 §2, endpoints RFC 6749 §3.1)")
struct ConfiguredURLPolicyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var role: URLPolicy.ConfiguredURLRole
        var expected: URLPolicy.ConfiguredURLViolation?
        var testDescription: String { "\(role) \(text.debugDescription)" }
    }

    static let cases: [Case] = [
        // Accepted.
        Case(text: "https://op.test/o", role: .issuer, expected: nil),
        Case(text: "https://op.test:8443/realms/main", role: .issuer, expected: nil),
        Case(text: "http://127.0.0.1:8000/o", role: .issuer, expected: nil),
        Case(text: "http://[::1]:8000/o", role: .issuer, expected: nil),
        Case(text: "https://op.test/token?tenant=a", role: .endpoint, expected: nil),
        Case(text: "https://api.test/items?page=2#top", role: .request, expected: nil),
        // RFC 8414 §2: no query, no fragment in an issuer.
        Case(text: "https://op.test/o?x=1", role: .issuer, expected: .query("x=1")),
        Case(text: "https://op.test/o?", role: .issuer, expected: .query("")),
        Case(text: "https://op.test/o#frag", role: .issuer, expected: .fragment("frag")),
        // RFC 6749 §3.1: an endpoint has no fragment.
        Case(text: "https://op.test/token#x", role: .endpoint, expected: .fragment("x")),
        // User info would be stored and printed.
        Case(text: "https://alice:s3cret@op.test/o", role: .issuer, expected: .userInfo),
        Case(text: "https://alice@op.test/o", role: .endpoint, expected: .userInfo),
        Case(text: "https://:pw@op.test/o", role: .request, expected: .userInfo),
        // Ports.
        Case(text: "https://op.test:99999/o", role: .issuer, expected: .portOutOfRange("99999")),
        Case(text: "https://op.test:65536/o", role: .endpoint, expected: .portOutOfRange("65536")),
        Case(text: "https://op.test:0/o", role: .issuer, expected: .portOutOfRange("0")),
        Case(text: "https://op.test:65535/o", role: .issuer, expected: nil),
        // Whitespace and control characters, as typed (URL(string:) would percent-encode them).
        Case(text: "https://op.test/o\n", role: .issuer, expected: .whitespaceOrControl(what: "a trailing newline")),
        Case(text: "https://op.test/o\r\n", role: .issuer, expected: .whitespaceOrControl(what: "a trailing carriage return")),
        Case(text: "https://op.test/o ", role: .issuer, expected: .whitespaceOrControl(what: "a trailing space")),
        Case(text: " https://op.test/o", role: .issuer, expected: .whitespaceOrControl(what: "a leading space")),
        Case(text: "https://op.test/a b", role: .endpoint, expected: .whitespaceOrControl(what: "a space")),
        Case(text: "https://op.test/\u{7}o", role: .issuer, expected: .whitespaceOrControl(what: "the character U+0007")),
        Case(text: "https://op.test/\u{200B}o", role: .issuer, expected: .whitespaceOrControl(what: "the character U+200B")),
        // Schemes.
        Case(text: "http://op.example.com/o", role: .issuer, expected: .plainHTTP),
        Case(text: "http://localhost:9/o", role: .issuer, expected: .plainHTTP),
        Case(text: "ftp://op.test/o", role: .issuer, expected: .scheme("ftp")),
        Case(text: "op.test/o", role: .issuer, expected: .notAbsolute),
        Case(text: "", role: .issuer, expected: .notAbsolute),
    ]

    @Test("Each rule refuses its case with the finding; good URLs pass", arguments: cases)
    func rule(_ c: Case) {
        switch URLPolicy.validateConfigured(c.text, role: c.role) {
        case .success(let url):
            #expect(c.expected == nil, "accepted \(url)")
        case .failure(let violation):
            #expect(violation == c.expected)
            #expect(!violation.hint.isEmpty)
        }
    }

    @Test("A refused URL's password is not echoed in messages")
    func redaction() {
        #expect(URLPolicy.redactingUserInfo("https://alice:s3cret@op.test/o?x#y") == "https://***@op.test/o?x#y")
        #expect(URLPolicy.redactingUserInfo("https://op.test/o?next=a@b") == "https://op.test/o?next=a@b")
        #expect(URLPolicy.redactingUserInfo("not a url") == "not a url")
    }
}
