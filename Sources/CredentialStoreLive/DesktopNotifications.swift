import CLibSecret
import FoundationEssentials
import TextSupport

/// Desktop notifications on the session bus (Desktop Notifications Specification 1.2,
/// `org.freedesktop.Notifications.Notify`), through the same GDBus as the Secret Service
/// (``GDBus``: libgio opened on first use). Best effort: no session bus, no notification server,
/// or no answer within the timeout is `nil`, never an error — a notification is one of several
/// ways of telling (stderr and hooks are the others).
public enum DesktopNotifications {
    /// The `urgency` hint (a byte): 0 low, 1 normal, 2 critical (spec §Urgency Levels).
    public enum Urgency: UInt8, Sendable {
        case low = 0, normal = 1, critical = 2
    }

    public struct Notification: Sendable, Equatable {
        /// `app_name`.
        public var appName: String
        /// `summary`: plain text (servers do not interpret markup in it).
        public var summary: String
        /// `body`: plain text; escaped here (``escapedBody(_:)``), since servers may interpret a
        /// subset of HTML in it.
        public var body: String
        public var urgency: Urgency
        /// `replaces_id`: the id of the notification this one replaces (0: none), so that an
        /// account's notifications replace each other rather than stack.
        public var replacesID: UInt32

        public init(appName: String = "authdeck", summary: String, body: String, urgency: Urgency, replacesID: UInt32 = 0) {
            self.appName = appName
            self.summary = summary
            self.body = body
            self.urgency = urgency
            self.replacesID = replacesID
        }
    }

    static let busName = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    /// Whether a session bus can be there without GLib's autolaunch (which would start a bus of
    /// its own): `DBUS_SESSION_BUS_ADDRESS` set, or `$XDG_RUNTIME_DIR/bus` (systemd's user bus).
    public static func sessionBusConfigured(_ environment: [String: String]) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        return FileManager.default.fileExists(atPath: runtime + "/bus")
    }

    /// `Notify(app_name, replaces_id, app_icon "", summary, body, actions [], hints {"urgency":
    /// byte}, expire_timeout -1)`: the server's id of the notification shown, or nil (no bus
    /// configured, none reachable, no server, no answer within `timeout`).
    public static func send(_ notification: Notification, environment: [String: String], timeout: Duration = .seconds(3)) -> UInt32? {
        guard sessionBusConfigured(environment) else { return nil }
        let summary = plainSummary(notification.summary)
        let body = escapedBody(notification.body)
        let id: UInt32? = try? SecretServiceStore.call("notify", timeout: timeout, using: GDBus.self) { lib, cancellable, error in
            guard let bus = lib.g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, error) else { return nil }
            defer { lib.g_object_unref(UnsafeMutableRawPointer(bus)) }
            let actions = "s".withCString { lib.g_variant_new_array(authdeck_variant_type($0), nil, 0) }
            let hints = SecretServiceStore.Conversation.dictionary(lib, [("urgency", lib.g_variant_new_byte(notification.urgency.rawValue))])
            let arguments = lib.g_variant_new_tuple([
                lib.g_variant_new_string(notification.appName), lib.g_variant_new_uint32(notification.replacesID),
                lib.g_variant_new_string(""), lib.g_variant_new_string(summary), lib.g_variant_new_string(body),
                actions, hints, lib.g_variant_new_int32(-1),
            ], 8)
            let reply = "(u)".withCString { type in
                lib.g_dbus_connection_call_sync(bus, busName, path, busName, "Notify", arguments, authdeck_variant_type(type),
                                                G_DBUS_CALL_FLAGS_NONE, timeout.milliseconds, cancellable, error)
            }
            guard let reply else { return nil }
            let answer = SecretServiceStore.Variant(lib, reply)
            return lib.g_variant_get_uint32(answer[0].pointer)
        }
        return id ?? nil
    }

    /// `text` for a `summary`: plain text by the spec (no markup is read there), with control
    /// characters and bidirectional overrides made visible (``Sanitizer/visible(_:)``), so an
    /// account or provider name cannot move or hide what the notification says.
    public static func plainSummary(_ text: String) -> String { Sanitizer.visible(text) }

    /// `text` for a `body`: control characters made visible as in ``plainSummary(_:)``, then `&`,
    /// `<` and `>` as entities, so that nothing in it (an account or provider name) is taken for
    /// markup (spec §Markup).
    public static func escapedBody(_ text: String) -> String {
        var escaped = ""
        for character in Sanitizer.visible(text) {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
