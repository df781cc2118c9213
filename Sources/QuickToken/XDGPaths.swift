#if canImport(Glibc)
import Glibc
#endif

/// The XDG base directories authdeck uses, resolved from an environment dictionary (so tests
/// can pass their own). Each `*Home` falls back to the XDG default under `HOME`.
///
/// - `configDirectory`: `$XDG_CONFIG_HOME/authdeck` (config, account metadata, store choice)
/// - `stateDirectory`: `$XDG_STATE_HOME/authdeck` (last errors, logs)
/// - `dataDirectory`: `$XDG_DATA_HOME/authdeck` (the vault or plaintext secrets file)
/// - `cacheDirectory`: `$XDG_CACHE_HOME/authdeck` (providers' discovery documents and JWK Sets)
/// - `runtimeDirectory`: `$XDG_RUNTIME_DIR/authdeck`, nil when `XDG_RUNTIME_DIR` is unset
///   (no fallback: the spec gives none with the right guarantees)
public struct XDGPaths: Sendable, Equatable {
    public var configDirectory: String
    public var stateDirectory: String
    public var dataDirectory: String
    public var cacheDirectory: String
    public var runtimeDirectory: String?

    public static let applicationName = "authdeck"

    public init(configDirectory: String, stateDirectory: String, dataDirectory: String, cacheDirectory: String? = nil, runtimeDirectory: String?) {
        self.configDirectory = configDirectory
        self.stateDirectory = stateDirectory
        self.dataDirectory = dataDirectory
        self.cacheDirectory = cacheDirectory ?? "\(dataDirectory)/cache"
        self.runtimeDirectory = runtimeDirectory
    }

    /// Resolves the directories; relative `XDG_*` values are ignored, as the spec says.
    public init(environment: [String: String]) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.accountHome()
        func base(_ name: String, _ fallback: String) -> String {
            if let value = environment[name], value.hasPrefix("/") { return value }
            return "\(home)/\(fallback)"
        }
        let app = Self.applicationName
        configDirectory = "\(base("XDG_CONFIG_HOME", ".config"))/\(app)"
        stateDirectory = "\(base("XDG_STATE_HOME", ".local/state"))/\(app)"
        dataDirectory = "\(base("XDG_DATA_HOME", ".local/share"))/\(app)"
        cacheDirectory = "\(base("XDG_CACHE_HOME", ".cache"))/\(app)"
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            runtimeDirectory = "\(runtime)/\(app)"
        } else {
            runtimeDirectory = nil
        }
    }

    /// The user's home directory from the password database (`getpwuid_r`), for a process
    /// started without `HOME`; `/` when the database has no entry.
    static func accountHome() -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let directory = entry.pw_dir else { return "/" }
        return String(cString: directory)
    }

    /// The default encrypted vault file.
    public var vaultFile: String { "\(dataDirectory)/secrets.vault" }
    /// The default plaintext secrets file (only when chosen explicitly).
    public var plaintextFile: String { "\(dataDirectory)/secrets.insecure.json" }
    /// Where per-account lock files live for the Secret Service backend (runtime dir when set).
    public var lockDirectory: String { "\(runtimeDirectory ?? stateDirectory)/locks" }
}
