import CJansson
import Glibc
import TextSupport

/// A plain `authdeck token` where `AUTHDECK_AGENT_SOCK` names an agent's socket (a remote shell, a
/// container): asked of the agent by the launcher itself, so that it costs one round trip on the
/// socket plus the launcher's start-up, not the full program's (PERFORMANCE.md). The connection's
/// rules are ``AgentConnection``'s; the wire is `AgentWire` (AppCore), read here with jansson as
/// StrictJSON reads it (duplicate members refused). Any other form of the command, or an agent
/// that cannot be reached (no request made), goes to the full program, which says why; once the
/// request is sent, every outcome is said here (exactly one attempt). Where the directory could
/// choose the account (no `AUTHDECK_ACCOUNT`, and directory rules or a git config that may name
/// one: ``QuickAnswer``'s own tests of the place), the full program reads the place and sends it.
public enum AgentToken {
    /// Whether `AUTHDECK_AGENT_SOCK` names a socket (set and not empty): then the launcher answers
    /// nothing from this machine's files.
    public static func forwarded(_ variables: [String]) -> Bool {
        variables.contains { $0.utf8.starts(with: "AUTHDECK_AGENT_SOCK=".utf8) && $0.utf8.count > 20 }
    }

    /// What to print and the exit status, or nil to hand over (only when no request was sent: the
    /// full program then says why; a request sent is never sent again, so every failure after it is said here).
    public static func answer(arguments: [String], variables: [String], directory: String?) -> (stdout: String, stderr: String, exitCode: Int32)? {
        guard arguments.count == 2, arguments[1].utf8.elementsEqual("token".utf8) else { return nil }
        var socket: String?, account: String?
        for entry in variables {
            if entry.utf8.starts(with: "AUTHDECK_AGENT_SOCK=".utf8) { socket = String(entry.dropFirst(20)) }
            if entry.utf8.starts(with: "AUTHDECK_ACCOUNT=".utf8) { account = String(entry.dropFirst(17)) }
        }
        guard let socket, !socket.isEmpty else { return nil }
        if account?.isEmpty != false, placeMayChoose(variables: variables, directory: directory) { return nil }
        guard let request = requestBytes(environmentAccount: account) else { return nil }
        switch AgentConnection.exchange(socket, request) {
        case .failure(let unreachable) where !unreachable.sent: return nil
        case .failure(let unreachable): return failed(AgentConnection.unreachableTitle(unreachable.reason))
        case .success(let bytes): return read(bytes)
        }
    }

    /// Whether this host's directory could choose the account (``QuickAnswer``'s tests: `bindings.json`
    /// exists, or git config here may mention `authdeck`); true where in doubt (no directory).
    static func placeMayChoose(variables: [String], directory: String?) -> Bool {
        var environment: [String: String] = [:]
        for entry in variables {
            guard let equals = entry.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(entry[..<equals])
            guard key.utf8.starts(with: "XDG_".utf8) || key.utf8.starts(with: "GIT_".utf8)
                    || key.utf8.elementsEqual("HOME".utf8) || key.utf8.elementsEqual("PATH".utf8) else { continue }
            // A name given twice: which one git reads is its own choice.
            guard environment.updateValue(String(entry[entry.index(after: equals)...]), forKey: key) == nil else { return true }
        }
        guard let directory, directory.utf8.first == UInt8(ascii: "/") else { return true }
        if QuickAnswer.exists("\(XDGPaths(environment: environment).configDirectory)/bindings.json") { return true }
        return GitConfigFiles.mayMention("authdeck", directory: directory, environment: environment)
    }

    /// The agent's answer to a plain `token`, as the full program prints it (AgentWire's shape).
    public static func read(_ bytes: [UInt8]) -> (stdout: String, stderr: String, exitCode: Int32) {
        var error = json_error_t()
        guard let root = bytes.withUnsafeBytes({ json_loadb($0.baseAddress, $0.count, authdeck_json_decode_flags(), &error) }) else {
            return failed("The agent's answer could not be read: it is not JSON")
        }
        defer { authdeck_json_decref(root) }
        guard authdeck_json_typeof(root) == JSON_OBJECT, let version = json_object_get(root, "version"), json_number_value(version) == 1 else {
            return failed("The agent speaks another protocol version")
        }
        if let failure = json_object_get(root, "error"), let title = string(failure, "title") {
            // Any status but 1…125 (none, 0, not an integer, out of range) is 1: an error never exits 0.
            let given = json_object_get(failure, "exitStatus").map { json_number_value($0) } ?? 1
            let status = given >= 1 && given <= 125 && given.rounded() == given ? Int32(given) : 1
            let next = string(failure, "nextStep").map { Sanitizer.visible($0) + "\n" } ?? ""
            return ("", "error: agent: \(Sanitizer.visible(title))\n" + next, status)
        }
        guard let token = string(root, "token"), string(root, "kind").map({ $0.utf8.elementsEqual("access_token".utf8) }) == true else {
            return failed("The agent's answer could not be read: it holds no access token")
        }
        guard AgentConnection.isTokenText(token) else { return failed(AgentConnection.notTokenTextTitle) }
        return (token + "\n", "", 0)
    }

    public static func failed(_ title: String) -> (stdout: String, stderr: String, exitCode: Int32) {
        ("", "error: agent: \(title)\n", 1)
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
