import AppCore
import AppCoreLive
import Synchronization
import AuthEngine
import CredentialStore
import CredentialStoreLive
import Dispatch
import FoundationEssentials
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
    /// `.needsSignIn` → 3, `.storeLocked` → 4, `.storeDamaged` → 5, anything else → 1.
    init(_ error: AppError, hint: String? = nil) {
        let code: Int32
        var next = hint ?? error.nextStep
        switch error.disposition {
        case .needsSignIn:
            code = ExitCode.needsSignIn
            if next == nil { next = "Sign in again with 'authdeck login'." }
        case .storeLocked:
            code = ExitCode.storeLocked
            if next == nil {
                // The passphrase file named and refused (the message says why), else how to give one.
                if let file = CLIContext.current.environment[PassphraseSource.fileVariable], !file.isEmpty {
                    next = PassphraseSource.fileRequirement(path: file) + "."
                } else {
                    next = "Unlock the vault: set AUTHDECK_PASSPHRASE_FILE to a 0600 file holding its passphrase, or run from a terminal to be asked for it."
                }
            }
        case .storeDamaged: code = ExitCode.storeDamaged
        case .other where error.probe != nil:
            code = ExitCode.failure
            if next == nil, let probe = error.probe { next = Self.advice(probe) }
        case .cancelled: code = ExitCode.interrupted
        case .usage: code = ExitCode.usage
        case .transient(let retryAfter): code = ExitCode.failure
            // A local store's timeout brings its own advice (ErrorMapping); this is the network's.
            if next == nil {
                next = retryAfter.map { "This looks temporary: try again in \(Int($0.rounded(.up))) s." } ?? "This looks temporary (network or server); try again."
            }
        default: code = ExitCode.failure
        }
        self.init(error.description, hint: next, exitCode: code)
    }

    /// What to do about a failed discovery probe of `provider add`, in the command line's terms.
    static func advice(_ probe: ProviderProbeFailure) -> String {
        let todo = switch probe.cause {
        case .hostNotFound(let host): "The host name \(host) does not resolve: check the --issuer for a typo, and your DNS or proxy (HTTPS_PROXY)."
        case .noConnection(let host): "Nothing accepted a connection at \(host): check the port, that the provider is running, and your proxy (HTTPS_PROXY, NO_PROXY)."
        case .timeout: "Check the network, a firewall or your proxy."
        case .tls: "For a private CA give its PEM bundle with --ca-bundle PATH (or SSL_CERT_FILE)."
        case .interrupted: "Try again; if it persists, check a proxy in between."
        case .tooLarge: "The answer is not a discovery document: check the --issuer URL."
        case .plainHTTP: "Only loopback addresses may use http: use the provider's https issuer."
        case .cancelled: "The probe was interrupted."
        case .httpStatus: "No discovery document there: check the --issuer (the provider's issuer identifier, exactly as it publishes it), or give the endpoints by hand (--token-endpoint, --authorization-endpoint)."
        case .notJSON: "The --issuer probably points at a web page, not at the provider's issuer."
        case .issuerMismatch(let published, let configured):
            "The document names the issuer '\(published)', not '\(configured)'; issuers compare code unit for code unit: use --issuer \(published) if that is the provider you mean."
        case .invalidDocument: "The discovery document breaks a rule sign-in relies on (above): check the --issuer."
        }
        return todo + " Add --no-probe to add it anyway (offline, or a provider that is not up yet)."
    }

    static func usage(_ message: String) -> CLIFailure { CLIFailure(message, exitCode: ExitCode.usage) }

    /// A usage error (exit 2) with what to do next.
    init(usageMessage: String, hint: String) { self.init(usageMessage, hint: hint, exitCode: ExitCode.usage) }
}

/// stdout carries only the result; everything else goes to stderr.
/// Text from outside (claims, names, server error descriptions) never reaches a terminal raw:
/// control characters and escape sequences are made visible (`\e[2J`) in every text line, on
/// stdout and stderr, piped or not (a pipe often ends in a terminal). The exceptions carry their
/// own encoding: `--json` (JSON escapes control characters) and `api`'s body when piped.
enum Output {
    static let stdoutIsTerminal = isatty(1) == 1

    static func out(_ text: String) {
        raw(Data(visible(text).utf8))
    }

