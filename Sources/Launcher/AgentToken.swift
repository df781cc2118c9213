import CJansson
import Glibc
import QuickToken
import TextSupport

/// A plain `authdeck token` where `AUTHDECK_AGENT_SOCK` names an agent's socket (a remote shell, a
/// container): asked of the agent by the launcher itself, so that it costs one round trip on the
/// socket plus the launcher's start-up, not the full program's (PERFORMANCE.md). The connection's
/// rules are ``AgentConnection``'s; the wire is `AgentWire` (AppCore), read here with jansson as
/// StrictJSON reads it (duplicate members refused). Any other form of the command, or an agent
/// that cannot be reached (no request made), goes to the full program, which says why.
enum AgentToken {
    /// Whether `AUTHDECK_AGENT_SOCK` names a socket (set and not empty): then the launcher answers
    /// nothing from this machine's files.
    static func forwarded(_ variables: [String]) -> Bool {
        variables.contains { $0.utf8.starts(with: "AUTHDECK_AGENT_SOCK=".utf8) && $0.utf8.count > 20 }
    }

    /// What to print and the exit status, or nil to hand over.
    static func answer(arguments: [String], variables: [String]) -> (stdout: String, stderr: String, exitCode: Int32)? {
        guard arguments.count == 2, arguments[1].utf8.elementsEqual("token".utf8) else { return nil }
        var socket: String?, account: String?
        for entry in variables {
            if entry.utf8.starts(with: "AUTHDECK_AGENT_SOCK=".utf8) { socket = String(entry.dropFirst(20)) }
            if entry.utf8.starts(with: "AUTHDECK_ACCOUNT=".utf8) { account = String(entry.dropFirst(17)) }
        }
        guard let socket, !socket.isEmpty, let request = requestBytes(environmentAccount: account),
              case .success(let bytes) = AgentConnection.exchange(socket, request) else { return nil }
        var error = json_error_t()
        guard let root = bytes.withUnsafeBytes({ json_loadb($0.baseAddress, $0.count, authdeck_json_decode_flags(), &error) }) else { return nil }
        defer { authdeck_json_decref(root) }
        guard authdeck_json_typeof(root) == JSON_OBJECT, let version = json_object_get(root, "version"), json_number_value(version) == 1 else {
            return nil
        }
        if let failure = json_object_get(root, "error"), let title = string(failure, "title") {
            let status = json_object_get(failure, "exitStatus").map { Int32(json_number_value($0)) } ?? 1
            let next = string(failure, "nextStep").map { Sanitizer.visible($0) + "\n" } ?? ""
            return ("", "error: agent: \(Sanitizer.visible(title))\n" + next, status)
        }
        guard let token = string(root, "token"), string(root, "kind").map({ $0.utf8.elementsEqual("access_token".utf8) }) == true,
              !token.utf8.contains(where: { $0 < 0x21 || $0 > 0x7e }) else { return nil }
        return (token + "\n", "", 0)
    }

    /// `{"command":"token","environmentAccount":…,"host":…,"operation":"token","version":1}`.
    static func requestBytes(environmentAccount: String?) -> [UInt8]? {
        guard let root = json_object() else { return nil }
        defer { authdeck_json_decref(root) }
        var host = [CChar](repeating: 0, count: 256)
        let name = gethostname(&host, 255) == 0 ? host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : "?"
        var members: [(String, String)] = [("operation", "token"), ("command", "token"), ("host", name)]
        if let environmentAccount, !environmentAccount.isEmpty { members.append(("environmentAccount", environmentAccount)) }
        for (key, value) in members {
            guard let text = json_stringn(value, value.utf8.count), json_object_set_new(root, key, text) == 0 else { return nil }
        }
        guard let version = json_integer(1), json_object_set_new(root, "version", version) == 0,
              let dumped = json_dumps(root, authdeck_json_encode_flags(0, 17)) else { return nil }
        defer { free(dumped) }
        return Array(String(cString: dumped).utf8)
    }

    static func string(_ object: UnsafeMutablePointer<json_t>, _ key: String) -> String? {
        guard let value = json_object_get(object, key), authdeck_json_typeof(value) == JSON_STRING, let text = json_string_value(value) else {
            return nil
        }
        return String(validatingCString: text)
    }
}
