import AuthEngine
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Why the loopback listener stopped without a callback.
public enum LoopbackListenerError: Error, Sendable, Equatable {
    /// No socket could be bound on the loopback address; `detail` is the system error text.
    case bindFailed(detail: String)
    /// The port asked for (a client registered with an exact redirect URI) is in use on the
    /// loopback address; `holder` names the process that listens there when it can be known
    /// (``PortHolder/describe(port:)``). Never answered with another port: a provider that
    /// compares redirect URIs exactly refuses any other.
    case portBusy(port: UInt16, holder: String?)
    /// No request was accepted within the timeout (seconds). The listener is closed.
    case timedOut(seconds: Double)
    /// The waiting Task was cancelled or ``LoopbackRedirectListener/close()`` was called. The
    /// listener is closed.
    case cancelled
    /// `waitForCallback` was called on a listener that is already waiting, finished or closed.
    case notListening
}

/// The loopback redirect listener of RFC 8252 §7.3 (native apps, loopback interface redirection).
///
/// - Binds the literal `127.0.0.1` on an ephemeral port (or `[::1]`; by default it falls back to
///   `[::1]` only when IPv4 cannot be bound). Never any other address; `SO_REUSEADDR` only on an
///   exact port (Linux still refuses a port another socket listens on).
/// - ``redirectURI`` is `http://127.0.0.1:PORT/callback` (or `http://[::1]:PORT/callback`).
/// - ``waitForCallback(timeout:decide:)`` accepts HTTP/1.x requests, turns each into a
///   ``RedirectCallback`` (query of a GET, `application/x-www-form-urlencoded` body of a POST for
///   `response_mode=form_post`), and asks `decide`: `.ignore` answers 404 and keeps waiting,
///   `.finish(page:)` answers the page and closes the listener.
/// - A request whose `Host` is not the bound literal and port (`127.0.0.1:PORT`, `[::1]:PORT`)
///   is answered 400 without reaching `decide`, and the listener keeps waiting: a web page that
///   rebinds its own DNS name to 127.0.0.1 cannot deliver a callback (ARES-13).
/// - With ``decideRedirectCallback(_:pending:metadata:)`` as `decide`, an authorization
///   response with a wrong or missing `state` finishes (failure page, the caller's
///   `validateAuthorizationResponse` then throws `.stateMismatch`); `/favicon.ico` and other
///   paths are answered 404 and the listener keeps waiting.
/// - Requests are bounded (64 KiB) and each connection has a read timeout, so idle browser
///   pre-connections or a silent client cannot hold it up. Several connections are served at once.
/// - Nothing is logged: browsers send the provider's cookies to this port.
public final class LoopbackRedirectListener: Sendable {
    /// Which loopback address to bind.
    public enum AddressFamily: Sendable, Equatable {
        /// `127.0.0.1`, falling back to `[::1]` if IPv4 cannot be bound.
        case automatic
        /// Only `127.0.0.1`.
        case ipv4
        /// Only `[::1]` (IPv6-only socket).
        case ipv6
    }

    /// The redirect URI to register in the authorization request (`redirect_uri`).
    public let redirectURI: URL
    /// The bound port (host byte order).
    public let port: UInt16
    /// The bound address as text: `127.0.0.1` or `::1` (from `getsockname`).
    public let boundAddress: String
    /// The path of ``redirectURI`` (`/callback` by default).
    public let path: String

    /// Largest accepted request (request line, headers and body), in bytes.
    public static let maximumRequestBytes = 64 * 1024
    /// Most connections held open at once.
    static let maximumConnections = 16

    private let connectionReadTimeout: Double
    private let state: Mutex<State>

    private struct State {
        var listenDescriptor: Int32
        var wakeRead: Int32
        var wakeWrite: Int32
        var phase: Phase
    }

    private enum Phase { case ready, waiting, closed }