    /// Bytes as they are: JSON documents, and response bodies going to a pipe.
    /// When stdout is closed or cannot take them (`>&-`, `>/dev/full`, EIO), the result did not
    /// reach its reader: one line on stderr and exit 1, never a trap (FileHandle.write traps).
    static func raw(_ data: Data) {
        if let error = writeAll(STDOUT_FILENO, data) {
            writeAll(STDERR_FILENO, Data("authdeck: cannot write the result to standard output: \(describe(errno: error)); check what stdout is redirected to\n".utf8))
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
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { Sanitizer.visible(String($0)) }.joined(separator: "\t")
        }.joined(separator: "\n")
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Pretty, key-sorted JSON (the stable `--json` schema) followed by a newline: jansson's
    /// writer (`JSONValue.serialized(pretty:)`: two-space indentation, integers as integers,
    /// `/` not escaped), no Codable and no `JSONSerialization` (PERFORMANCE.md).
    static func json(_ value: JSONValue) {
        raw(value.serialized(pretty: true) + Data("\n".utf8))
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
        // Date.ISO8601FormatStyle (FoundationEssentials, a value type): UTC, `Z`, whole seconds,
        // the same text as ISO8601DateFormatter's .withInternetDateTime, without building an ICU
        // date formatter per call (most of `status --json`'s time, PERFORMANCE.md).
        date.formatted(rfc3339Style)
    }

    private static let rfc3339Style = Date.ISO8601FormatStyle(timeZone: .gmt)

    /// Whole seconds from `now` to `date` (negative when past), clamped to ±`TimeText.farSeconds`
    /// (an `exp` of 1e300 or an `expires_in` of 2^63 must not trap the conversion).
    static func secondsLeft(_ date: Date, now: Date) -> Int {
        Int(min(max(date.timeIntervalSince(now), -TimeText.farSeconds), TimeText.farSeconds).rounded(.down))
    }
}

/// The process environment and the live environment of the use cases, shared by every
/// subcommand (built once, on first use: `--help` builds nothing).
final class CLIContext: Sendable {
    let environment: [String: String]
    /// The wall clock, the same one the use cases' environment gets (``app``'s `now`): read
    /// without building that environment (`decode` opens no store).
    let now: @Sendable () -> Date
    private let makeApp: @Sendable () -> AppEnvironment
    private let built = Mutex<AppEnvironment?>(nil)

    init(environment: [String: String], now: @escaping @Sendable () -> Date, makeApp: @escaping @Sendable () -> AppEnvironment) {
        self.environment = environment
        self.now = now
        self.makeApp = makeApp
    }

    static let current: CLIContext = {
        let environment = ProcessInfo.processInfo.environment
        let now: @Sendable () -> Date = { Date() }
        return CLIContext(environment: environment, now: now) { AppEnvironment.live(processEnvironment: environment, now: now) }
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
        let snapshot = try run { () throws(AppError) in try LoadAccounts(app).run() }
        for warning in snapshot.warnings { Output.err("warning: \(warning)") }
        return snapshot
    }

    /// Opens the store (asks for the vault passphrase when needed) or fails with exit code 4.
    func unlock() throws {
        try run { () throws(AppError) in try LoadAccounts(app).unlock() }
    }

    /// The account meant by `query` (see ``AccountResolution``), or the default one:
    /// `AUTHDECK_ACCOUNT`, git config, the directory rule, the persisted active account.
    func account(_ query: String?, in snapshot: LoadedSnapshot) throws -> AccountRecord {
        try choice(query, in: snapshot).record
    }

    /// ``account(_:in:)`` and where the choice came from (`which`).
    func choice(_ query: String?, in snapshot: LoadedSnapshot, place: AccountPlace? = nil) throws -> ResolvedAccount {
        do {
            return try Places(app).choose(query, in: snapshot, environmentAccount: environment["AUTHDECK_ACCOUNT"], place: place)
        } catch {
            throw CLIFailure(error, providers: snapshot.providers)
        }
    }
}

extension CLIFailure {
    /// What to run to sign in, for the providers configured: add one first when there is none,
    /// else `login` with the provider's name (the only one, or the choice).
    static func signInAdvice(_ providers: [ProviderConfig]) -> String {
        switch providers.count {
        case 0: "Add a provider with 'authdeck provider add NAME --issuer URL --client-id ID' (or --preset NAME), then sign in with 'authdeck login'."
        case 1: "Sign in with 'authdeck login \(providers[0].id.rawValue)'."
        default: "Sign in with 'authdeck login PROVIDER' (providers: \(commaList(providers.map(\.id.rawValue))))."
        }
    }

