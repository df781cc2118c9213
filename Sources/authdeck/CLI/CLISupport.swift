import AppCore
import AppCoreLive
import Synchronization
import AuthEngine
import Foundation
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// A command that failed: what was wrong, what to do next, and the exit code. `main` prints
/// `error: <message>` and the hint on stderr.
struct CLIFailure: Error {
    var message: String
    var hint: String?
    var exitCode: Int32

    init(_ message: String, hint: String? = nil, exitCode: Int32 = ExitCode.failure) {
        self.message = message
        self.hint = hint
        self.exitCode = exitCode
    }

    /// An ``AppError`` from the live session, with its disposition mapped to the exit code:
    /// `.needsSignIn` → 3, `.storeLocked` → 4, anything else → 1.
    init(_ error: AppError, hint: String? = nil) {
        let code: Int32
        var next = hint
        switch error.disposition {
        case .needsSignIn:
            code = ExitCode.needsSignIn
            if next == nil { next = "Sign in again with 'authdeck login'." }
        case .storeLocked:
            code = ExitCode.storeLocked
            if next == nil {
                next = "Unlock the credential store: set AUTHDECK_PASSPHRASE_FILE to a 0600 file holding the vault passphrase, or run from a terminal to be asked for it."
            }
        case .cancelled: code = ExitCode.interrupted
        case .usage: code = ExitCode.usage
        case .transient: code = ExitCode.failure
            if next == nil { next = "This looks temporary (network or server); try again." }
        default: code = ExitCode.failure
        }
        self.init(error.description, hint: next, exitCode: code)
    }

    static func usage(_ message: String) -> CLIFailure { CLIFailure(message, exitCode: ExitCode.usage) }
}

/// stdout carries only the result; everything else goes to stderr.
/// Text from outside (claims, names, server error descriptions) never reaches a terminal raw:
/// control characters and escape sequences are made visible (`\e[2J`) in every text line, on
/// stdout and stderr, piped or not (a pipe often ends in a terminal). The exceptions carry their
/// own encoding: `--json` (JSON escapes control characters) and `api`'s body when piped.
enum Output {
    static let stdoutIsTerminal = isatty(1) == 1

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(visible(text).utf8))
    }

    /// Bytes as they are: JSON documents, and response bodies going to a pipe.
    static func raw(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    static func line(_ text: String) { out(text + "\n") }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((visible(text) + "\n").utf8))
    }

    /// `Sanitizer.visible` on every piece, keeping the layout's newlines and tabs.
    static func visible(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { Sanitizer.visible(String($0)) }.joined(separator: "\t")
        }.joined(separator: "\n")
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Pretty, key-sorted JSON (the stable `--json` schema) followed by a newline.
    static func json(_ object: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        raw(data + Data("\n".utf8))
    }

    static func json(_ value: JSONValue) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        raw(try encoder.encode(value) + Data("\n".utf8))
    }
}

/// Times as the CLI shows them: RFC 3339 UTC (`2026-11-30T10:20:49Z`) and "in 59m 10s".
enum Times {
    static func rfc3339(_ date: Date) -> String {
        // Date.ISO8601FormatStyle (FoundationEssentials, a value type): UTC, `Z`, whole seconds,
        // the same text as ISO8601DateFormatter's .withInternetDateTime, without building an ICU
        // date formatter per call (most of `status --json`'s time, PERFORMANCE.md).
        date.formatted(rfc3339Style)
    }

    private static let rfc3339Style = Date.ISO8601FormatStyle(timeZone: TimeZone(secondsFromGMT: 0)!)

    /// Whole seconds from `now` to `date` (negative when past).
    static func secondsLeft(_ date: Date, now: Date) -> Int { Int(date.timeIntervalSince(now).rounded(.down)) }

    /// "in 1h 2m", "in 42s", "3m 5s ago".
    static func relative(_ date: Date, now: Date) -> String {
        let seconds = secondsLeft(date, now: now)
        let text = duration(abs(seconds))
        return seconds >= 0 ? "in \(text)" : "\(text) ago"
    }

    static func duration(_ seconds: Int) -> String {
        let days = seconds / 86_400, hours = (seconds % 86_400) / 3600, minutes = (seconds % 3600) / 60, secs = seconds % 60
        if days > 0 { return "\(days)d \(hours)h" }
        if hours > 0 { return "\(hours)h \(minutes)m" }
        if minutes > 0 { return "\(minutes)m \(secs)s" }
        return "\(secs)s"
    }
}

/// The process environment and the live environment of the use cases, shared by every
/// subcommand (built once, on first use: `--help` builds nothing).
final class CLIContext: Sendable {
    let environment: [String: String]
    private let makeApp: @Sendable () -> AppEnvironment
    private let built = Mutex<AppEnvironment?>(nil)

    init(environment: [String: String], makeApp: @escaping @Sendable () -> AppEnvironment) {
        self.environment = environment
        self.makeApp = makeApp
    }

    static let current: CLIContext = {
        let environment = ProcessInfo.processInfo.environment
        return CLIContext(environment: environment) { AppEnvironment.live(processEnvironment: environment) }
    }()

    /// The use cases' environment: the composition root's live value.
    var app: AppEnvironment {
        built.withLock { value in
            if let value { return value }
            let made = makeApp()
            value = made
            return made
        }
    }

