// `authdeck check --notify` against the real local provider and a fake notification server on a
// private session bus (TestSupport's FakeNotificationServer, jeepney): one notification per
// account and change of state, replacing the account's previous one; none without a bus.
import Foundation
import Testing
import TestSupport

@Suite("authdeck check --notify (a fake notification server on a private bus)", .serialized)
struct CheckNotifyTests {
    /// A home with `users` signed in on `idp`, its session bus the fake's.
    static func home(_ idp: LocalIdentityProvider, _ fake: FakeNotificationServer, users: [String] = ["alice"]) async throws -> CLIHome {
        var home = try await signedInHome(idp, user: users[0])
        for user in users.dropFirst() { try await home.login(user: user) }
        home.environment["DBUS_SESSION_BUS_ADDRESS"] = fake.busAddress
        return home
    }

    @Test("A grant revoked at the provider: exit 3, one critical notification for alice and none for bob; a second run none; signed in again, 'recovered' replaces it")
    func revokedGrantNotifiedOnce() async throws {
        let idp = try await LocalIdentityProvider.start(fixtureControl: true)
        defer { Task { await idp.stop() } }
        let fake = try await FakeNotificationServer.start()
        defer { Task { await fake.stop() } }
        let home = try await Self.home(idp, fake, users: ["alice", "bob"])
        defer { home.remove() }
        #expect(try await idp.revokeGrants(of: "alice") >= 1)
        let found = try await home.run(["check", "--all", "--backstop", "0", "--notify"])
        #expect(found.exitCode == 3, "\(found)")
        let first = try fake.notifications()
        try #require(first.count == 1, "one notification: \(first)\n\(fake.stderrText())")
        #expect(first[0].appName == "authdeck" && first[0].replacesID == 0 && first[0].urgency == 2)
        #expect(first[0].summary == "local/alice needs sign-in", "\(first[0])")
        #expect(first[0].body.contains("run authdeck login local") && !first[0].body.contains("bob"), "\(first[0])")

        let again = try await home.run(["check", "--all", "--backstop", "0", "--notify"])
        #expect(again.exitCode == 3, "\(again)")
        #expect(try fake.notifications().count == 1, "a state already told is not told again")

        try await home.login(user: "alice")
        let recovered = try await home.run(["check", "--all", "--notify"])
        #expect(recovered.exitCode == 0, "\(recovered)")
        let second = try fake.notifications()
        try #require(second.count == 2, "\(second)")
        #expect(second[1].summary == "local/alice is fine again" && second[1].urgency == 0, "\(second[1])")
        #expect(second[1].replacesID == first[0].id, "replaces the needs-sign-in notification instead of stacking")
    }

    @Test("The provider stopped: exit 1 and no notification until the third run in a row; restarted, 'recovered' replaces it")
    func outageNotifiedOnThirdRun() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-idp-kept-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let idp = try await LocalIdentityProvider.start(dataDirectory: data.path)
        let fake = try await FakeNotificationServer.start()
        defer { Task { await fake.stop() } }
        let home = try await Self.home(idp, fake)
        defer { home.remove() }
        await idp.stop()
        var codes: [Int32] = []
        var counts: [Int] = []
        for _ in 0..<3 {
            codes.append(try await home.run(["check", "--backstop", "0", "--notify"]).exitCode)
            counts.append(try fake.notifications().count)
        }
        #expect(codes == [0, 0, 1] && counts == [0, 0, 1], "codes \(codes), notifications \(counts)")
        let outage = try #require(try fake.notifications().first)
        #expect(outage.summary == "local/alice could not be refreshed" && outage.urgency == 1, "\(outage)")

        let restarted = try await LocalIdentityProvider.start(port: idp.port, dataDirectory: data.path)
        defer { Task { await restarted.stop() } }
        let back = try await home.run(["check", "--backstop", "0", "--notify", "--json"])
        #expect(back.exitCode == 0, "\(back)")
        let all = try fake.notifications()
        try #require(all.count == 2, "\(all)")
        #expect(all[1].summary == "local/alice is fine again" && all[1].urgency == 0 && all[1].replacesID == outage.id, "\(all[1])")
    }

    @Test("Two checks at once: one refresh per account, one notification per change of state")
    func concurrentChecksNotifyOnce() async throws {
        let idp = try await LocalIdentityProvider.start(fixtureControl: true)
        defer { Task { await idp.stop() } }
        let fake = try await FakeNotificationServer.start()
        defer { Task { await fake.stop() } }
        let home = try await Self.home(idp, fake, users: ["alice", "bob"])
        defer { home.remove() }
        #expect(try await idp.revokeGrants(of: "alice") >= 1)
        try await Task.sleep(for: .seconds(3))  // both sign-ins are now older than a 2 s backstop
        let arguments = ["check", "--all", "--backstop", "2", "--notify", "--json"]
        let runs = try [home.start(arguments), home.start(arguments)]
        var refreshed = 0
        var codes: [Int32] = []
        for run in runs {
            let result = await run.wait()
            codes.append(result.exitCode)
            refreshed += try CheckCommandTests.accounts(result).filter { $0["refreshed"] as? Bool == true }.count
        }
        #expect(codes == [3, 3], "\(codes)")
        #expect(refreshed == 1, "bob refreshed once; alice's refresh failed once and was not tried again")
        let notifications = try fake.notifications()
        #expect(notifications.map(\.summary) == ["local/alice needs sign-in"], "\(notifications)")
    }

    @Test("Without a session bus, or with a dead one: no error, the hook still runs and stderr still tells")
    func noBus() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        for address in [nil, "unix:path=\(home.root.path)/no-bus-here"] {
            let dump = home.root.appendingPathComponent("hook-env")
            try? FileManager.default.removeItem(at: dump)
            var extra: [String: String] = [:]
            if let address { extra["DBUS_SESSION_BUS_ADDRESS"] = address }
            let result = try await home.run(["check", "--backstop", "0", "--notify", "--hook", "env > '\(dump.path)'"], extra: extra)
            #expect(result.exitCode == 0 && result.stderr.isEmpty, "\(address ?? "no bus"): \(result)")
            let environment = try String(contentsOf: dump, encoding: .utf8)
            #expect(environment.contains("AUTHDECK_EVENT=refreshed"), "\(address ?? "no bus"): \(environment)")
        }
    }
}
