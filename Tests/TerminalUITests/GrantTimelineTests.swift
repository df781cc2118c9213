import AppCore
import Foundation
import Testing
@testable import TerminalUI

/// ``GrantTimelineLayout``: the pure layout of the grant's time line.
@Suite("Grant time line layout")
struct GrantTimelineTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static func at(_ seconds: Double) -> Date { now.addingTimeInterval(seconds) }

    static func text(_ line: Line) -> String {
        line.map { if case .text(let s, _) = $0 { s } else { "" } }.joined()
    }

    /// A one-hour access token 30 minutes in, refreshed at its issue, its refresh planned a minute before it ends.
    static let halfway = GrantTimeline(accessToken: .init(start: at(-1800), end: at(1800)), refreshToken: .init(start: at(-7200), end: nil),
                                       plannedRefresh: at(1740), refreshes: [at(-1800)])

    @Test("Time gone and time left in different characters, now a │ in every bar, each row labelled and ending in words")
    func glyphsCarryTheMeaning() throws {
        let lines = GrantTimelineLayout.lines(Self.halfway, now: Self.now, width: 60).map(Self.text)
        let access = try #require(lines.first)
        #expect(access.hasPrefix("access   ░"))
        let track = access.dropFirst(GrantTimelineLayout.labelWidth).prefix(60 - GrantTimelineLayout.labelWidth - GrantTimelineLayout.endWidth - 1)
        #expect(track.filter { $0 == "░" }.count == track.filter { $0 == "█" }.count + 1 || track.filter { $0 == "░" }.count == track.filter { $0 == "█" }.count,
                "half gone, half left: \(access)")
        #expect(track.filter { $0 == "│" }.count == 1)
        #expect(access.hasSuffix(" in 30m 0s") || access.hasSuffix(" in 30m"), "\(access)")
        #expect(lines[1] == "refresh  no end given", "a refresh token without a known end is said, not drawn")
        #expect(lines[2].contains("↻") && lines[2].contains("◇") && lines[2].contains("│"), "\(lines[2])")
        #expect(lines[3].contains("30m ago") && lines[3].contains("now") && lines[3].contains("in 30m"), "\(lines[3])")
        #expect(lines.last?.contains("↻ refreshed") == true && lines.last?.contains("░ gone") == true)
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 60 }, "\(lines.joined(separator: "\n"))")
    }

    @Test("Scaled to the pane: the same picture in more cells at 120 columns; at 80 columns the pane's width (42) still holds it")
    func scalesToWidth() {
        for width in [42, 80, 120] {
            let lines = GrantTimelineLayout.lines(Self.halfway, now: Self.now, width: width).map(Self.text)
            #expect(lines.count == 5, "\(width): \(lines)")
            #expect(lines.allSatisfy { DisplayWidth.of($0) <= width }, "\(width): \(lines)")
            #expect(DisplayWidth.of(lines[0]) > width - GrantTimelineLayout.endWidth - 2, "\(width): the track fills the pane")
        }
        #expect(GrantTimelineLayout.lines(Self.halfway, now: Self.now, width: 30).isEmpty, "too narrow: left out")
        #expect(GrantTimelineLayout.lines(GrantTimeline(), now: Self.now, width: 80).isEmpty, "nothing with a time")
    }

    @Test("A refresh token that outlives the axis runs to its edge with →; an expired token is drawn as gone and says so")
    func pastTheEdgeAndExpired() throws {
        let t = GrantTimeline(accessToken: .init(start: Self.at(-3600), end: Self.at(-60)), refreshToken: .init(start: Self.at(-3600), end: Self.at(86_400)))
        let lines = GrantTimelineLayout.lines(t, now: Self.now, width: 60).map(Self.text)
        #expect(lines[0].contains("expired"), "\(lines[0])")
        #expect(!lines[0].contains("█"), "\(lines[0])")
        let refresh = try #require(lines.first { $0.hasPrefix("refresh") })
        #expect(refresh.contains("→ in 1d"), "\(refresh)")
    }

    @Test("Accessible mode: the picture said in words, no glyphs")
    func spoken() throws {
        let line = try #require(GrantTimelineLayout.spoken(Self.halfway, now: Self.now))
        #expect(line.hasPrefix("Time line: access token 30m"), "\(line)")
        #expect(line.contains("refresh token has no end given") && line.contains("refreshed 30m ago") && line.contains("next refresh planned in 29m"), "\(line)")
        #expect(!line.contains(where: { "░█│↻◇→".contains($0) }))
    }
}
