import AppCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The agent's Unix socket, both ends (docs/ARCHITECTURE.md "Tokens across the machine's edge"):
/// one request, one answer per connection (``AgentRequest``). The agent's socket is made 0600 in a
/// directory that is the user's own and 0700, and takes peers of its own user only (`SO_PEERCRED`);
/// the remote's client connects only to a socket that is the user's own with no permission for
/// anyone else (`lstat`: sshd makes forwarded sockets with `StreamLocalBindMask` 0177), gives up on
/// a connection not made within 1 s, and takes an empty answer (the agent gone: ssh's side of the
/// forward closes at once) as the named ``AgentSocket/unreachable(_:)`` failure, never a stale token.
public enum AgentSocket {
    /// How long a client waits for the agent to accept (a missing or dead agent: at once).
    public static let connectTimeout: Int32 = 1000
    /// How long a client waits for an answer: a `--confirm` question's bound plus a margin.
    public static let answerTimeout: Int = 90

    /// The agent is not there: the one error of a missing, dead or unsafe socket.
    public static func unreachable(_ why: String) -> AgentAnswer.Failure {
        AgentAnswer.Failure(.failed, "The authdeck agent at $AUTHDECK_AGENT_SOCK is not reachable: \(why)",
                            nextStep: "Start it on your machine ('authdeck ssh HOST', or 'authdeck agent --socket PATH'),"
                                + " or unset AUTHDECK_AGENT_SOCK.")
    }

    // MARK: - the agent's end

    /// Binds and listens on `path`: its directory is made 0700 when missing and must be the user's
    /// own and 0700; a socket left by an agent that is gone is replaced; anything else at `path` is refused.
    /// - Returns: the listening descriptor.
    /// - Throws: ``AppError`` `.usage` naming the path and what is wrong.
    public static func listen(at path: String) throws(AppError) -> Int32 {
        func refuse(_ what: String) -> AppError {
            AppError(title: "The agent's socket \(path) cannot be used", detail: what, disposition: .usage,
                     nextStep: "Choose a path in a directory only you can use (mode 0700), e.g. under $XDG_RUNTIME_DIR.")
        }
        let directory = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[..<$0]) } ?? "."
        guard path.utf8.count < 108 else { throw refuse("the path is longer than a Unix socket address takes (107 bytes)") }
        if mkdir(directory.isEmpty ? "/" : directory, 0o700) != 0 && errno != EEXIST { throw refuse("its directory cannot be made (errno \(errno))") }
        var info = stat()
        guard lstat(directory.isEmpty ? "/" : directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw refuse("its directory is not a directory")
        }
        guard info.st_uid == geteuid() else { throw refuse("its directory belongs to another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw refuse("its directory can be used by others (mode \(String(info.st_mode & 0o777, radix: 8)); make it 0700)")
        }
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == geteuid() else { throw refuse("something else is there") }
            let probe = connectSocket(path)
            if probe >= 0 { close(probe); throw refuse("another agent is serving it") }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw refuse("no socket (errno \(errno))") }
        let previous = umask(0o177)
        let bound = withAddress(path) { bind(fd, $0, $1) }
        umask(previous)
        guard bound == 0, chmod(path, 0o600) == 0, Glibc.listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw refuse("bind or listen failed (errno \(code))")
        }
        return fd
    }

    /// Accepts connections on `fd` until it is closed, each answered on a task of its own:
    /// a peer of another user is closed unanswered (and `refused` tells why); the request is read
    /// to its end (at most ``AgentRequest/maximumSize`` bytes, 5 s) and `answer` writes the reply.
    public static func serve(_ fd: Int32, refused: @escaping @Sendable (AgentService.Peer) -> Void,
                             answer: @escaping @Sendable ([UInt8], AgentService.Peer) async -> [UInt8]) {
        let thread = AcceptLoop {
            while true {
                let connection = accept(fd, nil, nil)
                if connection < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                var credentials = PeerCredentials()
                var size = socklen_t(MemoryLayout<PeerCredentials>.size)
                guard getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { close(connection); continue }
                let peer = AgentService.Peer(pid: credentials.pid, uid: credentials.uid)
                guard credentials.uid == geteuid() else { close(connection); refused(peer); continue }
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                Task.detached {
                    guard let request = readAll(connection, limit: AgentRequest.maximumSize + 1) else { close(connection); return }
                    let reply = await answer(request, peer)
                    writeAll(connection, reply)
                    close(connection)
                }
            }
        }
        thread.start()
    }

    // MARK: - the remote's end

    /// Sends `request` to the agent at `path` and returns its answer.
    /// - Throws: ``AgentAnswer/Failure`` ``unreachable(_:)`` (no socket, not the user's, loose
    ///   permissions, refused, no answer), or what the answer cannot be read as.
    public static func ask(_ path: String, _ request: AgentRequest) throws(AgentAnswer.Failure) -> AgentAnswer {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw unreachable("there is no socket at \(path)") }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw unreachable("\(path) is not a socket") }
        guard info.st_uid == geteuid() else { throw unreachable("the socket \(path) belongs to another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw unreachable("the socket \(path) can be used by others (mode \(String(info.st_mode & 0o777, radix: 8)); it must be 0600)")
        }
        let fd = connectSocket(path)
        guard fd >= 0 else { throw unreachable("nothing answers at \(path) (the agent has ended)") }
        defer { close(fd) }
        var credentials = PeerCredentials()
        var size = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0, credentials.uid == geteuid() else {
            throw unreachable("the process serving \(path) runs as another user")
        }
        var timeout = timeval(tv_sec: answerTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        writeAll(fd, Array(request.json.serialized()))
        shutdown(fd, Int32(SHUT_WR))
        guard let bytes = readAll(fd, limit: 1 << 20), !bytes.isEmpty else { throw unreachable("the agent closed the connection without an answer") }
        return try AgentAnswer.parse(bytes)
    }

    // MARK: - bytes

    /// A connected descriptor, or -1: a non-blocking connect given ``connectTimeout`` ms.
    static func connectSocket(_ path: String) -> Int32 {
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

    static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
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
    static func readAll(_ fd: Int32, limit: Int) -> [UInt8]? {
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

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 { if errno == EINTR { continue }; return }
            offset += count
        }
    }
}

/// `struct ucred` (socket(7), `SO_PEERCRED`), which Glibc's module shows only under `_GNU_SOURCE`:
/// three 32-bit fields in this order.
struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// The accept loop's own thread (a blocking `accept` never on the cooperative pool).
private final class AcceptLoop: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    func start() {
        let work = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { raw in
            Unmanaged<AcceptLoop>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, work) == 0 else {
            Unmanaged<AcceptLoop>.fromOpaque(work).release()
            return
        }
        pthread_detach(thread)
    }
}
