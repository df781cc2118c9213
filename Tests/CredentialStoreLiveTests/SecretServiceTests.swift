@testable import CredentialStoreLive
import CredentialStore
import CLibSecret
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private keyring home: `$XDG_DATA_HOME/keyrings` and `$XDG_RUNTIME_DIR` in a temp dir, and a
/// file with the keyring's password (a throwaway fixture, never on a command line).
final class KeyringHome: Sendable {
    let directory = TemporaryDirectory("authdeck-keyring")

    init() {
        mkdir(directory.file("data"), 0o700)
        mkdir(directory.file("run"), 0o700)
        writeBytes(Array("keyring-pw".utf8), directory.file("password"))
        writeBytes(Array("not-the-keyring-pw".utf8), directory.file("wrong-password"))
    }

    var environment: [String: String] {
        ChildProcess.environment([
            "HOME": directory.path, "XDG_DATA_HOME": directory.file("data"), "XDG_RUNTIME_DIR": directory.file("run"),
            "PROBE": ChildProcess.probePath,
        ])
    }

    /// Runs probe commands inside `dbus-run-session` with gnome-keyring-daemon unlocked by the
    /// password file (`wrongPassword`: unlocked with the wrong one, so the login keyring stays locked).
    /// Returns the probe's JSON lines.
    func session(_ commands: [[String]], wrongPassword: Bool = false) throws -> [[String: Any]] {
        let passwordFile = directory.file(wrongPassword ? "wrong-password" : "password")
        let probeLines = commands.map { (["\"$PROBE\""] + $0.map { "'\($0)'" }).joined(separator: " ") }
        let script = (["gnome-keyring-daemon --unlock --components=secrets < '\(passwordFile)' >/dev/null 2>&1"] + probeLines)
            .joined(separator: "\n")
        let child = try ChildProcess("/usr/bin/dbus-run-session", ["--", "sh", "-c", script],
                                     environment: environment, outputDirectory: directory.path)
        let status = child.wait(timeout: .seconds(60))
        #expect(status == 0, "dbus-run-session: \(child.stderr)")
        return child.jsonLines
    }
}

extension KeyringHome {
    /// Saves an item for corp/alice, then loads it in a second probe process while `dbus-monitor`
    /// records the bus; returns the method calls the loading process sent (`member=…` of each).
    /// No sleeps: the script waits until the monitor has printed its own first message, and after
    /// the load until a marker call (`GetId`) has reached the monitor's file.
    func methodCallsOfOneLoad() throws -> (calls: [String], openSession: String, result: [String: Any]?) {
        let monitor = directory.file("monitor.txt")
        let script = """
            gnome-keyring-daemon --unlock --components=secrets < '\(directory.file("password"))' >/dev/null 2>&1
            "$PROBE" ss-save corp alice seed-1 > /dev/null
            dbus-monitor --session > '\(monitor)' 2>/dev/null & MONITOR=$!
            until grep -q NameLost '\(monitor)'; do :; done
            "$PROBE" ss-load corp alice seed-1
            dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.Peer.GetMachineId > /dev/null
            until grep -q GetMachineId '\(monitor)'; do :; done
            kill $MONITOR
            """
        let child = try ChildProcess("/usr/bin/dbus-run-session", ["--", "sh", "-c", script],
                                     environment: environment, outputDirectory: directory.path)
        #expect(child.wait(timeout: .seconds(60)) == 0, "dbus-run-session: \(child.stderr)")
        let text = try String(contentsOfFile: monitor, encoding: .utf8)
        // The loading process is the connection that sent the first Hello after the monitor's own.
        let lines = text.split(separator: "\n").map(String.init)
        let hellos = lines.filter { $0.hasPrefix("method call") && $0.contains("member=Hello") }
        let sender = hellos.first.flatMap { $0.split(separator: " ").first { $0.hasPrefix("sender=") } }.map(String.init) ?? "?"
        let calls = lines.filter { $0.hasPrefix("method call") && $0.contains(sender + " ") }
            .compactMap { $0.split(separator: " ").first { $0.hasPrefix("member=") }.map { String($0.dropFirst(7)) } }
        let openSession = lines.drop { !($0.contains(sender + " ") && $0.contains("member=OpenSession")) }.dropFirst().first ?? ""
        return (calls, openSession, child.jsonLines.first)
    }
}