    /// An account that could not be resolved (``AccountResolution``), worded for the command line;
    /// the next step of "no account" names the `providers` configured.
    init(_ error: AccountResolutionError, providers: [ProviderConfig]) {
        switch error {
        case .noAccounts:
            self.init("No account is signed in", hint: Self.signInAdvice(providers), exitCode: ExitCode.needsSignIn)
        case .noDefault(let known):
            self.init("No active account among \(known.count) accounts (\(known.joined(separator: ", ")))",
                      hint: "Name one (see 'authdeck status') or pick the default with 'authdeck switch ACCOUNT'.", exitCode: ExitCode.usage)
        case .noMatch(let query, let source, let known):
            self.init("No account matches '\(query)'\(source.settingName.map { " (from \($0))" } ?? "")",
                      hint: "Known accounts: \(known.joined(separator: ", ")). See 'authdeck status'.", exitCode: ExitCode.usage)
        case .ambiguous(let query, let source, let matches):
            self.init("'\(query)'\(source.settingName.map { " (from \($0))" } ?? "") matches several accounts: \(matches.joined(separator: ", "))",
                      hint: "Type more of the name, or use the account id.", exitCode: ExitCode.usage)
        case .ruleAccountMissing(let directory, let account):
            self.init("The rule for \(directory) names \(account), which is not signed in",
                      hint: "Sign in to it again, bind another account with 'authdeck bind ACCOUNT --dir \(directory)', or remove the rule with 'authdeck unbind --dir \(directory)'.",
                      exitCode: ExitCode.usage)
        case .rulesUnreadable(let problem):
            self.init("The directory rules cannot be read (\(problem))",
                      hint: "bindings.json holds only the directory rules ('authdeck bind'): fix it or move it aside, or name the account meanwhile.",
                      exitCode: ExitCode.failure)
        }
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

final class InterruptFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// A secret handed over on stdin (`--client-secret-stdin`, `login --code -`): read from a pipe or
/// file as it is; on a terminal asked for with `prompt` and no echo (never shown as typed).
/// - Throws: ``CLIFailure`` when the terminal cannot be read.
func readSecretFromStandardInput(prompt: String) throws -> String {
    guard isatty(STDIN_FILENO) == 1 else {
        return String(decoding: readStandardInput(), as: UTF8.self).trimmingWhitespaceAndNewlines()
    }
    do {
        return try PassphraseSource.promptWithoutEcho(prompt).trimmingWhitespaceAndNewlines()
    } catch {
        throw CLIFailure("Could not read the secret from the terminal: \(error)", hint: "Pipe it in instead, e.g. '< secret-file'.")
    }
}

/// Reads all of stdin (client secrets, `decode -`, `api -d @-`). A read error (stdin a
/// directory, EIO) is one line on stderr and exit 1, never a trap.
func readStandardInput() -> Data {
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(STDIN_FILENO, &chunk, chunk.count)
        if n > 0 {
            data.append(contentsOf: chunk[0..<n])
        } else if n == 0 {
            return data
        } else if errno != EINTR {
            let code = errno
            Output.err("authdeck: cannot read standard input: \(Output.describe(errno: code))")
            exit(ExitCode.failure)
        }
    }
}

/// The running executable (`/proc/self/exe`), whatever argv[0] says: it may be missing (argc 0,
/// seen under an LD_PRELOAD library), empty (Linux passes "" for an empty argv), or a bare name
/// found through PATH (which would make paths relative to the working directory).
func executableURL() -> URL {
    if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: CommandLine.arguments.first ?? "authdeck")
}

/// Makes sure descriptors 0, 1 and 2 are open before anything else opens a file. A closed one
/// (`authdeck token >&-`) would otherwise be handed to the next file opened (the store, a lock),
/// and a token written to "stdout" would land in that file. A closed 0 is reopened on /dev/null
/// for reading (empty input); a closed 1 or 2 is reopened on /dev/null **read-only**, so it keeps
/// its number taken while writes to it still fail (EBADF) and `Output` reports that stdout is
/// closed instead of pretending the result was delivered.
func reserveStandardDescriptors() {
    for fd in Int32(0)...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
        let opened = open("/dev/null", O_RDONLY)
        if opened >= 0 && opened != fd {
            _ = dup2(opened, fd)
            close(opened)
        }
    }
}

/// Whether `url` is plain HTTP on a loopback address (accepted, and marked as such).
/// The engine's one rule: plain http only on a loopback IP literal (127.0.0.0/8, ::1).
func isLoopbackHTTP(_ url: URL) -> Bool { URLPolicy.isLoopbackHTTP(url) }

/// https, or plain http on loopback, and the configured-URL rules for `role` (no whitespace or
/// control characters, no user info, a real port; for an issuer no query or fragment, for an
/// endpoint no fragment; `.request`, the default for `api URL` and `decode --issuer`, only the
/// general rules): anything else is a usage error saying what to do instead.
/// `named` is how the command line spells the value: `--issuer` for an option, `<url>` for an argument.
func checkSecureURL(_ text: String, named: String, role: URLPolicy.ConfiguredURLRole = .request, hint: String? = nil) throws -> URL {
    switch URLPolicy.validateConfigured(text, role: role) {
    case .success(let url): return url
    case .failure(let violation):
        throw CLIFailure(usageMessage: "\(named) '\(Output.visible(URLPolicy.redactingUserInfo(text)))' \(violation)", hint: hint ?? violation.hint)
    }
}

/// The first violation of a provider configuration as a usage error (`provider add`).
func checkProviderConfig(_ config: ProviderConfig) throws {
    if let violation = config.validate().first { throw CLIFailure(usageMessage: violation.description, hint: violation.hint) }
}
