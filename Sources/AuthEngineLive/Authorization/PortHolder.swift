import FoundationEssentials
import Glibc

/// Who listens on a loopback TCP port, for the message that a redirect port is in use.
///
/// Linux only, best effort: the listening socket's inode from `/proc/net/tcp` and
/// `/proc/net/tcp6` (state `0A`, LISTEN), then the process whose `/proc/PID/fd` holds
/// `socket:[INODE]` — found for this user's processes (another user's descriptors are not
/// readable), so a socket of another user is named by that fact alone.
enum PortHolder {
    /// `"pid 4242 (python3)"`, `"a process of another user"`, or nil when nothing listens or `/proc` says nothing.
    static func describe(port: UInt16) -> String? {
        let inodes = listeningInodes(port: port)
        guard !inodes.isEmpty else { return nil }
        let targets = Set(inodes.map { "socket:[\($0)]" })
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in processes where !pid.isEmpty && pid.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            let fdDirectory = "/proc/\(pid)/fd"
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { continue }
            for descriptor in descriptors {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(descriptor)"),
                      targets.contains(target) else { continue }
                return "pid \(pid) (\(processName(pid)))"
            }
        }
        return "a process of another user"
    }

    /// The inodes of sockets listening on `port` (any local address), from the kernel's tables.
    static func listeningInodes(port: UInt16) -> [String] {
        let wanted = String(port, radix: 16, uppercase: true)
        var inodes: [String] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let data = FileManager.default.contents(atPath: table) else { continue }
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
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/comm") else { return "?" }
        let name = data.prefix { $0 != UInt8(ascii: "\n") }.map { (0x21...0x7E).contains($0) ? Character(UnicodeScalar($0)) : "?" }
        return name.isEmpty ? "?" : String(name)
    }
}
