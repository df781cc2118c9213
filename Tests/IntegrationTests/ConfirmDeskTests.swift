import AppCore
import AppCoreLive
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--confirm`'s questions (AppCoreLive's `ConfirmDesk`) on a pseudo-terminal of the test's own: one at
/// a time, each saying how many wait, each denied at its own timeout counted from its request.
@Suite("Agent --confirm desk (AppCoreLive, a pseudo-terminal)")
struct ConfirmDeskTests {
    /// `seen` and what the desk wrote on the terminal since, read until `marker` shows (10 s at most: a busy test run can be
    /// slow to start a question; no time is spent once it shows), on a thread of the test's own (the questions start on the pool).
    static func read(_ master: Int32, until marker: String, after seen: String) async -> String {
        await Blocking.onOwnThread {
            var text = seen
            let end = ContinuousClock.now + .seconds(10)
            // Until the marker shows, then what is already there.
            while ContinuousClock.now < end {
                var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, text.contains(marker) ? 0 : 50) == 1 else {
                    if text.contains(marker) { break } else { continue }
                }
                var buffer = [UInt8](repeating: 0, count: 512)
                let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
                if count > 0 { text += String(decoding: buffer.prefix(count), as: UTF8.self) }
            }
            return text
        }
    }

    static func question(_ command: String) -> AgentService.Question { .init(host: "buildbox", command: command, account: "op/alice") }

    @Test("Questions queued behind one on the terminal: the next says how many more wait; y and n answer theirs; one not answered is no at its own timeout")
    func queuedQuestionsSayHowManyWait() async throws {
        var master: Int32 = -1, slave: Int32 = -1
        var name = [CChar](repeating: 0, count: 256)
        try #require(openpty(&master, &slave, &name, nil, nil) == 0)
        defer { close(master); close(slave) }
        let desk = ConfirmDesk(timeout: 1.5, terminalPath: String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        var seen = ""
        let first = Task { await desk.ask(Self.question("first")) }
        seen = await Self.read(master, until: "'first'", after: seen)
        try #require(seen.contains("'first'"), "\(seen)")
        let second = Task { await desk.ask(Self.question("second")) }
        let thirdAsked = ContinuousClock.now
        let third = Task { await desk.ask(Self.question("third")) }
        // The third waits 0.4 s in the queue at least: counted from its request it ends 1.5 s after it, not 1.9 s.
        try await Task.sleep(for: .milliseconds(400))
        _ = write(master, "y\n", 2)
        #expect(await first.value, "y allows")
        seen = await Self.read(master, until: "'second'", after: seen)
        #expect(seen.contains("; 1 more waiting)"), "\(seen)")
        _ = write(master, "n\n", 2)
        #expect(await second.value == false, "n denies")
        seen = await Self.read(master, until: "'third'", after: seen)
        #expect(seen.contains("'third'"), "\(seen)")
        #expect(await third.value == false, "not answered: no")
        #expect(ContinuousClock.now - thirdAsked < .milliseconds(1750), "denied 1.5 s from its request, not 1.5 s after it showed")
    }

    @Test("A question queued behind an unanswered one is denied at its own timeout from its request, not the first's plus its own; the terminal says so")
    func expiredInQueueIsDenied() async throws {
        var master: Int32 = -1, slave: Int32 = -1
        var name = [CChar](repeating: 0, count: 256)
        try #require(openpty(&master, &slave, &name, nil, nil) == 0)
        defer { close(master); close(slave) }
        let desk = ConfirmDesk(timeout: 0.6, terminalPath: String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        var seen = ""
        let first = Task { await desk.ask(Self.question("first")) }
        seen = await Self.read(master, until: "'first'", after: seen)
        try #require(seen.contains("'first'"), "\(seen)")
        let secondAsked = ContinuousClock.now
        let second = Task { await desk.ask(Self.question("second")) }
        let answers = (await first.value, await second.value)
        #expect(answers == (false, false))
        #expect(ContinuousClock.now - secondAsked < .milliseconds(950), "the queued one within its own 0.6 s, not 0.6 s after the first's")
        // The queued one reaches the terminal with a few milliseconds left, or none ("ran out"): denied either way, in its own time.
        seen = await Self.read(master, until: "'second'", after: seen)
        #expect(seen.components(separatedBy: "denied").count == 3, "\(seen)")
    }
}
