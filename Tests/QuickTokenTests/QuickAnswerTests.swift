// What the launcher prints for a stored secret set, against what the full program's line output
// would print: a token it would change (control characters, escapes) is the full program's.
import Foundation
@testable import QuickToken
import Testing

@Suite("QuickAnswer.answer: a stored secret set to the launcher's output")
struct QuickAnswerTests {
    static func answer(token: String, execCredential: Bool = false) throws -> (String?, String) {
        let envelope: [String: Any] = ["version": 1, "secrets": ["defaultAccessToken": ["token": token, "tokenType": "Bearer"]]]
        let bytes = try JSONSerialization.data(withJSONObject: envelope)
        let document = try #require(bytes.withUnsafeBytes { Document(parsing: $0) })
        var reason = ""
        let output = QuickAnswer.answer(document.root, now: 0, execCredential: execCredential, reason: &reason)
        return (output, reason)
    }

    @Test("A plain token: the token and a line end")
    func plainToken() throws {
        #expect(try Self.answer(token: "eyJhbGciOi.abc-_~+/=").0 == "eyJhbGciOi.abc-_~+/=\n")
        #expect(try Self.answer(token: "with space").0 == "with space\n")
    }

    @Test("A token the full program's output makes visible (ESC, DEL, C1, U+2028, tab, newline): handed over, saying why",
          arguments: ["a\u{1B}[2Jb", "a\u{7F}b", "a\u{9B}b", "a\u{2028}b", "a\tb", "a\nb"])
    func controlCharacters(token: String) throws {
        let (output, reason) = try Self.answer(token: token)
        #expect(output == nil, "\(token.debugDescription)")
        #expect(reason.contains("makes visible"), "\(reason)")
        // kubectl's ExecCredential is JSON, whose escapes carry them.
        #expect(try Self.answer(token: token, execCredential: true).0?.contains("ExecCredential") == true)
    }
}
