import AppCore
import FoundationEssentials
import QuickToken
import Dispatch
import Synchronization
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
        AgentAnswer.Failure(.failed, AgentConnection.unreachableTitle(why),
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

    /// How the agent bounds its callers.
    public struct Limits: Sendable {
        /// The whole request must arrive within this, in ms (not per read: a byte now and then does not hold it).
        public var requestDeadline = 5000
        /// Connections in progress at once; one more is answered "busy" at once.
        public var connections = 32
        /// The wait after `accept` found no descriptor or memory (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`), in ms.
        public var backOff = 100
        public init() {}
    }

    /// Accepts connections on `fd` until it is closed, each served on a thread of its own (its
    /// blocking reads and writes never on the cooperative pool, so a slow caller holds only itself):
    /// a peer of another user is closed unanswered (and `refused` tells why); the request is read
    /// to its end (more than ``AgentRequest/maximumSize`` bytes: the first of them, which `answer`
    /// refuses) within ``Limits/requestDeadline``, and `answer` writes the reply. A descriptor
    /// shortage is waited out (``Limits/backOff``), never the end of the loop. `accept` is
    /// `accept(2)` (a test's seam).
    public static func serve(_ fd: Int32, limits: Limits = Limits(),
                             accept: @escaping @Sendable (Int32) -> Int32 = { Glibc.accept($0, nil, nil) },
                             refused: @escaping @Sendable (AgentService.Peer) -> Void,
                             answer: @escaping @Sendable ([UInt8], AgentService.Peer) async -> [UInt8]) {
        let inProgress = Mutex(0)
        OwnThread.start {
            while true {
                let connection = accept(fd)
                if connection < 0 {
                    let code = errno
                    if code == EINTR || code == ECONNABORTED || code == EPROTO { continue }
                    if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM { usleep(UInt32(limits.backOff) * 1000); continue }
                    return
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                guard let credentials = AgentConnection.peerCredentials(connection) else { close(connection); continue }
                let peer = AgentService.Peer(pid: credentials.pid, uid: credentials.uid)
                guard credentials.uid == geteuid() else { close(connection); refused(peer); continue }
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                guard inProgress.withLock({ count in count < limits.connections ? { count += 1; return true }() : false }) else {
                    let busy = AgentAnswer.Failure(.failed, "The agent is answering \(limits.connections) requests already",
                                                   nextStep: "Try again in a moment.")
                    AgentConnection.writeAll(connection, Array(AgentAnswer.failure(busy).json.serialized()))
                    close(connection)
                    continue
                }
                OwnThread.start {
                    defer { close(connection); inProgress.withLock { $0 -= 1 } }
                    let request: [UInt8]
                    switch AgentConnection.readAll(connection, limit: AgentRequest.maximumSize, within: limits.requestDeadline) {
                    case .complete(let bytes), .tooLong(let bytes): request = bytes
                    case .timedOut, .failed: return
                    }
                    let reply = Blocking.wait { await answer(request, peer) }
                    AgentConnection.writeAll(connection, reply)
                }
            }
        }
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

/// A thread of its own (blocking calls never on the cooperative pool).
enum OwnThread {
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread (`false`: none could be made, and `body` did not run).
    @discardableResult
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let work = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, work) == 0 else {
            Unmanaged<Body>.fromOpaque(work).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}

/// An async result waited for on a thread of its own (never call it on the cooperative pool).
public enum Blocking {
    final class Box<T: Sendable>: Sendable {
        let value = Mutex<T?>(nil)
    }

    public static func wait<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = Box<T>(), done = DispatchSemaphore(value: 0)
        Task {
            let value = await body()
            box.value.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.value.withLock { $0! }
    }

    /// `body` run on a thread of its own, its result awaited (a blocking call kept off the cooperative pool).
    public static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            if !OwnThread.start({ continuation.resume(returning: body()) }) { continuation.resume(returning: body()) }
        }
    }
}
