import AppCore
import AppCoreLive
import AuthEngine
import Foundation
import QuickToken
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `AgentSocket` and `AgentConnection` against slow, silent, dribbling and hostile peers, in this
/// process on real Unix sockets: no caller holds another, nothing waits unbounded, a request is sent once.
/// The tests' own blocking calls run on threads of their own (`Blocking.onOwnThread`), never the cooperative pool.
@Suite("Agent socket limits (AppCoreLive, QuickToken)")
struct AgentSocketLimitsTests {
    func socketPath() throws -> (directory: String, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-limits-\(UUID().uuidString.prefix(8))").path
        try #require(mkdir(directory, 0o700) == 0)
        return (directory, directory + "/agent.sock")
    }

    static let request = AgentRequest(operation: .token, command: "token", host: "h")
    static let token = AgentAnswer.token(.init(account: "op/alice", token: AccessToken("at-1"), tokenType: "Bearer", expiresAt: nil))

    /// An agent answering `token` to every request (after `delay`).
    func agent(_ path: String, limits: AgentSocket.Limits = .init(), delay: Duration = .zero,
               accept: (@Sendable (Int32) -> Int32)? = nil) throws -> Int32 {
        let fd = try AgentSocket.listen(at: path)
        let answer: @Sendable ([UInt8], AgentService.Peer) async -> [UInt8] = { bytes, _ in
            if delay > .zero { try? await Task.sleep(for: delay) }
            do throws(AgentAnswer.Failure) { _ = try AgentRequest.parse(bytes) } catch {
                return Array(AgentAnswer.failure(error).json.serialized())
            }
            return Array(Self.token.json.serialized())
        }
        if let accept {
            AgentSocket.serve(fd, limits: limits, accept: accept, refused: { _ in }, answer: answer)
        } else {
            AgentSocket.serve(fd, limits: limits, refused: { _ in }, answer: answer)
        }
        return fd
    }

