import CSystemdBus
import LibraryLoader
#if canImport(Glibc)
import Glibc
#endif

/// Reading one item's secret from the Secret Service on the session bus, for the launcher: the
/// calls the full program's lookup makes (Secret Service API: `Service.OpenSession` with the
/// "plain" algorithm, `Service.SearchItems`, `Item.GetSecret` of the first unlocked item), made
/// with sd-bus (libsystemd, opened with `dlopen` on use) instead of GDBus. No call starts a
/// service (auto-start is off: a service that is not running is the full program's to start),
/// none prompts, and the connection and all of them together have ``deadline``. Anything unexpected — no library,
/// no bus, no service, an error reply, no unlocked item, a late answer — is nil, and the full
/// program asks again and says what is wrong.
enum SessionBusSecret {
    /// How long the three calls may take together, in microseconds: gnome-keyring answers in a
    /// few milliseconds; later, the full program asks (with its own deadline and its words).
    static let deadline: UInt64 = 1_000_000

    /// The secret of the first unlocked item with `attributes`, as bytes, handed to `body`; nil
    /// when there is none or it cannot be read here. `address` is `DBUS_SESSION_BUS_ADDRESS`
    /// (nil at once unless ``isOneUnixSocket(_:)``).
    static func withSecret<T>(address: String, attributes: [(String, String)], _ body: (UnsafeRawBufferPointer) -> T?) -> T? {
        let end = monotonicMicroseconds() + deadline
        guard isOneUnixSocket(address), let bus = try? SDBus.load(), let connection = bus.connect(address, until: end) else { return nil }
        defer { _ = bus.sd_bus_close_unref(connection) }
        // (vo): the algorithm's output (empty for "plain") and the session's object path.
        guard let session = bus.call(connection, SecretServiceItem.servicePath, "Service", "OpenSession", until: end, arguments: { message in
            bus.append(message, "s", "plain") && bus.container(message, "v", "s") { bus.append(message, "s", "") }
        }, replySignature: "vo", reply: { reply in
            (bus.entered(reply, "v", "s") { bus.string(reply, "s") } ?? nil) == nil ? nil : bus.string(reply, "o")
        }) else { return nil }
        // (aoao): the unlocked items, then the locked ones (the full program's to unlock).
        guard let item = bus.call(connection, SecretServiceItem.servicePath, "Service", "SearchItems", until: end, arguments: { message in
            bus.container(message, "a", "{ss}") {
                attributes.allSatisfy { name, value in
                    bus.container(message, "e", "ss") { bus.append(message, "s", name) && bus.append(message, "s", value) }
                }
            }
        }, replySignature: "aoao", reply: { reply in
            bus.entered(reply, "a", "o") { () -> String? in
                var first: String?
                while let path = bus.string(reply, "o") { first = first ?? path }
                return first
            } ?? nil
        }) else { return nil }
        // ((oayays)): the session, the algorithm's parameters, the value, its content type.
        return bus.call(connection, item, "Item", "GetSecret", until: end, arguments: { message in
            bus.append(message, "o", session)
        }, replySignature: "(oayays)", reply: { reply in
            bus.entered(reply, "r", "oayays") { () -> T? in
                guard bus.string(reply, "o") != nil, bus.bytes(reply) != nil, let value = bus.bytes(reply),
                      bus.string(reply, "s") != nil else { return nil }
                return body(value)
            } ?? nil
        })
    }

    /// Whether `address` is a single `unix:` address (D-Bus Specification §Server Addresses):
    /// sd-bus would also run a program for `unixexec:` and try each of a `;`-separated list,
    /// which the launcher leaves to the full program.
    static func isOneUnixSocket(_ address: String) -> Bool {
        guard address.utf8.starts(with: "unix:".utf8), !address.utf8.contains(UInt8(ascii: ";")) else { return false }
        // `key=value` pairs, none empty (GDBus refuses `unix:path=P,` and `unix:,path=P`; sd-bus does not).
        let pairs = address.utf8.dropFirst(5).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        return pairs.allSatisfy { pair in
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return false }
            return equals != pair.startIndex && pair.index(after: equals) != pair.endIndex
        }
    }

    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}

