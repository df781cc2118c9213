// The picture of a grant's life at the top of the Overview tab: its tokens as bars on one time
// axis, "now", the planned refresh and the last refreshes as marks (pure layout, unit tested).
import AppCore
import FoundationEssentials

/// The selected account's tokens on one time axis.
public struct GrantTimeline: Equatable, Sendable {
    /// From when a token was issued (or the grant began) until it ends; `end` nil: no end known.
    public struct Interval: Equatable, Sendable {
        public var start: Date
        public var end: Date?
        public init(start: Date, end: Date?) {
            self.start = start
            self.end = end
        }
    }

    public var accessToken: Interval?
    public var idToken: Interval?
    /// The refresh token since the grant began; drawn only when its end is known.
    public var refreshToken: Interval?
    /// When the scheduler refreshes the access token (``ExpiryPolicy/refreshDue(for:)-(AccountRecord)``).
    public var plannedRefresh: Date?
    /// The last refreshes, oldest first.
    public var refreshes: [Date]

    public init(accessToken: Interval? = nil, idToken: Interval? = nil, refreshToken: Interval? = nil, plannedRefresh: Date? = nil,
                refreshes: [Date] = []) {
        self.accessToken = accessToken
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.plannedRefresh = plannedRefresh
        self.refreshes = refreshes
    }
}

/// ``GrantTimeline`` as lines of a pane `width` columns wide. Colour is never the only carrier:
/// a token's time gone is `░`, its time left `█`, "now" a `│` through every bar, a refresh `↻`,
/// the planned refresh `◇`, a bar running past the axis `→`; each row is labelled and ends with
/// its time left in words, and a legend row names the marks.
public enum GrantTimelineLayout {
    /// The label column ("access  ", "ID token", "refresh ", "        ").
    static let labelWidth = 9
    /// The time-left column after the track ("in 59m 59s", "expired 1m ago").
    static let endWidth = 14
    /// The narrowest track worth drawing; below it the picture is left out.
    static let minimumTrack = 12

    /// The axis: from the earliest start shown (the tokens, the last refreshes — the past kept
    /// to at most three times the future shown) to the latest end (the tokens but the refresh
    /// token, the planned refresh), "now" always inside.
    static func axis(_ t: GrantTimeline, now: Date) -> (start: Date, end: Date) {
        let intervals = [t.accessToken, t.idToken].compactMap { $0 }
        var end = ([now] + intervals.compactMap(\.end) + [t.plannedRefresh].compactMap { $0 }).max() ?? now
        if end.timeIntervalSince(now) < 60 { end = now.addingTimeInterval(60) }
        let earliest = (intervals.map(\.start) + t.refreshes + [now]).min() ?? now
        let start = max(earliest, now.addingTimeInterval(-3 * end.timeIntervalSince(now)))
        return (min(start, now.addingTimeInterval(-60)), end)
    }

