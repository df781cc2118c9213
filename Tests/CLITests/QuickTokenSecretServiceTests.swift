// The launcher's quick answer to `authdeck token` from a real Secret Service (gnome-keyring on a
// private bus), against the full program's; and the cases it leaves to the full program without
// starting, prompting or waiting for anything.
import Foundation
import Testing
import TestSupport

@Suite("CLI: the launcher answers a plain token from the Secret Service itself, or hands it over at once", .serialized)
struct QuickTokenSecretServiceTests {
    typealias Lone = QuickTokenTests

    /// A home signed in with no store named: the probe finds the keyring and store.json records it.
    static func signedIn(_ keyring: GnomeKeyringSession) async throws -> CLIHome {
        let idp = try await CLIProvider.shared.provider()
        var home = try CLIHome(provider: idp)
        home.environment["AUTHDECK_STORE"] = nil
        home.environment["DBUS_SESSION_BUS_ADDRESS"] = keyring.busAddress
        try await home.addLocalProvider(idp)
        try await home.login()
        let (_, status) = try await home.statusJSON()
        let storage = (status["accounts"] as? [[String: Any]])?.first?["storage"] as? String
        try #require(storage == "secret-service", "\(status)")
        return home
    }

    /// A gnome-keyring session and a home signed in to it (``signedIn(_:)``) for `body`; both gone after.
    static func withSignedIn(_ body: (GnomeKeyringSession, CLIHome) async throws -> Void) async throws {
        let keyring = try await GnomeKeyringSession.start()
        defer { Task { await keyring.stop() } }
        let home = try await signedIn(keyring)
        defer { home.remove() }
        try await body(keyring, home)
    }

    @Test("A fresh token in gnome-keyring (the store recorded by the probe, or named): the launcher alone prints the full program's token and ExecCredential")
    func secretServiceTokenIsQuick() async throws {
        try await Self.withSignedIn { _, home in
            let launcher = try Lone.LoneLauncher()
            let full = try await Lone.full(home)
            try #require(full.exitCode == 0 && !full.stdout.isEmpty, "\(full)")
            #expect(try await Lone.lone(home, launcher) == .quick(full.stdout))
            #expect(try await Lone.lone(home, launcher, extra: ["AUTHDECK_STORE": "secret-service"]) == .quick(full.stdout))
            let credential = try await Lone.full(home, ["token", "--exec-credential"])
            try #require(credential.exitCode == 0 && credential.stdout.contains("ExecCredential"), "\(credential)")
            #expect(try await Lone.lone(home, launcher, ["token", "--exec-credential"]) == .quick(credential.stdout))
            // The vault named against what store.json records: the full program's to reconcile.
            #expect(try await Lone.lone(home, launcher, extra: ["AUTHDECK_STORE": "vault"]) == .handedOver)
        }
    }

    @Test("GLib's debug messages switched on (G_MESSAGES_DEBUG=all): the full program's stdout holds the token alone, the messages go to stderr")
    func glibDebugMessagesOnStderr() async throws {
        try await Self.withSignedIn { _, home in
            let plain = try await Lone.full(home)
            try #require(plain.exitCode == 0 && !plain.stdout.isEmpty, "\(plain)")
            let debugged = try await Lone.full(home, extra: ["G_MESSAGES_DEBUG": "all"])
            #expect(debugged.exitCode == 0 && debugged.stdout == plain.stdout, "\(debugged)")
            let status = try await Lone.full(home, ["status", "--json"], extra: ["G_MESSAGES_DEBUG": "all"])
            #expect(status.exitCode == 0 && (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) != nil, "\(status)")
        }
    }

    @Test("An item another program damaged where the launcher does not look (a refresh token of the wrong type, the access token whole): handed over, and the full program names the damage")
    func damagedItemHandedOver() async throws {
        try await Self.withSignedIn { keyring, home in
            let (_, status) = try await home.statusJSON()
            let account = try #require((status["accounts"] as? [[String: Any]])?.first)
            let provider = try #require(account["provider"] as? String), subject = try #require(account["subject"] as? String)
            let attributes = ["xdg:schema", "dev.authdeck.AccountSecrets", "application", "authdeck", "provider", provider, "account", subject]
            let environment = ["PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": keyring.busAddress]
            let stored = try await RunningCommand(["lookup"] + attributes, environment: environment, executable: "/usr/bin/secret-tool").wait()
            try #require(stored.exitCode == 0, "\(stored.exitCode)")
            var envelope = try #require(try JSONSerialization.jsonObject(with: Data(stored.stdout.utf8)) as? [String: Any])
            var secrets = try #require(envelope["secrets"] as? [String: Any])
            secrets["refreshToken"] = 5
            envelope["secrets"] = secrets
            let damaged = try JSONSerialization.data(withJSONObject: envelope)
            let written = try await RunningCommand(["store", "--label=authdeck (changed by another program)"] + attributes, environment: environment,
                                                   stdin: damaged, executable: "/usr/bin/secret-tool").wait()
            try #require(written.exitCode == 0, "\(written.stderr)")
            let launcher = try Lone.LoneLauncher()
            #expect(try await Lone.lone(home, launcher) == .handedOver)
            let full = try await Lone.full(home)
            #expect(full.exitCode == 5 && full.stdout.isEmpty && full.stderr.contains("damaged"), "\(full.exitCode) \(full.stderr)")
        }
    }

