import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 with nothing listening now, for a fixture that must be told its port or a
/// test that needs a closed one. Picked below the kernel's ephemeral range
/// (`/proc/sys/net/ipv4/ip_local_port_range`), so no other process is handed it for an outgoing
/// connection or a `bind` to port 0 between the pick and its use (one from port 0 was, under load).
public enum FreePort {
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public static func loopback() throws -> Int {
        let ephemeralStart = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) } } ?? 32768
        let low = 20000, high = max(low + 1000, ephemeralStart)
        for _ in 0..<200 {
            let port = Int.random(in: low..<high)
            if try bindable(port) { return port }
        }
        throw Unavailable(description: "no free port on 127.0.0.1 in \(low)..<\(high) after 200 tries")
    }

    /// Whether 127.0.0.1:`port` can be bound now (then released).
    static func bindable(_ port: Int) throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Unavailable(description: "socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = INADDR_LOOPBACK.bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 }
        }
    }
}