/// The sd-bus functions ``SessionBusSecret`` calls, resolved from libsystemd with `dlsym`.
struct SDBus {
    let sd_bus_new: authdeck_sd_bus_new_fn
    let sd_bus_set_address: authdeck_sd_bus_set_address_fn
    let sd_bus_set_bus_client: authdeck_sd_bus_set_bus_client_fn
    let sd_bus_is_ready: authdeck_sd_bus_is_ready_fn
    let sd_bus_process: authdeck_sd_bus_process_fn
    let sd_bus_wait: authdeck_sd_bus_wait_fn
    let sd_bus_start: authdeck_sd_bus_start_fn
    let sd_bus_close_unref: authdeck_sd_bus_close_unref_fn
    let sd_bus_message_new_method_call: authdeck_sd_bus_message_new_method_call_fn
    let sd_bus_message_set_auto_start: authdeck_sd_bus_message_set_auto_start_fn
    let sd_bus_message_append_basic: authdeck_sd_bus_message_append_basic_fn
    let sd_bus_message_open_container: authdeck_sd_bus_message_open_container_fn
    let sd_bus_message_close_container: authdeck_sd_bus_message_close_container_fn
    let sd_bus_call: authdeck_sd_bus_call_fn
    let sd_bus_message_enter_container: authdeck_sd_bus_message_enter_container_fn
    let sd_bus_message_exit_container: authdeck_sd_bus_message_exit_container_fn
    let sd_bus_message_read_basic: authdeck_sd_bus_message_read_basic_fn
    let sd_bus_message_read_array: authdeck_sd_bus_message_read_array_fn
    let sd_bus_message_get_signature: authdeck_sd_bus_message_get_signature_fn
    let sd_bus_message_unref: authdeck_sd_bus_message_unref_fn
    let sd_bus_error_free: authdeck_sd_bus_error_free_fn

    /// Opens libsystemd and resolves every function.
    static func load(_ spec: LibrarySpec = .systemd) throws(LibraryLoadError) -> SDBus {
        let library = try DynamicLibrary.open(spec)
        return SDBus(
            sd_bus_new: try library.function("sd_bus_new"),
            sd_bus_set_address: try library.function("sd_bus_set_address"),
            sd_bus_set_bus_client: try library.function("sd_bus_set_bus_client"),
            sd_bus_is_ready: try library.function("sd_bus_is_ready"),
            sd_bus_process: try library.function("sd_bus_process"),
            sd_bus_wait: try library.function("sd_bus_wait"),
            sd_bus_start: try library.function("sd_bus_start"),
            sd_bus_close_unref: try library.function("sd_bus_close_unref"),
            sd_bus_message_new_method_call: try library.function("sd_bus_message_new_method_call"),
            sd_bus_message_set_auto_start: try library.function("sd_bus_message_set_auto_start"),
            sd_bus_message_append_basic: try library.function("sd_bus_message_append_basic"),
            sd_bus_message_open_container: try library.function("sd_bus_message_open_container"),
            sd_bus_message_close_container: try library.function("sd_bus_message_close_container"),
            sd_bus_call: try library.function("sd_bus_call"),
            sd_bus_message_enter_container: try library.function("sd_bus_message_enter_container"),
            sd_bus_message_exit_container: try library.function("sd_bus_message_exit_container"),
            sd_bus_message_read_basic: try library.function("sd_bus_message_read_basic"),
            sd_bus_message_read_array: try library.function("sd_bus_message_read_array"),
            sd_bus_message_get_signature: try library.function("sd_bus_message_get_signature"),
            sd_bus_message_unref: try library.function("sd_bus_message_unref"),
            sd_bus_error_free: try library.function("sd_bus_error_free"))
    }

