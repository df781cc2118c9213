import CredentialStoreLive
import Foundation
import Testing

@Suite("Desktop notifications: the text sent and when a bus is looked for")
struct DesktopNotificationsTests {
    @Test("The body is plain text: &, < and > become entities, nothing else changes")
    func bodyEscaped() {
        #expect(DesktopNotifications.escapedBody("<b>x</b> & <a href=\"y\">é</a>") == "&lt;b&gt;x&lt;/b&gt; &amp; &lt;a href=\"y\"&gt;é&lt;/a&gt;")
        #expect(DesktopNotifications.escapedBody("&amp;") == "&amp;amp;")
    }

    @Test("Summary and body: control characters and bidirectional overrides from a name are made visible, never sent raw")
    func controlCharactersVisible() {
        #expect(DesktopNotifications.plainSummary("\u{1B}[31mp\u{202E}x/bob needs sign-in") == "\\e[31mp<U+202E>x/bob needs sign-in")
        #expect(DesktopNotifications.escapedBody("a\u{1B}]52;c;x\u{07}<b>") == "a\\e]52;c;x\\a&lt;b&gt;")
        #expect(DesktopNotifications.plainSummary("<b>p&amp;</b>") == "<b>p&amp;</b>", "the summary is plain text by the spec")
    }

    @Test("A session bus is looked for only when DBUS_SESSION_BUS_ADDRESS is set or $XDG_RUNTIME_DIR/bus exists (no autolaunch)")
    func busConfigured() throws {
        #expect(DesktopNotifications.sessionBusConfigured(["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]))
        #expect(!DesktopNotifications.sessionBusConfigured(["DBUS_SESSION_BUS_ADDRESS": ""]))
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-runtime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: runtime) }
        #expect(!DesktopNotifications.sessionBusConfigured(["XDG_RUNTIME_DIR": runtime.path, "DISPLAY": ":0"]))
        _ = FileManager.default.createFile(atPath: runtime.appendingPathComponent("bus").path, contents: nil)
        #expect(DesktopNotifications.sessionBusConfigured(["XDG_RUNTIME_DIR": runtime.path]))
    }

    @Test("No bus configured: nothing is sent, nil, at once")
    func noBus() {
        let started = Date()
        #expect(DesktopNotifications.send(.init(summary: "s", body: "b", urgency: .low), environment: [:]) == nil)
        #expect(Date().timeIntervalSince(started) < 1)
    }
}
