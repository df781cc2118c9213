#if canImport(Glibc)
import Glibc
#endif

/// The remote's end of `authdeck agent`'s socket (`AUTHDECK_AGENT_SOCK`), Foundation-free: the
/// one set of rules the launcher (a plain `authdeck token`) and the full program (`AgentSocket.ask`,
/// AppCoreLive) both connect by. A socket that is not the user's own or lets anyone else in (`lstat`:
/// sshd makes forwarded sockets 0600, `StreamLocalBindMask` 0177) is refused, as is a peer of another
/// uid (`SO_PEERCRED`); the connection is made within ``connectTimeout`` ms (a missing or dead agent
/// fails at once), and an empty answer (ssh closes its side of a forward whose agent is gone) is an
/// error: never a fall-back to a stale token.
public enum AgentConnection {
    /// How long a client waits for the agent to accept, in ms.
    public static let connectTimeout: Int32 = 1000
    /// How long a client waits for an answer, in s: a `--confirm` question's bound plus a margin.
    public static let answerTimeout = 90

    /// `request` sent on the socket at `path` and the answer's bytes.
    /// - Returns: the answer, or why there is none (the words after "not reachable: ").
    public static func exchange(_ path: String, _ request: [UInt8]) -> Result<[UInt8], Unreachable> {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .failure(.init("there is no socket at \(path)")) }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return .failure(.init("\(path) is not a socket")) }
        guard info.st_uid == geteuid() else { return .failure(.init("the socket \(path) belongs to another user")) }
        guard info.st_mode & 0o077 == 0 else {
            return .failure(.init("the socket \(path) can be used by others (mode \(String(info.st_mode & 0o777, radix: 8)); it must be 0600)"))
        }
        let fd = connectSocket(path)
        guard fd >= 0 else { return .failure(.init("nothing answers at \(path) (the agent has ended)")) }
        defer { close(fd) }
        guard let peer = peerCredentials(fd), peer.uid == geteuid() else {
            return .failure(.init("the process serving \(path) runs as another user"))
        }
        var timeout = timeval(tv_sec: answerTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        writeAll(fd, request)
        shutdown(fd, Int32(SHUT_WR))
        guard let bytes = readAll(fd, limit: 1 << 20), !bytes.isEmpty else {
            return .failure(.init("the agent closed the connection without an answer"))
        }
        return .success(bytes)
    }

    /// Why the agent cannot be asked.
    public struct Unreachable: Error, Equatable {
        public var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// `struct ucred` (socket(7), `SO_PEERCRED`), which Glibc's module shows only under
    /// `_GNU_SOURCE`: three 32-bit fields in this order.
    public struct PeerCredentials: Sendable {
        public var pid: Int32 = 0
        public var uid: UInt32 = 0
        public var gid: UInt32 = 0
    }

    /// The peer of a connected Unix socket, as the kernel says.
    public static func peerCredentials(_ fd: Int32) -> PeerCredentials? {
        var credentials = PeerCredentials()
        var size = socklen_t(MemoryLayout<PeerCredentials>.size)
        return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 ? credentials : nil
    }

    /// A connected descriptor, or -1: a non-blocking connect given ``connectTimeout`` ms.
    public static func connectSocket(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var result = withAddress(path) { connect(fd, $0, $1) }
        if result != 0 && (errno == EINPROGRESS || errno == EAGAIN) {
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            if poll(&poller, 1, connectTimeout) == 1, getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0, error == 0 { result = 0 }
        }
        guard result == 0 else { close(fd); return -1 }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// `body` with `path` as a `sockaddr_un` (-1 and `ENAMETOOLONG` when it does not fit).
    public static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { errno = ENAMETOOLONG; return -1 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Everything until the end (nil: an error, a timeout, or more than `limit` bytes).
    public static func readAll(_ fd: Int32, limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 { if errno == EINTR { continue }; return nil }
            bytes.append(contentsOf: buffer[..<count])
            if bytes.count > limit { return nil }
        }
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 { if errno == EINTR { continue }; return }
            offset += count
        }
    }
}