    /// The picture's lines for a pane `width` columns wide; empty when nothing has a time or the
    /// pane is too narrow.
    public static func lines(_ t: GrantTimeline, now: Date, width: Int) -> [Line] {
        let track = width - labelWidth - endWidth - 1
        guard track >= minimumTrack, t.accessToken != nil || t.idToken != nil else { return [] }
        let (start, end) = axis(t, now: now)
        let span = end.timeIntervalSince(start)
        func column(_ date: Date) -> Int { Int((date.timeIntervalSince(start) / span * Double(track)).rounded(.down)) }
        let nowColumn = min(track - 1, max(0, column(now)))
        func bar(_ label: String, _ interval: GrantTimeline.Interval?, known: String? = nil) -> Line? {
            guard let interval else { return nil }
            let pad = DisplayWidth.pad(label, to: labelWidth)
            guard let ends = interval.end else { return [.text(pad, .claimKey), .text(known ?? "no end given", .textDim)] }
            let role: StyleRole = ends <= now ? .statusExpired : .statusValid
            let from = max(0, column(interval.start)), to = min(track, column(ends) + 1)
            var spans: Line = [.text(pad, .claimKey)]
            var runs: [(String, StyleRole)] = []
            for i in 0..<track {
                let cell: (String, StyleRole)
                if i == nowColumn { cell = ("│", .text) } else if i < from || i >= to { cell = (" ", .text) } else if i < nowColumn {
                    cell = ("░", .barEmpty)
                } else { cell = (i == track - 1 && ends > end ? "→" : "█", role) }
                if let last = runs.last, last.1 == cell.1 { runs[runs.count - 1].0 += cell.0 } else { runs.append(cell) }
            }
            spans += runs.map { Span.text($0.0, $0.1) }
            let left = DisplayWidth.truncate(TimeText.countdown(to: ends, now: now), to: endWidth)
            spans.append(.text(" " + left, ends <= now ? .statusExpired : .claimTime))
            return spans
        }
        var out: [Line] = [bar("access", t.accessToken), bar("ID token", t.idToken),
                           bar("refresh", t.refreshToken.map { GrantTimeline.Interval(start: max($0.start, start), end: $0.end) })].compactMap { $0 }
        // The marks: the last refreshes, the planned one, now.
        var marks = Array(repeating: " ", count: track)
        var roles = Array(repeating: StyleRole.text, count: track)
        for date in t.refreshes where date >= start && date <= end {
            marks[min(track - 1, column(date))] = "↻"
            roles[min(track - 1, column(date))] = .statusRefreshing
        }
        if let planned = t.plannedRefresh, planned >= now, planned <= end {
            marks[min(track - 1, column(planned))] = "◇"
            roles[min(track - 1, column(planned))] = .statusRefreshing
        }
        marks[nowColumn] = "│"
        roles[nowColumn] = .text
        var markLine: Line = [.text(String(repeating: " ", count: labelWidth), .text)]
        for (mark, role) in zip(marks, roles) {
            if case .text(let s, let r)? = markLine.last, r == role {
                markLine[markLine.count - 1] = .text(s + mark, r)
            } else {
                markLine.append(.text(mark, role))
            }
        }
        out.append(markLine)
        // The axis in words: its start, now, its end; then the legend.
        let left = TimeText.relative(start, now: now), right = TimeText.relative(end, now: now)
        let nowLabel = "now", gap1 = max(1, nowColumn - left.count), used = labelWidth + left.count + gap1 + nowLabel.count
        let gap2 = max(1, labelWidth + track - used - right.count)
        out.append([.text(String(repeating: " ", count: labelWidth) + left + String(repeating: " ", count: gap1), .textDim),
                    .text(nowLabel, .text), .text(String(repeating: " ", count: gap2) + right, .textDim)])
        // As much of the legend as fits, most needed first.
        var legend = String(repeating: " ", count: labelWidth - 1)
        for item in ["│ now", "↻ refreshed", "◇ planned", "░ gone", "█ left"] where DisplayWidth.of(legend) + 1 + DisplayWidth.of(item) <= width {
            legend += " " + item
        }
        out.append([.text(legend, .textDim)])
        return out
    }

    /// The picture in words for the accessible mode (one line, no glyphs): "Time line: access token
    /// 40m gone, in 20m 0s left; ID token expired 10m ago; refresh token in 1d 0h; refreshed 40m ago,
    /// 1h 40m ago; next refresh planned in 19m 0s."
    public static func spoken(_ t: GrantTimeline, now: Date) -> String? {
        guard t.accessToken != nil || t.idToken != nil else { return nil }
        func token(_ name: String, _ interval: GrantTimeline.Interval?) -> String? {
            guard let interval else { return nil }
            guard let end = interval.end else { return "\(name) has no end given" }
            if end <= now { return "\(name) \(TimeText.countdown(to: end, now: now))" }
            let gone = TimeText.pastDuration(max(0, Int(now.timeIntervalSince(interval.start))))
            return "\(name) \(gone) gone, ends \(TimeText.relative(end, now: now))"
        }
        var parts = [token("access token", t.accessToken), token("ID token", t.idToken), token("refresh token", t.refreshToken)].compactMap { $0 }
        if !t.refreshes.isEmpty {
            parts.append("refreshed " + t.refreshes.reversed().map { TimeText.relative($0, now: now) }.joined(separator: ", "))
        }
        if let planned = t.plannedRefresh, planned > now { parts.append("next refresh planned " + TimeText.relative(planned, now: now)) }
        return "Time line: " + parts.joined(separator: "; ") + "."
    }
}
