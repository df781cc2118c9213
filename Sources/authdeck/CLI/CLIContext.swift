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
        return CLIContext(environment: environment, now: now) {
            AppEnvironment.live(processEnvironment: environment, now: now, report: { Output.err($0) })
        }
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
