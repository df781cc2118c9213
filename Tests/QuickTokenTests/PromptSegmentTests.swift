import QuickToken
import Testing

/// ``PromptSegment``: the prompt line from a `status --json` document, the one rendering both the
/// launcher and the full program use.
@Suite("The prompt segment from a status document")
struct PromptSegmentTests {
    static func document(active: String?, source: String?, alias: String? = nil, handle: String = "local/alice",
                         status: String = "valid", secondsLeft: Int? = 2_520) -> [UInt8] {
        func text(_ value: String?) -> String {
            guard let value else { return "null" }
            let escaped = value.unicodeScalars.map { scalar -> String in
                switch scalar {
                case "\"": return "\\\""
                case "\\": return "\\\\"
                default:
                    guard scalar.value < 0x20 || scalar.value == 0x7F else { return String(scalar) }
                    let hex = String(scalar.value, radix: 16)
                    return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            }.joined()
            return "\"\(escaped)\""
        }
        let left = secondsLeft.map(String.init) ?? "null"
        let json = """
            {"activeAccount": \(text(active)), "activeAccountSource": \(text(source)), "accounts": [
              {"id": "local/sub-bob", "handle": "local/bob", "alias": null, "status": "expired", "accessToken": {"secondsLeft": -5}},
              {"id": "local/sub-alice", "handle": \(text(handle)), "alias": \(text(alias)), "status": \(text(status)),
               "accessToken": {"secondsLeft": \(left)}}]}
            """
        return Array(json.utf8)
    }

    static func line(_ bytes: [UInt8], _ format: String = PromptSegment.defaultFormat) -> String {
        PromptSegment.output(statusJSON: bytes, format: format)
    }

    @Test("The account that applies, the word for where the choice came from, its state and the time left")
    func sourcesInAWord() {
        let cases: [(String, String)] = [("active", "active"), ("environment", "env"), ("rule /home/me/work", "dir"),
                                         ("git config (/home/me/.gitconfig)", "git"), ("only account", "only")]
        for (label, word) in cases {
            #expect(Self.line(Self.document(active: "local/sub-alice", source: label)) == "local/alice (\(word)) valid 42m\n", "\(label)")
        }
        #expect(Self.line(Self.document(active: "local/sub-alice", source: "active", alias: "work")) == "work (active) valid 42m\n")
        #expect(Self.line(Self.document(active: "local/sub-alice", source: "active", alias: "work"), "{handle}:{left}") == "local/alice:42m\n")
    }

    @Test("Nothing applies (no account chosen, an id not in the list, not a document): empty, never an error")
    func nothingApplies() {
        #expect(Self.line(Self.document(active: nil, source: nil)).isEmpty)
        #expect(Self.line(Self.document(active: "local/gone", source: "active")).isEmpty)
        #expect(Self.line(Array("not json".utf8)).isEmpty)
        #expect(Self.line([]).isEmpty)
        #expect(Self.line(Self.document(active: "local/sub-alice", source: "active"), "   ").isEmpty)
    }

    @Test("An expired token, one that needs sign-in, or no expiry: the state alone, no time left; spaces left by empty placeholders squeezed")
    func expiredAndUnusable() {
        #expect(Self.line(Self.document(active: "local/sub-alice", source: "active", status: "expired", secondsLeft: -30))
            == "local/alice (active) expired\n")
        #expect(Self.line(Self.document(active: "local/sub-alice", source: "active", status: "needs sign-in", secondsLeft: 600))
            == "local/alice (active) needs sign-in\n")
        #expect(Self.line(Self.document(active: "local/sub-alice", source: "active", secondsLeft: nil)) == "local/alice (active) valid\n")
    }

    @Test("Durations as a prompt says them", arguments: [
        (1, "1s"), (59, "59s"), (60, "1m"), (3_599, "59m"), (3_600, "1h00m"), (3_725, "1h02m"), (86_399, "23h59m"), (86_400, "1d"),
        (900_000, "10d"),
    ])
    func durations(_ seconds: Int, _ text: String) {
        #expect(Self.line(Self.document(active: "local/sub-alice", source: "active", secondsLeft: seconds), "{left}") == text + "\n")
    }

    @Test("Control, bidirectional and invisible characters in a name or in FORMAT never reach the prompt: made visible")
    func safeInAPrompt() {
        let hostile = Self.document(active: "local/sub-alice", source: "active", alias: "w\u{1B}]0;pwned\u{07}\u{202E}x\u{9B}2J")
        let line = Self.line(hostile, "{account}\u{1B}[2J {state}")
        #expect(!line.dropLast().unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" }, "\(line)")
        #expect(line.hasPrefix("w\\e]0;pwned\\a"), "\(line)")
        #expect(line.hasSuffix("valid\n"))
    }

    @Test("Unknown placeholders and lone braces are printed as written")
    func literalBraces() {
        #expect(Self.line(Self.document(active: "local/sub-alice", source: "active"), "{nope} {state} { {") == "{nope} valid { {\n")
    }
}
