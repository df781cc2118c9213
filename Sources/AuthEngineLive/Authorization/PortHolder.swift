import AuthEngine
import FoundationEssentials
import Glibc

/// Who listens on a loopback TCP port, for the message that a redirect port is in use.
///
/// Linux only, best effort: the listening socket's inode from `/proc/net/tcp` and
/// `/proc/net/tcp6` (state `0A`, LISTEN), then the process whose `/proc/PID/fd` holds
/// `socket:[INODE]` — found for this user's processes (another user's descriptors are not
/// readable), so a socket of another user is named by that fact alone.
enum PortHolder {
    /// `"pid 4242 (python3)"`, `"a process of another user"`, or nil when nothing listens or `/proc` says nothing (`ownPID`: this process).
    static func describe(port: UInt16, ownPID: Int32 = getpid()) -> String? {
        let inodes = listeningInodes(port: port)
        guard !inodes.isEmpty else { return nil }
        let targets = Set(inodes.map { "socket:[\($0)]" })
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        // A socket this process inherited is held by the one that made it too: that one is named (it does
        // not come first in /proc's order once process ids wrap); this process only if no other holds it.
        let own = String(ownPID)
        var ownHolds = false
        for pid in processes where !pid.isEmpty && pid.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            let fdDirectory = "/proc/\(pid)/fd"
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { continue }
            for descriptor in descriptors {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(descriptor)"),
                      targets.contains(target) else { continue }
                if pid == own { ownHolds = true; break }
                return "pid \(pid) (\(processName(pid)))"
            }
        }
        return ownHolds ? "pid \(own) (\(processName(own)))" : "a process of another user"
    }

    /// The inodes of sockets listening on `port` (any local address), from the kernel's tables.
    static func listeningInodes(port: UInt16) -> [String] {
        let wanted = String(port, radix: 16, uppercase: true)
        var inodes: [String] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let data = readWhole(table) else { continue }
            // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …"
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, fields[3] == "0A", let local = fields[1].split(separator: ":").last else { continue }
                let localPort = local.drop { $0 == "0" }
                if localPort.elementsEqual(wanted) { inodes.append(String(fields[9])) }
            }
        }
        return inodes
    }

    /// `/proc/PID/comm` with anything but visible ASCII replaced (a process chooses its own name).
    private static func processName(_ pid: String) -> String {
        guard let data = readWhole("/proc/\(pid)/comm") else { return "?" }
        let name = data.prefix { $0 != UInt8(ascii: "\n") }.map { (0x21...0x7E).contains($0) ? Character(UnicodeScalar($0)) : "?" }
        return name.isEmpty ? "?" : String(name)
    }

    /// The local user on the other end of the accepted loopback connection `descriptor`: its
    /// socket's line in the kernel's table (local address = our peer, remote = our end) holds
    /// the owner's uid.
    static func peer(of descriptor: Int32) -> RedirectPeer {
        guard let ours = address(of: descriptor, peer: false), let theirs = address(of: descriptor, peer: true) else { return .unknown }
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let data = readWhole(table) else { continue }
            if let uid = owner(in: String(decoding: data, as: UTF8.self), local: theirs, remote: ours) {
                return uid == getuid() ? .sameUser : .otherUser
            }
        }
        return .unknown
    }

    /// The uid column of the line whose local and remote addresses are the given ones
    /// (`/proc/net/tcp` form: hex, an IPv4 address as the kernel stores it, then `:PORT`).
    static func owner(in table: String, local: String, remote: String) -> uid_t? {
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, fields[1] == local, fields[2] == remote else { continue }
            return uid_t(fields[7])
        }
        return nil
    }

    /// A socket's own (`peer` false) or other end as `/proc/net/tcp` writes it: `0100007F:1F90`.
    static func address(of descriptor: Int32, peer: Bool) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(descriptor, $0, &length) : getsockname(descriptor, $0, &length)
            }
        }
        guard named == 0 else { return nil }
        func hex(_ value: UInt32, width: Int) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }
            // The kernel prints the 32-bit address as a host-order number of the network-order bytes.
            return hex(address.sin_addr.s_addr, width: 8) + ":" + hex(UInt32(UInt16(bigEndian: address.sin_port)), width: 4)
        case AF_INET6:
            let address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }
            let words = withUnsafeBytes(of: address.sin6_addr) { raw in (0..<4).map { raw.load(fromByteOffset: $0 * 4, as: UInt32.self) } }
            return words.map { hex($0, width: 8) }.joined() + ":" + hex(UInt32(UInt16(bigEndian: address.sin6_port)), width: 4)
        default:
            return nil
        }
    }

    /// A `/proc` file to its end: it says its size is 0, and one read returns a page of it.
    static func readWhole(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk.prefix(count)
        }
        return bytes
    }
}
