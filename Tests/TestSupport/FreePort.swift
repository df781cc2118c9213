import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 with nothing listening now: bound to port 0 (the kernel picks), read
/// back, released. For a fixture that must be told its port, or a test that needs a closed one.
public enum FreePort {
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public static func loopback() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Unavailable(description: "socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = INADDR_LOOPBACK.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw Unavailable(description: "bind to 127.0.0.1:0 failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
