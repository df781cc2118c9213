import AppCore
import FoundationEssentials
import StrictJSON
#if canImport(Glibc)
import Glibc
#endif

/// The agent's record of every request (`$XDG_STATE_HOME/authdeck/agent.log`, 0600): one JSON
/// object a line (time in seconds since 1970, the peer's pid and uid, the remote's host and command
/// as it said them, the account, the resource asked for, `allowed` or the failure's code and reason; never a token). Each
/// line is one `write(2)` on an `O_APPEND` descriptor, so agents writing at once never interleave.
public struct AgentLog: Sendable {
    public let path: String
    /// The log's size cap in bytes: past it, the log becomes `agent.log.1` (the one before is dropped) and a new one starts.
    public let maximumSize: Int
    public init(stateDirectory: String, maximumSize: Int = 1 << 20) {
        path = stateDirectory + "/agent.log"
        self.maximumSize = maximumSize
    }

    /// Appends `entry`; a log that is not the user's own or is open to others is refused (the entry is lost, said on stderr by the caller).
    /// - Returns: why the entry could not be written, or nil.
    public func append(_ entry: AgentService.LogEntry) -> String? {
        let directory = String(path[..<path.utf8.lastIndex(of: UInt8(ascii: "/"))!])
        _ = mkdir(directory, 0o700)
        var existing = stat()
        if lstat(path, &existing) == 0, existing.st_mode & S_IFMT == S_IFREG, Int(existing.st_size) > maximumSize { rename(path, path + ".1") }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return "the agent's log \(path) cannot be opened (errno \(errno))" }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            return "the agent's log \(path) is not private to you (it must be yours, mode 0600)"
        }
        var line = Array(Self.json(entry).serialized())
        line.append(UInt8(ascii: "\n"))
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return written == line.count ? nil : "the agent's log \(path) could not be written (errno \(errno))"
    }

    static func json(_ entry: AgentService.LogEntry) -> JSONValue {
        .object(omittingNil: [
            "time": .date(entry.time, .secondsSince1970), "pid": .int(Int(entry.peer.pid)), "uid": .int(Int(entry.peer.uid)),
            "host": .string(entry.host), "command": .string(entry.command), "account": entry.account.map(JSONValue.string),
            "outcome": .string(entry.outcome), "reason": entry.reason.map(JSONValue.string), "resource": entry.resource.map(JSONValue.string),
        ])
    }

    /// The entries, oldest first (a missing log: none).
    /// - Throws: ``AppError`` naming the line that is not an entry.
    public func entries() throws(AppError) -> [AgentService.LogEntry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var entries: [AgentService.LogEntry] = []
        for (number, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
            do {
                let reader = try JSONReader(try parseJSONValue(Data(line)))
                entries.append(AgentService.LogEntry(
                    time: try reader.date("time", .secondsSince1970),
                    peer: AgentService.Peer(pid: Int32(clamping: try reader.int("pid")), uid: UInt32(clamping: try reader.int("uid"))),
                    host: try reader.string("host"), command: try reader.string("command"), account: try reader.optionalString("account"),
                    outcome: try reader.string("outcome"), reason: try reader.optionalString("reason"),
                    resource: try reader.optionalString("resource")))
            } catch {
                throw AppError(title: "The agent's log \(path) is damaged at line \(number + 1)", detail: "\(error)",
                               nextStep: "Move it aside; the agent starts a new one.")
            }
        }
        return entries
    }
}
