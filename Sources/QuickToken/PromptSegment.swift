import CJansson
import TextSupport

/// `authdeck prompt [--format FORMAT]`: one line for a shell prompt — the account that applies
/// here, where that choice came from, its state and the access token's time left — made from a
/// `status --json` document (README "Commands" schema). The one rule for both answers: the
/// launcher renders the kept status (``QuickStatus``, the time filled in for now), the full
/// program renders the status it has just computed (and keeps it); neither asks the network, and
/// no secret is read.
///
/// Placeholders in FORMAT: `{account}` (the alias, else `provider/username`), `{handle}`,
/// `{source}` (`env`, `git`, `dir`, `active`, `only`), `{state}` (status's label: `valid`,
/// `expiring soon`, `expired`, `needs sign-in`, …), `{left}` (the access token's time left:
/// `45s`, `12m`, `1h05m`, `3d`; empty when it has no expiry, has expired or is not usable).
/// Anything else is printed as written. Runs of spaces left by empty placeholders become one and
/// the line is trimmed. Names are made visible (``Sanitizer/visible(_:)``): no control,
/// bidirectional or invisible character reaches the prompt. Empty when no account applies here.
public enum PromptSegment {
    public static let defaultFormat = "{account} ({source}) {state} {left}"

    /// The launcher's answer to `authdeck prompt [--format FORMAT]`: the line (with its line end,
    /// or nothing when no account applies) from the kept status, or why the full program answers.
    public static func decide(arguments: [String], variables: [String], directory: String?, now: Double) -> QuickAnswer.Decision {
        guard let name = arguments.first.map(PathText.lastComponent), name.utf8.elementsEqual(ProgramLayout.launcherName.utf8),
              arguments.count >= 2, arguments[1].utf8.elementsEqual("prompt".utf8), let directory else {
            return .handOver(reason: "only 'authdeck prompt [--format FORMAT]' is answered")
        }
        let format: String
        switch arguments.count {
        case 2: format = defaultFormat
        case 4 where arguments[2].utf8.elementsEqual("--format".utf8): format = arguments[3]
        default: return .handOver(reason: "only 'authdeck prompt [--format FORMAT]' is answered")
        }
        switch QuickStatus.kept(variables: variables, directory: directory, now: now) {
        case .failure(let why): return .handOver(reason: why.reason)
        case .success(let (kept, _)):
            guard let document = json_object_get(kept.root, "document") else { return .handOver(reason: "the kept status is not in this format") }
            return .answer(output: output(document, format: format))
        }
    }

    /// The line for `statusJSON` (a `status --json` document's bytes) with its line end, or ""
    /// when no account applies (or the bytes are not such a document): the full program's answer.
    public static func output(statusJSON: [UInt8], format: String) -> String {
        guard let parsed = Document(parsingIntegers: statusJSON) else { return "" }
        return output(parsed.root, format: format)
    }

    static func output(_ document: UnsafeMutablePointer<json_t>, format: String) -> String {
        guard let id = Document.string(document, "activeAccount"), let accounts = json_object_get(document, "accounts") else { return "" }
        var chosen: UnsafeMutablePointer<json_t>?
        for index in 0..<json_array_size(accounts) {
            let account = json_array_get(accounts, index)
            if Document.string(account, "id").map({ $0.utf8.elementsEqual(id.utf8) }) == true { chosen = account }
        }
        guard let account = chosen else { return "" }
        let handle = Document.string(account, "handle") ?? id
        let state = Document.string(account, "status") ?? ""
        var left = ""
        if !state.utf8.elementsEqual("needs sign-in".utf8), let token = json_object_get(account, "accessToken"),
           let seconds = json_object_get(token, "secondsLeft"), authdeck_json_typeof(seconds) == JSON_INTEGER {
            left = duration(Int(json_integer_value(seconds)))
        }
        let values = [
            ("account", Document.string(account, "alias") ?? handle), ("handle", handle),
            ("source", source(Document.string(document, "activeAccountSource"))), ("state", state), ("left", left),
        ]
        return line(format: format, values: values).map { $0 + "\n" } ?? ""
    }

    /// `format` with each `{name}` of `values` replaced; runs of spaces become one, the ends
    /// trimmed; nil when nothing but spaces is left. Control characters in FORMAT itself are
    /// made visible too. Works on UTF-8 bytes (no grapheme breaking: the launcher's time).
    static func line(format: String, values: [(String, String)]) -> String? {
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}"), space = UInt8(ascii: " ")
        let bytes = Array(format.utf8)
        var text: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == open, let end = bytes[(index + 1)...].firstIndex(of: close),
               let value = values.first(where: { $0.0.utf8.elementsEqual(bytes[(index + 1)..<end]) })?.1 {
                text += value.utf8
                index = end + 1
            } else {
                text.append(bytes[index])
                index += 1
            }
        }
        var squeezed: [UInt8] = []
        for byte in Sanitizer.visible(String(decoding: text, as: UTF8.self)).utf8 where !(byte == space && (squeezed.last ?? space) == space) {
            squeezed.append(byte)
        }
        while squeezed.last == space { squeezed.removeLast() }
        return squeezed.isEmpty ? nil : String(decoding: squeezed, as: UTF8.self)
    }

    /// Where the choice came from, in a word, from status's `activeAccountSource`
    /// (`environment`, `git config (FILE)`, `rule DIR`, `active`, `only account`).
    static func source(_ label: String?) -> String {
        guard let label else { return "" }
        let words: [(String, String)] = [("environment", "env"), ("git config", "git"), ("rule ", "dir"), ("active", "active"),
                                         ("only account", "only")]
        return words.first { label.utf8.starts(with: $0.0.utf8) }?.1 ?? ""
    }

    /// `seconds` as a prompt says it: `45s`, `12m`, `1h05m`, `3d`; "" for none left (≤ 0).
    static func duration(_ seconds: Int) -> String {
        guard seconds > 0 else { return "" }
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3_600 { return "\(seconds / 60)m" }
        if seconds < 86_400 {
            let minutes = seconds % 3_600 / 60
            return "\(seconds / 3_600)h\(minutes < 10 ? "0" : "")\(minutes)m"
        }
        return "\(seconds / 86_400)d"
    }
}
