#if canImport(Glibc)
import Glibc
#endif

/// The remote's end of `authdeck agent`'s socket (`AUTHDECK_AGENT_SOCK`), Foundation-free: the
/// one set of rules the launcher (a plain `authdeck token`) and the full program (`AgentSocket.ask`,
/// AppCoreLive) both connect by. A socket that is not the user's own or lets anyone else in (`lstat`:
/// sshd makes forwarded sockets 0600, `StreamLocalBindMask` 0177) is refused, as is a peer of another
/// uid (`SO_PEERCRED`); the connection is made within ``connectTimeout`` ms (a missing or dead agent
/// fails at once), the whole answer within ``answerDeadline`` ms, and an empty answer (ssh closes its side of a forward whose agent is gone) is an
/// error: never a fall-back to a stale token.
public enum AgentConnection {
    /// How long a client waits for the agent to accept, in ms.
    public static let connectTimeout: Int32 = 1000
    /// The longest `--confirm-timeout` an agent takes, in s (a longer one is refused when the agent starts).
    public static let maximumConfirmTimeout = 120
    /// How long a client waits for the whole answer, in ms (not per read: a dribbling agent does not
    /// hold it longer): the longest `--confirm` question plus 5 s. The agent does not tell its own
    /// bound (one request, one answer), so the client waits for the longest an agent may ask.
    public static let answerDeadline = (maximumConfirmTimeout + 5) * 1000

    /// The one title of "the agent cannot be asked" (the launcher and the full program say the same).
    public static func unreachableTitle(_ why: String) -> String {
        "The authdeck agent at $AUTHDECK_AGENT_SOCK is not reachable: \(why)"
    }

    /// Whether `token` can be printed as a token: visible ASCII only (RFC 6750 `b64token` is a
    /// subset), so an answer cannot put control characters on the terminal or a second line in a script.
    public static func isTokenText(_ token: String) -> Bool {
        !token.isEmpty && !token.utf8.contains { $0 < 0x21 || $0 > 0x7e }
    }

    /// Why a token that fails ``isTokenText(_:)`` is refused.
    public static let notTokenTextTitle = "The agent's answer holds a token with characters a token cannot have (control characters or spaces)"

    /// `request` sent on the socket at `path` and the answer's bytes, made once: within
    /// `deadline` ms for the whole answer.
    /// - Returns: the answer, or why there is none (the words after "not reachable: "), and whether the request was sent.
    public static func exchange(_ path: String, _ request: [UInt8], deadline: Int = answerDeadline) -> Result<[UInt8], Unreachable> {
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
        writeAll(fd, request)
        shutdown(fd, Int32(SHUT_WR))
        switch readAll(fd, limit: 1 << 20, within: deadline) {
        case .complete(let bytes) where !bytes.isEmpty: return .success(bytes)
        case .timedOut: return .failure(.init("the agent did not answer within \(seconds(deadline)) s", sent: true))
        default: return .failure(.init("the agent closed the connection without an answer", sent: true))
        }
    }

    static func seconds(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }

    /// Why the agent cannot be asked.
    public struct Unreachable: Error, Equatable {
        public var reason: String
        /// Whether the request was sent (then it must not be sent again: the agent may have acted on it).
        public var sent: Bool
        init(_ reason: String, sent: Bool = false) {
            self.reason = reason
            self.sent = sent
        }
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

    /// What ``readAll(_:limit:within:)`` got.
    public enum Reading: Equatable {
        /// Everything until the peer's end.
        case complete([UInt8])
        /// More than the limit: the first `limit + 1` bytes.
        case tooLong([UInt8])
        /// The deadline passed first.
        case timedOut
        /// A read error.
        case failed
    }

    /// Everything until the end, within `milliseconds` for the whole (a peer sending a byte now
    /// and then does not hold it longer), at most `limit` bytes.
    public static func readAll(_ fd: Int32, limit: Int, within milliseconds: Int) -> Reading {
        let deadline = monotonicMilliseconds() + Int64(milliseconds)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let left = deadline - monotonicMilliseconds()
            guard left > 0 else { return .timedOut }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, Int64(Int32.max))))
            if ready < 0 { if errno == EINTR { continue }; return .failed }
            if ready == 0 { return .timedOut }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 { return .complete(bytes) }
            // A peer that closed with our bytes unread resets: what it wrote before is still the whole of it.
            if count < 0 { if errno == EINTR || errno == EAGAIN { continue }; return errno == ECONNRESET ? .complete(bytes) : .failed }
            bytes.append(contentsOf: buffer[..<count])
            if bytes.count > limit { return .tooLong(Array(bytes.prefix(limit + 1))) }
        }
    }

    static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
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
