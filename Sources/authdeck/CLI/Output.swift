import AppCore
import AppCoreLive
import QuickToken
import Synchronization
import AuthEngine
import CredentialStore
import CredentialStoreLive
import Dispatch
import FoundationEssentials
import TerminalUI

#if canImport(Glibc)
import Glibc
import TextSupport
#endif
/// stdout carries only the result; everything else goes to stderr.
/// Text from outside (claims, names, server error descriptions) never reaches a terminal raw:
/// control characters and escape sequences are made visible (`\e[2J`) in every text line, on
/// stdout and stderr, piped or not (a pipe often ends in a terminal). The exceptions carry their
/// own encoding: `--json` (JSON escapes control characters) and `api`'s body when piped.
enum Output {
    static let stdoutIsTerminal = isatty(1) == 1

    static func out(_ text: String) {
        // From the UTF-8 buffer: `Data(text.utf8)` asks at run time whether the view is
        // ContiguousBytes, a scan of every conformance record of the image (2 % of `token`).
        var text = visible(text)
        raw(text.withUTF8 { Data(buffer: $0) })
    }

    /// Bytes as they are: JSON documents, and response bodies going to a pipe.
    /// When stdout is closed or cannot take them (`>&-`, `>/dev/full`, EIO), the result did not
    /// reach its reader: one line on stderr and exit 1, never a trap (FileHandle.write traps).
    static func raw(_ data: Data) {
        if let error = writeAll(STDOUT_FILENO, data) {
            let message = "authdeck: cannot write the result to standard output: \(describe(errno: error));"
                + " check what stdout is redirected to\n"
            writeAll(STDERR_FILENO, Data(message.utf8))
            exit(ExitCode.failure)
        }
    }

    static func line(_ text: String) { out(text + "\n") }

    /// What a refresh on the way says ("the provider is slow", a replayed refresh token), on stderr.
    @Sendable static func refreshNotice(_ notice: RefreshNotice) { err("note: \(notice.message)") }

    /// A message on stderr. If stderr itself is closed or full there is nowhere to say so: the
    /// message is dropped (the exit code still tells).
    static func err(_ text: String) {
        writeAll(STDERR_FILENO, Data((visible(text) + "\n").utf8))
    }

    /// A question on stderr, the answer typed after it on the same line.
    static func errInline(_ text: String) {
        writeAll(STDERR_FILENO, Data(visible(text).utf8))
    }

    /// Writes every byte to `fd` (retrying short writes and EINTR); the errno of a failure, else nil.
    @discardableResult
    static func writeAll(_ fd: Int32, _ data: Data) -> Int32? {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, base + offset, buffer.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return n < 0 ? errno : EIO
                }
            }
            return nil
        }
    }

    /// "No space left on device (ENOSPC)"-style text for an errno.
    static func describe(errno code: Int32) -> String {
        let names: [Int32: String] = [EBADF: "EBADF", ENOSPC: "ENOSPC", EPIPE: "EPIPE", EIO: "EIO", EISDIR: "EISDIR", EAGAIN: "EAGAIN"]
        let text = String(cString: strerror(code))
        return code == EBADF ? "it is closed (EBADF)" : names[code].map { "\(text) (\($0))" } ?? SystemErrorText.describe(code)
    }

    /// `Sanitizer.visible` on every piece, keeping the layout's newlines and tabs.
    static func visible(_ text: String) -> String {
        // Character by character (`\r\n` is one Character, as a split on "\n" sees it), without
        // the standard library's `joined(separator:)`, which runs unspecialized: a conformance
        // scan of the whole image on every `token` (PERFORMANCE.md).
        var result = "", segment = ""
        for character in text {
            if character == "\n" || character == "\t" {
                result += Sanitizer.visible(segment)
                result.append(character)
                segment = ""
            } else {
                segment.append(character)
            }
        }
        return result + Sanitizer.visible(segment)
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Pretty, key-sorted JSON (the stable `--json` schema) followed by a newline: jansson's
    /// writer (`JSONValue.serialized(pretty:)`: two-space indentation, integers as integers,
    /// `/` not escaped), no Codable and no `JSONSerialization` (PERFORMANCE.md).
    static func json(_ value: JSONValue) {
        var text = value.serialized(pretty: true)
        text.append(UInt8(ascii: "\n"))
        raw(text)
    }
}

/// Members of the CLI's `--json` objects that may be `null` (the schema keeps every member).
extension JSONValue {
    /// The text, or `null`.
    static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    /// RFC 3339 UTC (``Times/rfc3339(_:)``), or `null`.
    static func time(_ value: Date?) -> JSONValue { value.map { .string(Times.rfc3339($0)) } ?? .null }
    /// The whole number, or `null`.
    static func integer(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
    /// true / false, or `null`.
    static func flag(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
    /// The absolute string, or `null`.
    static func url(_ value: URL?) -> JSONValue { value.map { .string($0.absoluteString) } ?? .null }
}

/// Times in the CLI's machine-readable output: RFC 3339 UTC (`2026-11-30T10:20:49Z`) and whole
/// seconds left; relative text comes from ``TimeText`` (shared with the TUI).
enum Times {
    static func rfc3339(_ date: Date) -> String {
        // UTC, `Z`, whole seconds: StrictJSON's arithmetic for the years 1900–9999, else
        // Date.ISO8601FormatStyle (FoundationEssentials), whose first use builds a Gregorian
        // calendar (PERFORMANCE.md).
        JSONDateEncoding.wholeSecondsUTCText(date) ?? date.formatted(rfc3339Style)
    }

    private static let rfc3339Style = Date.ISO8601FormatStyle(timeZone: .gmt)

    /// Whole seconds from `now` to `date` (negative when past), clamped to ±`TimeText.farSeconds`
    /// (an `exp` of 1e300 or an `expires_in` of 2^63 must not trap the conversion).
    /// The launcher's arithmetic for a kept status too (QuickStatus).
    static func secondsLeft(_ date: Date, now: Date) -> Int {
        QuickStatus.secondsLeft(date.timeIntervalSince1970, now: now.timeIntervalSince1970)
    }
}