    @Test("40 idle callers and one dribbling a byte at a time hold no one else: a request is answered at once; a dribbler is cut at the request's deadline")
    func slowCallersHoldNoOne() async throws {
        let (directory, path) = try socketPath()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        var limits = AgentSocket.Limits()
        limits.requestDeadline = 800
        limits.connections = 64
        let fd = try agent(path, limits: limits)
        defer { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
        let idle = (0..<40).map { _ in AgentConnection.connectSocket(path) }
        defer { idle.forEach { close($0) } }
        #expect(idle.allSatisfy { $0 >= 0 })
        let dribbler = AgentConnection.connectSocket(path)
        defer { close(dribbler) }
        let started = ContinuousClock.now
        let answer = try await Blocking.onOwnThread { Result { try AgentSocket.ask(path, Self.request) } }.get()
        #expect(answer == Self.token)
        #expect(ContinuousClock.now - started < .milliseconds(700), "a request waited behind idle callers")
        // A byte every 200 ms never completes the request: cut at 800 ms in all, not 800 ms per read.
        let cut = Date()
        let closed = await Blocking.onOwnThread {
            var closed = false
            for _ in 0..<15 where !closed {
                closed = send(dribbler, "{", 1, Int32(MSG_NOSIGNAL)) < 0
                if !closed {
                    var poller = pollfd(fd: dribbler, events: Int16(POLLIN), revents: 0)
                    closed = poll(&poller, 1, 200) == 1
                }
            }
            return closed
        }
        #expect(closed && Date().timeIntervalSince(cut) < 1.6, "the dribbler held its connection \(Date().timeIntervalSince(cut)) s")
    }

    @Test("More connections than the cap: the next is answered 'busy' at once, by name")
    func connectionCap() async throws {
        let (directory, path) = try socketPath()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        var limits = AgentSocket.Limits()
        limits.connections = 2
        let fd = try agent(path, limits: limits)
        defer { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
        let idle = (0..<2).map { _ in AgentConnection.connectSocket(path) }
        defer { idle.forEach { close($0) } }
        try await Task.sleep(for: .milliseconds(100))
        let answer = try await Blocking.onOwnThread { Result { try AgentSocket.ask(path, Self.request) } }.get()
        guard case .failure(let busy) = answer else { Issue.record("\(answer)"); return }
        #expect(busy.title.contains("answering 2 requests already"), "\(busy)")
    }

    @Test("accept failing with EMFILE and ENFILE is waited out: the agent answers after it")
    func descriptorShortageKeepsServing() async throws {
        let (directory, path) = try socketPath()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let failures = Mutex([EMFILE, ENFILE, EMFILE])
        var limits = AgentSocket.Limits()
        limits.backOff = 10
        let fd = try agent(path, limits: limits, accept: { fd in
            if let code = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { errno = code; return -1 }
            return accept(fd, nil, nil)
        })
        defer { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
        let result = await Blocking.onOwnThread { AgentConnection.exchange(path, Array(Self.request.json.serialized()), deadline: 3000) }
        guard case .success(let bytes) = result else { Issue.record("\(result)"); return }
        #expect(try AgentAnswer.parse(bytes) == Self.token)
    }

    @Test("The client: a silent agent is the named timeout within the deadline; an empty answer is 'closed without an answer'; both were sent")
    func clientDeadline() async throws {
        let (directory, path) = try socketPath()
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let fd = try agent(path, delay: .seconds(3))
        defer { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
        let started = ContinuousClock.now
        let silent = await Blocking.onOwnThread { AgentConnection.exchange(path, Array(Self.request.json.serialized()), deadline: 400) }
        #expect(ContinuousClock.now - started < .milliseconds(1500))
        guard case .failure(let timedOut) = silent else { Issue.record("\(silent)"); return }
        #expect(timedOut.sent && timedOut.reason == "the agent did not answer within 0.4 s", "\(timedOut)")
        #expect(AgentConnection.answerDeadline == (AgentConnection.maximumConfirmTimeout + 5) * 1000)
        // A dribbling agent: one byte every 100 ms does not hold the client past its deadline.
        let (directory2, path2) = try socketPath()
        defer { _ = try? FileManager.default.removeItem(atPath: directory2) }
        let listening = try AgentSocket.listen(at: path2)
        defer { close(listening) }
        Thread.detachNewThread {
            let connection = accept(listening, nil, nil)
            for _ in 0..<30 { _ = send(connection, " ", 1, Int32(MSG_NOSIGNAL)); usleep(100_000) }
            close(connection)
        }
        let dribbled = await Blocking.onOwnThread { AgentConnection.exchange(path2, Array(Self.request.json.serialized()), deadline: 500) }
        guard case .failure(let cut) = dribbled else { Issue.record("\(dribbled)"); return }
        #expect(cut.sent && cut.reason.contains("did not answer within 0.5 s"), "\(cut)")
        #expect(AgentSocket.unreachable(cut.reason).title.contains("not reachable: the agent did not answer within"))
    }

    @Test("The launcher's reading of a hostile answer: exitStatus 1e99, 0 or none is 1; a token with control characters is refused by both ends")
    func hostileAnswers() throws {
        func read(_ text: String) -> (stdout: String, stderr: String, exitCode: Int32) { AgentToken.read(Array(text.utf8)) }
        #expect(read(#"{"version":1,"error":{"title":"x","exitStatus":1e99}}"#).exitCode == 1)
        #expect(read(#"{"version":1,"error":{"title":"x","exitStatus":0}}"#).exitCode == 1)
        #expect(read(#"{"version":1,"error":{"title":"x","exitStatus":-3}}"#).exitCode == 1)
        #expect(read(#"{"version":1,"error":{"title":"x","exitStatus":7}}"#) == ("", "error: agent: x\n", 7))
        let hostile = #"{"version":1,"account":"a","token":"at\u001b]0;x\u0007","kind":"access_token","tokenType":"Bearer"}"#
        let launcher = read(hostile)
        #expect(launcher.stdout.isEmpty && launcher.exitCode == 1 && launcher.stderr.contains("characters a token cannot have"))
        #expect(throws: AgentAnswer.Failure(.failed, AgentConnection.notTokenTextTitle)) { try AgentAnswer.parse(Array(hostile.utf8)) }
        #expect(read("not json").exitCode == 1, "an answer the launcher cannot read is said by it, not handed over")
        #expect(read(#"{"version":1,"account":"a","token":"at-1","kind":"access_token","tokenType":"Bearer"}"#) == ("at-1\n", "", 0))
    }
}

@Suite("Agent log and oversized requests (AppCoreLive)")
struct AgentLogLimitsTests {
    @Test("The log is capped: past its size it becomes agent.log.1 and a new one starts")
    func logRotates() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-log-\(UUID().uuidString.prefix(8))").path
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let log = AgentLog(stateDirectory: directory, maximumSize: 600)
        let entry = AgentService.LogEntry(time: Date(), peer: .init(pid: 1, uid: 1), host: "h", command: String(repeating: "c", count: 200),
                                          account: nil, outcome: "allowed")
        for _ in 0..<10 { #expect(log.append(entry) == nil) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int)
        #expect(size <= 600 + 400 && FileManager.default.fileExists(atPath: log.path + ".1"), "size \(size)")
    }

    @Test("A request over 64 KB is answered badRequest by name, not closed unanswered")
    func oversizedRequestAnswered() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-big-\(UUID().uuidString.prefix(8))").path
        try #require(mkdir(directory, 0o700) == 0)
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/agent.sock"
        let fd = try AgentSocket.listen(at: path)
        defer { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
        AgentSocket.serve(fd, refused: { _ in }, answer: { bytes, _ in
            do throws(AgentAnswer.Failure) { _ = try AgentRequest.parse(bytes) } catch { return Array(AgentAnswer.failure(error).json.serialized()) }
            return Array(AgentAnswer.nothing.json.serialized())
        })
        let big = Array(AgentRequest(operation: .token, command: String(repeating: "x", count: 70_000), host: "h").json.serialized())
        let result = await Blocking.onOwnThread { AgentConnection.exchange(path, big, deadline: 3000) }
        guard case .success(let bytes) = result, case .failure(let failure) = try AgentAnswer.parse(bytes) else { Issue.record("\(result)"); return }
        #expect(failure.code == .badRequest && failure.title.contains("longer than 65536 bytes"), "\(failure)")
    }
}
