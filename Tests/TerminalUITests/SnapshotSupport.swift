import Foundation
import Testing
import TerminalUI

/// Compares a frame with `Snapshots/<name>.txt` (plain text, then its role map).
/// `RECORD_SNAPSHOTS=1` rewrites the file and fails the test so a recording never passes silently.
func assertSnapshot(_ frame: Frame, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let text = frame.plainText + "\n── roles ──\n" + frame.roleMap + "\n"
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Snapshots").appendingPathComponent(name + ".txt")
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
        try text.write(to: url, atomically: true, encoding: .utf8)
        Issue.record("recorded snapshot \(name); rerun without RECORD_SNAPSHOTS", sourceLocation: sourceLocation)
        return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
        Issue.record("missing snapshot \(url.path); run with RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
        return
    }
    if expected != text {
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let a = text.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDiff = zip(e, a).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(e.count, a.count)
        let exp = firstDiff < e.count ? String(e[firstDiff]) : "<end>"
        let act = firstDiff < a.count ? String(a[firstDiff]) : "<end>"
        Issue.record("snapshot \(name) differs at line \(firstDiff + 1):\nexpected: \(exp)\nactual:   \(act)\n\nactual frame:\n\(frame.plainText)",
                     sourceLocation: sourceLocation)
    }
}
