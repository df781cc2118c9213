// The C shim headers (Sources/C*/shim.h) hold declarations and stateless `static inline`
// functions only. A `static` variable in a header, at file scope or as a local of a `static
// inline` function, gets one copy per place the header is compiled into: the TUI's signal flag
// had two copies in the release binary, the handler set one and the loop read the other, so
// Ctrl-C, SIGTERM and SIGHUP were ignored (issue 16). State that must exist once lives in a C
// target with a .c file (Sources/CTerminalSignals).
import Foundation
import Testing

private let sourcesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources")

/// The header without comments, string literals and preprocessor lines.
func strippedCHeader(_ text: String) -> String {
    var s = text.replacingOccurrences(of: #"/\*[\s\S]*?\*/"#, with: " ", options: .regularExpression)
    s = s.replacingOccurrences(of: #"//[^\n]*"#, with: " ", options: .regularExpression)
    s = s.replacingOccurrences(of: #""(\\.|[^"\\])*""#, with: "\"\"", options: .regularExpression)
    // Preprocessor lines, with their continuations.
    s = s.replacingOccurrences(of: #"(?m)^[ \t]*#([^\n]*\\\n)*[^\n]*"#, with: " ", options: .regularExpression)
    return s
}

/// What in a header would be mutable state (or a per-includer copy of a function): each finding
/// is the offending text.
func mutableStateInCHeader(_ text: String) -> [String] {
    let s = strippedCHeader(text)
    var findings: [String] = []
    // 1. `static` that is not `static inline` (a function) or `static const` (immutable data):
    //    a static variable (file scope or function-local) or a non-inline static function.
    let staticRE = try! NSRegularExpression(pattern: #"\bstatic\b(?!\s+(inline|const)\b)[^;{]*"#)
    let ns = s as NSString
    for m in staticRE.matches(in: s, range: NSRange(location: 0, length: ns.length)) {
        findings.append(ns.substring(with: m.range).trimmingCharacters(in: .whitespacesAndNewlines))
    }
    // 2. A variable defined at file scope without `static` (`int x;`, `volatile int x = 0;`):
    //    a statement at brace depth 0 with no parenthesis that is not a typedef, an extern
    //    declaration or a struct/enum/union declaration.
    var depth = 0
    var statement = ""
    var inFunctionBody = false
    for ch in s {
        switch ch {
        case "{":
            if depth == 0 { inFunctionBody = statement.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix(")") }
            depth += 1
        case "}":
            depth -= 1
            // A function definition ends without `;`: what follows is a new statement.
            if depth == 0 && inFunctionBody {
                statement = ""
                inFunctionBody = false
            }
        case ";" where depth == 0:
            let st = statement.trimmingCharacters(in: .whitespacesAndNewlines)
            statement = ""
            let words = st.split(whereSeparator: { $0.isWhitespace })
            guard let first = words.first else { continue }
            if ["typedef", "extern", "struct", "enum", "union", "static"].contains(String(first)) { continue }
            if st.contains("(") { continue }
            findings.append(st)
        default:
            if depth == 0 { statement.append(ch) }
        }
    }
    return findings
}

@Suite("C shim headers")
struct CShimHeaderTests {
    static var shimHeaders: [String] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: sourcesDirectory.path)) ?? []
        return folders.filter { $0.hasPrefix("C") && FileManager.default.fileExists(atPath: sourcesDirectory.appendingPathComponent("\($0)/shim.h").path) }
            .sorted()
    }

    @Test("Every system-library target is checked (the list is not empty)")
    func headersFound() {
        #expect(Self.shimHeaders.contains("CNCurses"))
        #expect(Self.shimHeaders.count >= 7, "\(Self.shimHeaders)")
    }

    @Test("No C shim header holds mutable state or non-inline static functions (one copy per includer)",
          arguments: shimHeaders)
    func noMutableState(target: String) throws {
        let text = try String(contentsOf: sourcesDirectory.appendingPathComponent("\(target)/shim.h"), encoding: .utf8)
        let findings = mutableStateInCHeader(text)
        #expect(findings.isEmpty, "\(target)/shim.h: \(findings); move the state to a C target with a .c file (see Sources/CTerminalSignals)")
    }

    @Test("The check finds what the CNCurses shim used to hold (a function-local static, a static handler, a file-scope variable)")
    func checkerFindsState() {
        let old = """
        /* a comment with static in it */
        static inline volatile sig_atomic_t *slot(void) { static volatile sig_atomic_t s = 0; return &s; }
        static void handler(int sig) { *slot() = sig; }
        int counter = 0;
        static const int fine[] = { 1, 2 };
        static inline int alsoFine(void) { static const int table[] = { 1 }; return table[0]; }
        typedef struct _GList GList;
        struct _GList { void *data; };
        enum { MAX = 256 };
        extern int wcwidth(wchar_t c);
        #define X static
        """
        let findings = mutableStateInCHeader(old)
        #expect(findings.count == 3, "\(findings)")
        #expect(findings.contains { $0.contains("sig_atomic_t s") })
        #expect(findings.contains { $0.contains("void handler") })
        #expect(findings.contains { $0.contains("counter") })
    }
}
