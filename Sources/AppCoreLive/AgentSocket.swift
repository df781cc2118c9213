import AppCore
import FoundationEssentials
import QuickToken
#if canImport(Glibc)
import Glibc
#endif

/// The agent's Unix socket, both ends (docs/ARCHITECTURE.md "Tokens across the machine's edge"):
/// one request, one answer per connection (``AgentRequest``). The agent's socket is made 0600 in a
/// directory that is the user's own and 0700, and takes peers of its own user only (`SO_PEERCRED`);
/// the remote's client connects by `AgentConnection`'s rules (QuickToken, shared with the launcher)
/// and turns each of its refusals into the one named ``AgentSocket/unreachable(_:)`` failure.
public enum AgentSocket {
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
            let probe = AgentConnection.connectSocket(path)
            if probe >= 0 { close(probe); throw refuse("another agent is serving it") }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw refuse("no socket (errno \(errno))") }
        let previous = umask(0o177)
        let bound = AgentConnection.withAddress(path) { bind(fd, $0, $1) }
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
                guard let credentials = AgentConnection.peerCredentials(connection) else { close(connection); continue }
                let peer = AgentService.Peer(pid: credentials.pid, uid: credentials.uid)
                guard credentials.uid == geteuid() else { close(connection); refused(peer); continue }
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                Task.detached {
                    guard let request = AgentConnection.readAll(connection, limit: AgentRequest.maximumSize + 1) else {
                        close(connection)
                        return
                    }
                    let reply = await answer(request, peer)
                    AgentConnection.writeAll(connection, reply)
                    close(connection)
                }
            }
        }
        thread.start()
    }

    // MARK: - the remote's end

    /// Sends `request` to the agent at `path` and returns its answer (``AgentConnection``'s rules).
    /// - Throws: ``AgentAnswer/Failure`` ``unreachable(_:)`` (no socket, not the user's, loose
    ///   permissions, refused, no answer), or what the answer cannot be read as.
    public static func ask(_ path: String, _ request: AgentRequest) throws(AgentAnswer.Failure) -> AgentAnswer {
        switch AgentConnection.exchange(path, Array(request.json.serialized())) {
        case .success(let bytes): return try AgentAnswer.parse(bytes)
        case .failure(let unreachable): throw Self.unreachable(unreachable.reason)
        }
    }
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