@Suite("Secret Service (real gnome-keyring-daemon in dbus-run-session)", .serialized)
struct SecretServiceTests {
    init() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ChildProcess.probePath), "build with swift build --build-tests")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session"), "scripts/bootstrap installs dbus")
    }

    @Test("Store, load, overwrite, list, delete one item per account; other accounts untouched")
    func roundTrip() throws {
        let home = KeyringHome()
        let lines = try home.session([["ss-reachable"], ["ss-roundtrip"], ["select"]])
        #expect(lines.first?["reachable"] as? Bool == true)
        var steps: [String: String] = [:]
        var list: [String] = []
        for line in lines {
            guard let step = line["step"] as? String else { continue }
            if let result = line["result"] as? String { steps[step] = result }
            if let error = line["error"] as? String { steps[step] = "error:\(error)" }
            if let result = line["result"] as? [String] { list = result }
        }
        #expect(steps == [
            "save": "ok", "save-other": "ok", "load": "match", "overwrite": "match", "delete": "ok",
            "load-deleted": "error:notFound", "load-other": "match", "delete-absent": "ok",
        ])
        #expect(list == ["corp/alice", "corp/bob"])
        #expect(lines.last?["kind"] as? String == "secret-service")
        #expect(lines.last?["reason"] as? String == "secretServiceReachable")
    }

    @Test("An item stored in one session is found in a later session of the same keyring")
    func persistsAcrossSessions() throws {
        let home = KeyringHome()
        #expect(try home.session([["ss-save", "corp", "alice", "seed-1"]]).first?["result"] as? String == "ok")
        #expect(try home.session([["ss-load", "corp", "alice", "seed-1"]]).first?["result"] as? String == "match")
    }

    @Test("Secret Service API §Sessions: a load that finds its item is Hello + OpenSession(plain) + SearchItems + Item.GetSecret on the bus (libsecret's lookup sent 11 calls and opened a DH session)")
    func lookupMethodCalls() throws {
        let home = KeyringHome()
        let (calls, openSession, result) = try home.methodCallsOfOneLoad()
        #expect(result?["result"] as? String == "match")
        #expect(calls == ["Hello", "OpenSession", "SearchItems", "GetSecret"])
        #expect(openSession.contains("string \"plain\""), "OpenSession's first argument: \(openSession)")
    }

    @Test("A locked keyring is .locked on save and on load, not notFound")
    func locked() throws {
        let home = KeyringHome()
        #expect(try home.session([["ss-save", "corp", "alice", "seed-1"]]).first?["result"] as? String == "ok")
        let lines = try home.session([["ss-load", "corp", "alice", "seed-1"], ["ss-save", "corp", "bob", "seed-2"]], wrongPassword: true)
        #expect(lines.map { $0["error"] as? String } == ["locked", "locked"])
    }

    @Test("A Secret Service that stops answering gives .timeout at the deadline (gh-style bounded wait)")
    func timeout() throws {
        let home = KeyringHome()
        let line = try #require(try home.session([["ss-timeout", "800"]]).first)
        #expect(line["error"] as? String == "timeout")
        let elapsed = line["elapsedMs"] as? Int ?? 0
        #expect(elapsed >= 790 && elapsed < 3000)
    }

    @Test("No session bus (unset, or an address where nothing listens): .unavailable; selection falls back to the vault",
          arguments: [nil, "unix:path=/nonexistent/bus"])
    func noSecretService(busAddress: String?) throws {
        let directory = TemporaryDirectory()
        var environment = ChildProcess.environment(["HOME": directory.path])
        if let busAddress { environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress }
        var lines: [[String: Any]] = []
        for command in [["ss-load", "corp", "alice", "x"], ["ss-reachable"], ["select"]] {
            let child = try ChildProcess(ChildProcess.probePath, command, environment: environment, outputDirectory: directory.path)
            #expect(child.wait(timeout: .seconds(20)) == 0)
            lines += child.jsonLines
        }
        #expect(lines.count == 3)
        #expect(lines.first?["error"] as? String == "unavailable")
        #expect(lines.dropFirst().first?["reachable"] as? Bool == false)
        #expect(lines.last?["kind"] as? String == "vault")
        #expect(lines.last?["reason"] as? String == "secretServiceUnreachable")
    }

    @Test("GLib errors map to distinct typed cases")
    func errorMapping() {
        func mapped(_ domain: String, _ code: Int32) -> String {
            let lib = try! LibSecret.loaded()
            let quark = lib.g_quark_from_string(domain)
            return SecretServiceStore.mapError(lib, GError(domain: quark, code: code, message: nil), operation: "op", seconds: 3).caseName
        }
        #expect(mapped("secret-error", 2) == "locked")
        #expect(mapped("g-io-error-quark", 19) == "timeout")
        #expect(mapped("g-dbus-error-quark", 4) == "timeout")
        #expect(mapped("g-io-error-quark", 0) == "unavailable")
        #expect(mapped("g-dbus-error-quark", 19) == "unavailable")
    }
}