    /// A client connection to the bus at `address`, authenticated and past its Hello before `end`
    /// (CLOCK_MONOTONIC microseconds; sd-bus's own limit for that is 90 s); nil when it cannot be
    /// set up in time.
    func connect(_ address: String, until end: UInt64) -> OpaquePointer? {
        var bus: OpaquePointer?
        guard sd_bus_new(&bus) >= 0, let bus else { return nil }
        var ready = sd_bus_set_address(bus, address) >= 0 && sd_bus_set_bus_client(bus, 1) >= 0 && sd_bus_start(bus) >= 0
        while ready, sd_bus_is_ready(bus) == 0 {
            let processed = sd_bus_process(bus, nil)
            let now = SessionBusSecret.monotonicMicroseconds()
            ready = processed >= 0 && now < end && (processed > 0 || sd_bus_wait(bus, end - now) >= 0)
        }
        guard ready, sd_bus_is_ready(bus) > 0 else {
            _ = sd_bus_close_unref(bus)
            return nil
        }
        return bus
    }

    /// One method call of `org.freedesktop.Secret.<interface>` on `path`, not auto-starting the
    /// service, answered before `end` (CLOCK_MONOTONIC microseconds): its reply read by `reply`;
    /// nil when building the call failed, it was not answered in time, the answer is an error or
    /// its signature is not `replySignature`.
    func call<T>(_ bus: OpaquePointer, _ path: String, _ interface: String, _ member: String, until end: UInt64,
                 arguments: (OpaquePointer) -> Bool, replySignature: String, reply read: (OpaquePointer) -> T?) -> T? {
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, SecretServiceItem.busName, path, "org.freedesktop.Secret." + interface, member) >= 0,
              let message else { return nil }
        defer { _ = sd_bus_message_unref(message) }
        let now = SessionBusSecret.monotonicMicroseconds()
        guard now < end, sd_bus_message_set_auto_start(message, 0) >= 0, arguments(message) else { return nil }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var answer: OpaquePointer?
        guard sd_bus_call(bus, message, end - now, &error, &answer) >= 0, let answer else { return nil }
        defer { _ = sd_bus_message_unref(answer) }
        // Exactly the reply's signature (the Secret Service API's), as GDBus checks it for the full program.
        guard let signature = sd_bus_message_get_signature(answer, 1),
              UnsafeBufferPointer(start: signature, count: strlen(signature)).elementsEqual(replySignature.utf8.map { CChar(bitPattern: $0) })
        else { return nil }
        return read(answer)
    }

    /// Appends a string-like value (`s`, `o`) to `message`.
    func append(_ message: OpaquePointer, _ type: Unicode.Scalar, _ value: String) -> Bool {
        value.withCString { sd_bus_message_append_basic(message, CChar(truncatingIfNeeded: type.value), $0) } >= 0
    }

    /// Opens a container of `type` (`a`, `e`, `v`) holding `contents`, fills it with `body`, closes it.
    func container(_ message: OpaquePointer, _ type: Unicode.Scalar, _ contents: String, _ body: () -> Bool) -> Bool {
        sd_bus_message_open_container(message, CChar(truncatingIfNeeded: type.value), contents) >= 0 && body()
            && sd_bus_message_close_container(message) >= 0
    }

    /// `body` inside the next container of `type` (`r`, `v`, `a`) holding `contents`; nil when the
    /// reply does not hold one there.
    func entered<T>(_ message: OpaquePointer, _ type: Unicode.Scalar, _ contents: String, _ body: () -> T) -> T? {
        guard sd_bus_message_enter_container(message, CChar(truncatingIfNeeded: type.value), contents) > 0 else { return nil }
        let value = body()
        return sd_bus_message_exit_container(message) >= 0 ? value : nil
    }

    /// The next value of a string-like `type` (`s`, `o`), copied; nil when the next is another.
    func string(_ message: OpaquePointer, _ type: Unicode.Scalar) -> String? {
        var text: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(truncatingIfNeeded: type.value), &text) > 0, let text else { return nil }
        return String(cString: text)
    }

    /// The next `ay`, as bytes inside the message (valid while it is); nil when the next is another.
    func bytes(_ message: OpaquePointer) -> UnsafeRawBufferPointer? {
        var base: UnsafeRawPointer?
        var size = 0
        guard sd_bus_message_read_array(message, CChar(truncatingIfNeeded: UInt8(ascii: "y")), &base, &size) >= 0 else { return nil }
        return UnsafeRawBufferPointer(start: base, count: size)
    }
}