    /// Runs a use case, mapping its error to the exit code.
    func run<T>(_ body: () throws(AppError) -> T) throws -> T {
        do { return try body() } catch { throw CLIFailure(error) }
    }

    /// Runs an async use case, mapping its error to the exit code.
    func run<T>(_ body: () async throws(AppError) -> T) async throws -> T {
        do { return try await body() } catch { throw CLIFailure(error) }
    }

    /// A use case's result as a `Result`.
    func result<T>(_ body: () throws(AppError) -> T) -> Result<T, AppError> {
        do { return .success(try body()) } catch { return .failure(error) }
    }

    /// An async use case's result as a `Result`.
    func result<T>(_ body: () async throws(AppError) -> T) async -> Result<T, AppError> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Non-secret metadata; fails with the store's error mapped to an exit code.
    func snapshot() throws -> LoadedSnapshot {
        try run { () throws(AppError) in try LoadAccounts(app).run() }
    }

    /// Opens the store (asks for the vault passphrase when needed) or fails with exit code 4.
    func unlock() throws {
        try run { () throws(AppError) in try LoadAccounts(app).unlock() }
    }

    /// The account meant by `query` (see ``AccountResolution``), or the default one:
    /// `AUTHDECK_ACCOUNT`, else the persisted active account.
    func account(_ query: String?, in snapshot: LoadedSnapshot) throws -> AccountRecord {
        try AccountResolution.resolve(query, accounts: snapshot.accounts, active: snapshot.activeAccountID,
                                      environmentAccount: environment["AUTHDECK_ACCOUNT"])
    }
}

/// ACCOUNT arguments: an alias given with `--name`, the account id (`provider/subject`), or an
/// unambiguous prefix of `provider/preferred_username` (or of the id, or of the username alone).
enum AccountResolution {
    static func handle(_ record: AccountRecord) -> String {
        "\(record.providerID.rawValue)/\(record.username ?? record.subject)"
    }

    static func resolve(_ query: String?, accounts: [AccountRecord], active: AccountID?, environmentAccount: String?) throws -> AccountRecord {
        if accounts.isEmpty {
            throw CLIFailure("No account is signed in", hint: "Sign in with 'authdeck login [PROVIDER]'.", exitCode: ExitCode.needsSignIn)
        }
        let query = query ?? environmentAccount.flatMap { $0.isEmpty ? nil : $0 }
        guard let query else {
            guard let active, let record = accounts.first(where: { $0.id == active }) else {
                throw CLIFailure("No active account", hint: "Name one (see 'authdeck status') or pick the default with 'authdeck switch ACCOUNT'.")
            }
            return record
        }
        if let exact = accounts.first(where: { $0.alias == query || $0.id.rawValue == query || handle($0) == query }) {
            return exact
        }
        var matches = accounts.filter { handle($0).hasPrefix(query) || $0.id.rawValue.hasPrefix(query) }
        if matches.isEmpty {
            // A bare username prefix (`alice`) when it names exactly one account.
            matches = accounts.filter { ($0.username ?? $0.subject).hasPrefix(query) }
        }
        if matches.count == 1 { return matches[0] }
        if matches.isEmpty {
            throw CLIFailure("No account matches '\(query)'",
                             hint: "Known accounts: \(accounts.map(describe).joined(separator: ", ")). See 'authdeck status'.")
        }
        throw CLIFailure("'\(query)' matches several accounts: \(matches.map(describe).joined(separator: ", "))",
                         hint: "Type more of the name, or use the account id.")
    }

    static func describe(_ record: AccountRecord) -> String {
        record.alias.map { "\($0) (\(handle(record)))" } ?? handle(record)
    }
}

/// Ctrl-C during a long operation (login): cancels the task instead of killing the process, so
/// the loopback listener closes and nothing is stored.
enum Interrupt {
    /// Runs `operation` as a task that SIGINT (and SIGTERM) cancels; returns its result and
    /// whether it was interrupted.
    static func cancellable<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> (T, interrupted: Bool) {
        let task = Task { await operation() }
        let flag = InterruptFlag()
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                flag.set()
                task.cancel()
            }
            source.resume()
            return source
        }
        let value = await task.value
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        return (value, flag.isSet)
    }
}

final class InterruptFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// Reads all of stdin (client secrets, `decode -`, `api -d @-`).
func readStandardInput() -> Data {
    FileHandle.standardInput.readDataToEndOfFile()
}

/// Whether `url` is plain HTTP on a loopback address (accepted, and marked as such).
/// The engine's one rule: plain http only on a loopback IP literal (127.0.0.0/8, ::1).
func isLoopbackHTTP(_ url: URL) -> Bool { URLPolicy.isLoopbackHTTP(url) }

/// https, or plain http on loopback; anything else is refused with what to do instead.
func checkSecureURL(_ text: String, option: String) throws -> URL {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil else {
        throw CLIFailure.usage("--\(option) '\(text)' is not an absolute URL (expected https://…)")
    }
    if scheme == "https" || isLoopbackHTTP(url) { return url }
    if scheme == "http" {
        throw CLIFailure.usage("--\(option) '\(text)' uses plain http on a non-loopback host; tokens would travel unencrypted. Use the https:// URL (plain http is accepted only on a loopback address: 127.0.0.1 or [::1], not the name localhost).")
    }
    throw CLIFailure.usage("--\(option) '\(text)' must be an https:// URL")
}