    @Test("No bus address (or one that is not a unix socket), SYSTEMD_* set, a keyring without the item, a bus where the service is only activatable (not started), a service that never answers: handed over")
    func secretServiceHandedOver() async throws {
        try await Self.withSignedIn { keyring, home in
            let launcher = try Lone.LoneLauncher()
            #expect(try await Lone.lone(home, launcher, extra: ["DBUS_SESSION_BUS_ADDRESS": ""]) == .handedOver)
            // sd-bus would run a program for unixexec: (GDBus does not), and libsystemd logs at SYSTEMD_LOG_LEVEL.
            for extra in [["DBUS_SESSION_BUS_ADDRESS": "unixexec:path=/bin/true"], ["DBUS_SESSION_BUS_ADDRESS": keyring.busAddress + ";tcp:host=x"],
                          ["SYSTEMD_LOG_LEVEL": "debug"]] {
                #expect(try await Lone.lone(home, launcher, extra: extra) == .handedOver, "\(extra)")
            }
            let empty = try await GnomeKeyringSession.start()
            defer { Task { await empty.stop() } }
            #expect(try await Lone.lone(home, launcher, extra: ["DBUS_SESSION_BUS_ADDRESS": empty.busAddress]) == .handedOver)
            // gnome-keyring's D-Bus activation file is installed: a call that allowed auto-start would start it.
            let bare = try await GnomeKeyringSession.start(daemon: false)
            defer { Task { await bare.stop() } }
            #expect(try await Lone.lone(home, launcher, extra: ["DBUS_SESSION_BUS_ADDRESS": bare.busAddress]) == .handedOver)
            let owner = try await RunningCommand(["--bus=\(bare.busAddress)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"],
                                                 environment: ["PATH": "/usr/bin:/bin"], executable: "/usr/bin/dbus-send").wait()
            #expect(owner.exitCode == 0 && owner.stdout.contains("boolean false"), "the launcher started the Secret Service: \(owner)")
            let hung = try await FakeSecretService.start(.hang)
            defer { Task { await hung.stop() } }
            let asked = Date()
            #expect(try await Lone.lone(home, launcher, extra: ["DBUS_SESSION_BUS_ADDRESS": hung.busAddress]) == .handedOver)
            // Its deadline is 1 s for the three calls together; the bound leaves room for a loaded machine.
            #expect(Date().timeIntervalSince(asked) < 10, "the launcher waited for a hung service")
        }
    }

    @Test("A reply of the wrong type (OpenSession, SearchItems or GetSecret with a string more): handed over, as GDBus refuses it for the full program")
    func wrongReplyType() async throws {
        let idp = try await CLIProvider.shared.provider()
        let fake = try await FakeSecretService.start(.lockedUnlockedByPrompt(promptDelay: .milliseconds(50)))
        defer { Task { await fake.stop() } }
        var home = try CLIHome(provider: idp)
        defer { home.remove() }
        home.environment["AUTHDECK_STORE"] = "secret-service"
        home.environment["DBUS_SESSION_BUS_ADDRESS"] = fake.busAddress
        home.environment["DISPLAY"] = ":authdeck-test"
        try await home.addLocalProvider(idp)
        try await home.login()
        let launcher = try Lone.LoneLauncher()
        let full = try await Lone.full(home)
        try #require(full.exitCode == 0, "\(full)")
        // The fake answers rightly: the launcher's answer is the full program's (the test can fail).
        #expect(try await Lone.lone(home, launcher) == .quick(full.stdout))
        for method in ["OpenSession", "SearchItems", "GetSecret"] {
            try fake.answerWrongly(method)
            #expect(try await Lone.lone(home, launcher) == .handedOver, "\(method)")
            // The fake did answer wrongly: GDBus refuses it for the full program.
            let refused = try await Lone.full(home)
            #expect(refused.exitCode != 0 && refused.stderr.contains("expected"), "\(method): \(refused)")
        }
    }
}
