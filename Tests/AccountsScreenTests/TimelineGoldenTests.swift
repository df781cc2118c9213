@testable import AccountsScreen
import AppCore
import AuthEngine
import Foundation
import TerminalUI
import Testing

/// The time line at the top of the Overview tab and "Changed on the last refresh" below it, as the
/// screen draws them from a record, in three themes: the frame's text and, per theme, each cell's
/// style (numbered by first appearance), so that a theme that made two meanings look alike shows.
@Suite("Grant time line, golden frames (80×24, 200×60; monochrome, default, high-contrast)")
struct TimelineGoldenTests {
    /// Alice 40 minutes into a one-hour token, signed in two hours ago, refreshed three times (the
    /// first before the axis), her ID token ended, her refresh token ending in a day; the last
    /// refresh dropped a scope and changed a claim.
    static var state: AccountsScreen.State {
        let now = t0.addingTimeInterval(2400)
        var alice = record("alice")
        alice.refreshTokenExpiresAt = t0.addingTimeInterval(86_400)
        alice.idToken = IDTokenInfo(header: .object([:]), claims: .object([:]), signature: .verified(algorithm: "RS256", keyID: nil),
                                    expiresAt: t0.addingTimeInterval(1800), issuedAt: t0)
        alice.lastRefreshAt = t0
        alice.signedInAt = t0.addingTimeInterval(-7200)
        alice.recentRefreshes = [t0.addingTimeInterval(-3600), t0.addingTimeInterval(-900), t0]
        var changes = RefreshChanges(refreshedAt: t0)
        changes.scopesRemoved = ["profile"]
        changes.scopesDroppedByProvider = ["profile"]
        changes.idTokenClaims = [.init(name: "email", kind: .changed, before: #""a@example.test""#, after: #""b@example.test""#)]
        changes.expiries = [.init(token: .accessToken, before: t0, after: t0.addingTimeInterval(3600))]
        changes.refreshTokenRotated = true
        alice.lastRefreshChanges = changes
        var state = screenState([alice], active: alice.id, now: now)
        state.view.selection = alice.id
        return state
    }

    /// The frame's text, then one letter per cell naming its style in `theme` (a, b, c … by first appearance).
    static func styled(_ frame: Frame, _ theme: Theme) -> String {
        var codes: [RoleStyle: Character] = [:]
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var map: [String] = []
        for y in 0..<frame.size.height {
            var line = ""
            for x in 0..<frame.size.width {
                let style = theme.style(for: frame[x, y].role)
                if codes[style] == nil { codes[style] = letters[min(letters.count - 1, codes.count)] }
                line.append(codes[style]!)
            }
            map.append(line)
        }
        return frame.plainText + "\n── styles (\(theme.name)) ──\n" + map.joined(separator: "\n") + "\n"
    }

    static func check(_ width: Int, _ height: Int) throws {
        let frame = Renderer.render(AccountsScreen.model(state), size: Size(width: width, height: height), theme: BuiltInThemes.monochrome)
        for name in ["monochrome", "default", "high-contrast"] {
            let theme = try #require(BuiltInThemes.theme(named: name))
            let file = Golden.url("timeline-\(width)x\(height)-\(name)")
            let text = styled(frame, theme)
            if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
                try text.write(to: file, atomically: true, encoding: .utf8)
                Issue.record("recorded \(file.lastPathComponent); run again without RECORD_SNAPSHOTS")
                continue
            }
            let expected = try? String(contentsOf: file, encoding: .utf8)
            #expect(expected == text, "\(file.lastPathComponent) differs:\n\(text)")
        }
    }

    @Test("80×24: the bars, now, the refreshes and the planned one readable in the narrow pane, in three themes")
    func timeline80x24() throws { try Self.check(80, 24) }

    @Test("200×60: the same picture scaled to a wide pane, and the last refresh's changes below")
    func timeline200x60() throws { try Self.check(200, 60) }
}