    /// Binds the listener. `path` must start with `/`. `connectionReadTimeout` (seconds) bounds
    /// how long one connection may take to send its whole request. Throws `.bindFailed`.
    /// - Parameter port: the port to bind, exactly (a client registered with an exact redirect
    ///   URI, port included: `.portBusy` when it is taken); 0 (the default): an ephemeral port.
    public init(path: String = "/callback", addressFamily: AddressFamily = .automatic, connectionReadTimeout: Double = 5, port: UInt16 = 0)
        throws(LoopbackListenerError)
    {
        precondition(path.hasPrefix("/"), "the redirect path must start with /")
        let bound: (descriptor: Int32, port: UInt16, address: String)
        switch addressFamily {
        case .ipv4:
            bound = try Self.bind(ipv6: false, port: port)
        case .ipv6:
            bound = try Self.bind(ipv6: true, port: port)
        case .automatic:
            do {
                bound = try Self.bind(ipv6: false, port: port)
            } catch .portBusy(let port, let holder) {
                // The registered URI names 127.0.0.1: [::1] on the same port is another URI.
                throw .portBusy(port: port, holder: holder)
            } catch {
                bound = try Self.bind(ipv6: true, port: port)
            }
        }
        var pipeDescriptors: [Int32] = [-1, -1]
        guard pipe(&pipeDescriptors) == 0 else {
            let detail = Self.errorText(errno)
            _ = Glibc.close(bound.descriptor)
            throw .bindFailed(detail: "pipe: \(detail)")
        }
        for descriptor in pipeDescriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
        }
        self.port = bound.port
        self.boundAddress = bound.address
        self.path = path
        self.connectionReadTimeout = connectionReadTimeout
        let host = bound.address.contains(":") ? "[\(bound.address)]" : bound.address
        self.redirectURI = URL(string: "http://\(host):\(bound.port)\(path)")!
        self.state = Mutex(State(listenDescriptor: bound.descriptor, wakeRead: pipeDescriptors[0], wakeWrite: pipeDescriptors[1], phase: .ready))
    }

    deinit {
        state.withLock { state in
            Self.closeAll(&state)
        }
    }

    /// Waits for the callback: serves requests until `decide` returns `.finish` for one, then
    /// answers it with the page, closes the listener and returns that request.
    ///
    /// - Parameters:
    ///   - timeout: seconds until `.timedOut` (the listener is then closed).
    ///   - decide: called for each complete request, on a background thread.
    /// - Throws: `.timedOut`, `.cancelled` (Task cancelled or ``close()``), `.notListening`.
    public func waitForCallback(
        timeout: Double,
        decide: @escaping @Sendable (RedirectCallback) -> RedirectCallbackVerdict
    ) async throws(LoopbackListenerError) -> RedirectCallback {
        let descriptors: (listen: Int32, wake: Int32)? = state.withLock { state in
            guard state.phase == .ready else { return nil }
            state.phase = .waiting
            return (state.listenDescriptor, state.wakeRead)
        }
        guard let descriptors else { throw .notListening }
        let result: Result<RedirectCallback, LoopbackListenerError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                DedicatedThread.run(name: "authdeck.loopback-listener") {
                    let server = CallbackServer(
                        listenDescriptor: descriptors.listen, wakeDescriptor: descriptors.wake,
                        connectionReadTimeout: self.connectionReadTimeout, acceptedHosts: self.acceptedHosts, decide: decide
                    )
                    let outcome = server.run(timeout: timeout)
                    self.state.withLock { state in
                        Self.closeAll(&state)
                    }
                    continuation.resume(returning: outcome)
                }
            }
        } onCancel: {
            self.close()
        }
        return try result.get()
    }

    /// Stops the listener: a pending ``waitForCallback(timeout:decide:)`` throws `.cancelled`;
    /// if none is pending, the socket is closed at once. Idempotent.
    public func close() {
        state.withLock { state in
            switch state.phase {
            case .waiting:
                var byte: UInt8 = 1
                _ = write(state.wakeWrite, &byte, 1)
            case .ready:
                Self.closeAll(&state)
            case .closed:
                break
            }
        }
    }

    private static func closeAll(_ state: inout State) {
        guard state.phase != .closed else { return }
        for descriptor in [state.listenDescriptor, state.wakeRead, state.wakeWrite] where descriptor >= 0 {
            _ = Glibc.close(descriptor)
        }
        state.listenDescriptor = -1
        state.wakeRead = -1
        state.wakeWrite = -1
        state.phase = .closed
    }

    /// The `Host` values a request may carry: the bound literal with the port (RFC 9110 §7.2).
    var acceptedHosts: [String] {
        let host = boundAddress.contains(":") ? "[\(boundAddress)]" : boundAddress
        return ["\(host):\(port)"]
    }

    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: strlen(text)), as: UTF8.self)
    }

    /// Binds the loopback literal on `port` (0: ephemeral) and listens. Returns the socket, port and
    /// address. A port in use is `.portBusy`, with its holder when it can be known.
    private static func bind(ipv6: Bool, port requested: UInt16) throws(LoopbackListenerError) -> (descriptor: Int32, port: UInt16, address: String) {
        let family = ipv6 ? AF_INET6 : AF_INET
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .bindFailed(detail: "socket: \(errorText(errno))") }
        func fail(_ step: String) -> LoopbackListenerError {
            let error = LoopbackListenerError.bindFailed(detail: "\(step) \(ipv6 ? "[::1]" : "127.0.0.1"): \(errorText(errno))")
            _ = Glibc.close(descriptor)
            return error
        }
        // An exact port is bound again right after an earlier listener served a redirect on it
        // (its connections wait in TIME_WAIT for a minute): SO_REUSEADDR, which on Linux still
        // refuses a port another socket listens on (EADDRINUSE: `.portBusy`).
        if requested != 0 {
            var on: Int32 = 1
            guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw fail("setsockopt SO_REUSEADDR")
            }
        }
        var storage = sockaddr_storage()
        var length: socklen_t
        if ipv6 {
            var only: Int32 = 1
            guard setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &only, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw fail("setsockopt IPV6_V6ONLY")
            }
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = requested.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0[15] = 1 } // ::1
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeBytes(of: address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = requested.bigEndian
            address.sin_addr.s_addr = INADDR_LOOPBACK.bigEndian
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeBytes(of: address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            if errno == EADDRINUSE, requested != 0 {
                _ = Glibc.close(descriptor)
                throw .portBusy(port: requested, holder: PortHolder.describe(port: requested))
            }
            throw fail("bind")
        }
        guard listen(descriptor, Int32(maximumConnections)) == 0 else { throw fail("listen") }
        _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)

        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
        }
        guard named == 0 else { throw fail("getsockname") }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let port: UInt16
        if ipv6 {
            var address = withUnsafeBytes(of: actual) { $0.load(as: sockaddr_in6.self) }
            port = UInt16(bigEndian: address.sin6_port)
            inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
        } else {
            var address = withUnsafeBytes(of: actual) { $0.load(as: sockaddr_in.self) }
            port = UInt16(bigEndian: address.sin_port)
            inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
        }
        let address = String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (descriptor, port, address)
    }
}

