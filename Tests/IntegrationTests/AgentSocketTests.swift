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

/// `AgentSocket`, both ends in this process on a real Unix socket: the permission rules
/// of each end, a round trip, and an agent gone.
@Suite("Agent socket (AppCoreLive)")
struct AgentSocketTests {
    func directory(mode: mode_t = 0o700) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-agent-\(UUID().uuidString.prefix(8))").path
        try #require(mkdir(path, mode) == 0 && chmod(path, mode) == 0)
        return path
    }

    @Test("A directory others can use, or something else at the path, is refused; the socket is made 0600")
    func listenRefusesLooseDirectory() throws {
        let loose = try directory(mode: 0o755)
        defer { rmdir(loose) }
        #expect(throws: AppError.self) { _ = try AgentSocket.listen(at: loose + "/agent.sock") }
        let tight = try directory()
        defer { _ = try? FileManager.default.removeItem(atPath: tight) }
        _ = FileManager.default.createFile(atPath: tight + "/file", contents: Data())
        #expect(throws: AppError.self) { _ = try AgentSocket.listen(at: tight + "/file") }
        let fd = try AgentSocket.listen(at: tight + "/agent.sock")
        defer { close(fd) }
        var info = stat()
        #expect(lstat(tight + "/agent.sock", &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test("A round trip; the client refuses a socket others can use; an agent gone is the named error, at once")
    func roundTripAndRefusals() async throws {
        let tight = try directory()
        defer { _ = try? FileManager.default.removeItem(atPath: tight) }
        let path = tight + "/agent.sock"
        let fd = try AgentSocket.listen(at: path)
        AgentSocket.serve(fd, refused: { _ in }, answer: { bytes, peer in
            let request = try? AgentRequest.parse(bytes)
            let answer = AgentAnswer.token(.init(account: "op/alice", token: AccessToken("at-\(request?.command ?? "?")-\(peer.uid)"),
                                                 tokenType: "Bearer", expiresAt: nil))
            return Array(answer.json.serialized())
        })
        let request = AgentRequest(operation: .token, command: "token", host: "h")
        let answer = try AgentSocket.ask(path, request)
        #expect(answer == .token(.init(account: "op/alice", token: AccessToken("at-token-\(geteuid())"), tokenType: "Bearer", expiresAt: nil)))
        chmod(path, 0o666)
        do { _ = try AgentSocket.ask(path, request); Issue.record("a socket open to others was used") } catch {
            #expect(error.title.contains("can be used by others"), "\(error)")
        }
        chmod(path, 0o600)
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        let started = ContinuousClock.now
        do { _ = try AgentSocket.ask(path, request); Issue.record("an agent gone answered") } catch {
            #expect(error.title.contains("is not reachable"), "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test("The launcher's remote 'token' where directory rules exist: handed to the full program unsent (it sends the place); asked itself without rules or with AUTHDECK_ACCOUNT")
    func launcherHandsPlacesOver() async throws {
        let tight = try directory()
        defer { _ = try? FileManager.default.removeItem(atPath: tight) }
        let path = tight + "/agent.sock", asked = Atomic<Int>(0)
        let fd = try AgentSocket.listen(at: path)
        defer { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
        AgentSocket.serve(fd, refused: { _ in }, answer: { _, _ in
            asked.add(1, ordering: .sequentiallyConsistent)
            return Array(AgentAnswer.token(.init(account: "op/alice", token: AccessToken("at-1"), tokenType: "Bearer", expiresAt: nil)).json.serialized())
        })
        try #require(mkdir(tight + "/work", 0o700) == 0)
        let variables = ["AUTHDECK_AGENT_SOCK=\(path)", "HOME=\(tight)", "XDG_CONFIG_HOME=\(tight)/config", "PATH=/usr/bin:/bin"]
        // The launcher's blocking exchange on a thread of its own: the agent's answers need the cooperative pool.
        func token(_ extra: [String] = []) async -> String? {
            let work = tight + "/work"
            return await Blocking.onOwnThread {
                AgentToken.answer(arguments: ["authdeck", "token"], variables: variables + extra, directory: work)?.stdout
            }
        }
        #expect(await token() == "at-1\n", "no rules here: the launcher asks")
        try FileManager.default.createDirectory(atPath: tight + "/config/authdeck", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: tight + "/config/authdeck/bindings.json", contents: Data(#"{"bindings":[],"version":1}"#.utf8))
        #expect(await token() == nil, "rules exist: the full program reads the place")
        #expect(asked.load(ordering: .sequentiallyConsistent) == 1, "and nothing was sent")
        #expect(await token(["AUTHDECK_ACCOUNT=op/alice"]) == "at-1\n", "AUTHDECK_ACCOUNT comes before any rule: asked")
    }
}
