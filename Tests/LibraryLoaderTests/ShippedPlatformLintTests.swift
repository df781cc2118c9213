// What the shipped binary lacks, kept out of Sources: it links FoundationEssentials only (no ICU,
// no time zone names, no locale data), while the test process has full Foundation, so a call that
// works in every unit test can trap or mislead in the binary people run (`TimeZone(identifier:
// "UTC")!` ended the accounts screen on `?`). These checks read the sources; the journeys run the
// release binary itself.
import Foundation
import Testing
import TestSupport

/// A place in a source file.
struct SourceHit: CustomStringConvertible, Equatable {
    var file: String
    var line: Int
    var text: String
    var description: String { "\(file):\(line): \(text)" }
}

enum SourceLint {
    /// Every `.swift` file under `Sources/`, as (path relative to Sources, lines).
    static func sources() throws -> [(file: String, lines: [Substring])] {
        let root = ShippedBinary.packageRoot.appendingPathComponent("Sources")
        let files = (FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".swift") }
        return try files.sorted().map { file in
            (file, try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false))
        }
    }

    /// The code of a line without a trailing `//` comment (a `//` inside a string literal ends the
    /// scan early, which only hides hits, never invents them).
    static func code(_ line: Substring) -> Substring {
        line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
    }

    /// Force-unwrapped initialiser calls, `TypeName(…)!` or `.init(…)!` (balanced parentheses, not
    /// `!=`), whose type name is UpperCamelCase and not a member of a value (`lib.EVP_sha256()!` is a
    /// C function, not an initialiser).
    static func forceUnwrappedInitialisers(in line: Substring) -> [String] {
        let code = Array(code(line))
        var hits: [String] = []
        var i = 0
        while i < code.count {
            let start = i
            guard code[i].isLetter || code[i] == "." || code[i] == "_" else { i += 1; continue }
            while i < code.count, code[i].isLetter || code[i].isNumber || code[i] == "_" || code[i] == "." { i += 1 }
            let name = String(code[start..<i])
            let before: Character? = start > 0 ? code[start - 1] : nil
            let isType = name == ".init" || (name.first?.isUppercase == true && name.split(separator: ".").last?.first?.isUppercase == true)
            guard i < code.count, code[i] == "(", isType, before.map({ !$0.isLetter && !$0.isNumber && $0 != "." && $0 != "_" }) ?? true else { continue }
            var depth = 0, j = i
            repeat {
                if code[j] == "(" { depth += 1 } else if code[j] == ")" { depth -= 1 }
                j += 1
            } while j < code.count && depth > 0
            if depth == 0, j < code.count, code[j] == "!", j + 1 >= code.count || code[j + 1] != "=" {
                hits.append(String(code[start...j]))
            }
        }
        return hits
    }

    /// Calls whose data FoundationEssentials does not carry: in the shipped binary the current time
    /// zone and calendar are GMT, zone and locale names resolve to nil or a fixed default.
    static let platformDataCalls = ["TimeZone.current", "TimeZone(identifier:", "TimeZone.autoupdatingCurrent", "Calendar.current",
                                    "Calendar.autoupdatingCurrent", "Locale.current", "Locale(identifier:", "Locale.autoupdatingCurrent",
                                    "timeZone: .current"]
}

@Suite("What the shipped binary lacks (FoundationEssentials only), kept out of Sources")
struct ShippedPlatformLintTests {
    @Test("The scanner finds what it is meant to find (and nothing in C calls or comparisons)")
    func scannerFindsForcedInitialisers() {
        #expect(SourceLint.forceUnwrappedInitialisers(in: #"let z = TimeZone(identifier: "UTC")!"#) == [#"TimeZone(identifier: "UTC")!"#])
        #expect(SourceLint.forceUnwrappedInitialisers(in: #"f(URL(string: base + "/x")!, Unicode.Scalar(c)!)"#)
                == [#"URL(string: base + "/x")!"#, "Unicode.Scalar(c)!"])
        #expect(SourceLint.forceUnwrappedInitialisers(in: "let t = .init(rawValue: n)!") == [".init(rawValue: n)!"])
        #expect(SourceLint.forceUnwrappedInitialisers(in: "case .sha256: lib.EVP_sha256()!").isEmpty)
        #expect(SourceLint.forceUnwrappedInitialisers(in: "if URL(string: s) != nil {}").isEmpty)
        #expect(SourceLint.forceUnwrappedInitialisers(in: "// TimeZone(identifier: \"UTC\")! in a comment").isEmpty)
    }

    @Test("No force-unwrapped failable initialiser in Sources (TimeZone, URL, Locale, …: the platform may not have the value)")
    func noForceUnwrappedInitialisers() throws {
        let sources = try SourceLint.sources()
        #expect(sources.count > 100, "found the sources")
        var hits: [SourceHit] = []
        for (file, lines) in sources {
            for (n, line) in lines.enumerated() {
                for hit in SourceLint.forceUnwrappedInitialisers(in: line) { hits.append(SourceHit(file: file, line: n + 1, text: hit)) }
            }
        }
        #expect(hits.isEmpty, "handle nil with an error that names what was missing: \(hits)")
    }

    @Test("No current time zone, calendar or locale from Foundation (GMT and a fixed default in the shipped binary): DisplayTimeZone.system")
    func noPlatformDataCalls() throws {
        var hits: [SourceHit] = []
        for (file, lines) in try SourceLint.sources() {
            for (n, line) in lines.enumerated() {
                let code = SourceLint.code(line)
                for call in SourceLint.platformDataCalls where code.contains(call) { hits.append(SourceHit(file: file, line: n + 1, text: String(code))) }
            }
        }
        #expect(hits.isEmpty, "\(hits)")
    }
}