/// The poll loop of one `waitForCallback`, on a thread of its own. Owns the accepted connections;
/// the listening socket and wake pipe are closed by the listener afterwards.
private struct CallbackServer {
    let listenDescriptor: Int32
    let wakeDescriptor: Int32
    let connectionReadTimeout: Double
    let acceptedHosts: [String]
    let decide: @Sendable (RedirectCallback) -> RedirectCallbackVerdict

    final class Connection {
        let descriptor: Int32
        let deadline: UInt64
        var buffer = [UInt8]()
        init(descriptor: Int32, deadline: UInt64) {
            self.descriptor = descriptor
            self.deadline = deadline
        }
    }

    func run(timeout: Double) -> Result<RedirectCallback, LoopbackListenerError> {
        let deadline = Self.now() + Self.nanoseconds(timeout)
        var connections: [Connection] = []
        defer { for connection in connections { _ = close(connection.descriptor) } }

        while true {
            let now = Self.now()
            guard now < deadline else { return .failure(.timedOut(seconds: timeout)) }
            // Drop connections that took too long to send their request.
            connections.removeAll { connection in
                guard connection.deadline <= now else { return false }
                Self.respond(connection.descriptor, status: "408 Request Timeout", html: nil)
                _ = close(connection.descriptor)
                return true
            }
            let wait = connections.reduce(deadline) { min($0, $1.deadline) } - now
            var descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
            let accepting = connections.count < LoopbackRedirectListener.maximumConnections
            descriptors.append(pollfd(fd: accepting ? listenDescriptor : -1, events: Int16(POLLIN), revents: 0))
            descriptors += connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            let milliseconds = Int32(clamping: max(1, (wait + 999_999) / 1_000_000))
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failure(.cancelled)
            }
            if descriptors[0].revents != 0 { return .failure(.cancelled) }
            if accepting, descriptors[1].revents & Int16(POLLIN) != 0 {
                let accepted = accept(listenDescriptor, nil, nil)
                if accepted >= 0 {
                    _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                    var sendTimeout = timeval(tv_sec: 2, tv_usec: 0)
                    _ = setsockopt(accepted, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
                    connections.append(Connection(descriptor: accepted, deadline: Self.now() + Self.nanoseconds(connectionReadTimeout)))
                }
            }
            var finished: RedirectCallback?
            var closed = Set<Int32>()
            // Only the connections that were polled (a just-accepted one waits for the next round).
            for (index, connection) in connections.prefix(descriptors.count - 2).enumerated() where descriptors[index + 2].revents != 0 {
                switch serve(connection) {
                case .needMoreData:
                    continue
                case .closed:
                    closed.insert(connection.descriptor)
                case .finished(let callback):
                    closed.insert(connection.descriptor)
                    finished = callback
                }
                if finished != nil { break }
            }
            connections.removeAll { connection in
                guard closed.contains(connection.descriptor) else { return false }
                _ = close(connection.descriptor)
                return true
            }
            if let finished { return .success(finished) }
        }
    }

    enum ServeOutcome {
        case needMoreData
        case closed
        case finished(RedirectCallback)
    }

    /// Reads what is available; once a whole request is in, answers it.
    private func serve(_ connection: Connection) -> ServeOutcome {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = recv(connection.descriptor, &chunk, chunk.count, Int32(MSG_DONTWAIT))
        if count < 0 {
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .needMoreData : .closed
        }
        if count == 0 { return .closed }
        connection.buffer += chunk.prefix(count)
        guard connection.buffer.count <= LoopbackRedirectListener.maximumRequestBytes else {
            Self.respond(connection.descriptor, status: "413 Content Too Large", html: nil)
            return .closed
        }
        switch HTTPRequestParser.parse(connection.buffer) {
        case .incomplete:
            return .needMoreData
        case .invalid(let status):
            Self.respond(connection.descriptor, status: status, html: nil)
            return .closed
        case .complete(var callback, let host):
            if let host, !acceptedHosts.contains(where: { $0.equalsIgnoringASCIICase(host) }) {
                Self.respond(connection.descriptor, status: "400 Bad Request", html: nil)
                return .closed
            }
            callback.peer = PortHolder.peer(of: connection.descriptor)
            switch decide(callback) {
            case .ignore:
                Self.respond(connection.descriptor, status: "404 Not Found", html: nil)
                return .closed
            case .respond(let page):
                if case .redirect(let location) = page {
                    Self.respond(connection.descriptor, status: "303 See Other", html: RedirectPageHTML.render(page),
                                 location: location.absoluteString)
                } else {
                    Self.respond(connection.descriptor, status: "200 OK", html: RedirectPageHTML.render(page))
                }
                return .closed
            case .finish(let page):
                Self.respond(connection.descriptor, status: "200 OK", html: RedirectPageHTML.render(page))
                return .finished(callback)
            }
        }
    }

    /// Sends a complete response (best effort; a browser that went away is fine) with
    /// `Connection: close`; `location` (a 303's) must hold no CR or LF.
    static func respond(_ descriptor: Int32, status: String, html: String?, location: String? = nil) {
        let body = Array((html ?? "<!doctype html><title>\(status)</title>\n").utf8)
        let locationLines = location.map { value in value.utf8.contains { $0 < 0x20 } ? [] : ["Location: \(value)"] } ?? []
        let lines = ["HTTP/1.1 \(status)"] + locationLines + [
            "Content-Type: text/html; charset=utf-8",
            "Content-Length: \(body.count)",
            "Cache-Control: no-store",
            "Referrer-Policy: no-referrer",
            "X-Content-Type-Options: nosniff",
            "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'",
            "Connection: close",
            "", "",
        ]
        let bytes = Array(lines.joined(separator: "\r\n").utf8) + body
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if result <= 0 { break }
            sent += result
        }
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1e9) }
}
