import AuthEngine
import CredentialStore
import FoundationEssentials
import Synchronization
import TextSupport

/// Every edge of the world the use cases touch, as one value (swift-dependencies style: structs
/// of closures). The live value is built once, in the composition root (`AppCoreLive`); it is the
/// only place that names libcurl, libcrypto, libsecret, the loopback listener or the browser.
/// Tests build ``unimplemented(_:)`` and set only the edges their story uses: any other edge
/// reports the test issue it is given and fails.
public struct AppEnvironment: Sendable {
    /// The wall clock (time never comes from `Date()` inside a use case).
    public var now: @Sendable () -> Date
    /// Waits (device-flow polling); throws when the task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// The monotonic clock of measured waits: the account lock's (up to ``RefreshAccount/lockWait``).
    /// `ContinuousClock` in the live value; a test's fake one runs a 130 s wait at once.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// Digests, random bytes and JWS signature verification (libcrypto in the live value).
    public var crypto: CryptoProvider
    /// The HTTP client for a provider (its CA bundle), or for no provider (`nil`).
    public var http: @Sendable (_ provider: ProviderConfig?) -> HTTPClient
    public var browser: BrowserClient
    public var loopback: LoopbackClient
    public var credentials: CredentialStoreClient
    public var files: MetadataFiles
    /// Discovery metadata and JWK Sets per provider, kept between processes.
    public var cache: ProviderDocumentCache
    /// The latest DPoP nonce of each server (RFC 9449 §8.2), kept between processes.
    public var dpopNonces: DPoPNonceCache = .none
    /// The directory the process runs in and the directory rules.
    public var place: PlaceClient = .none
    /// git as a child process (`authdeck.account`, `setup-git`).
    public var git: GitClient = .none
    /// The provider presets in effect: the built-in ones, then the user's preset files (read on
    /// each call; a bad file is in ``PresetCatalog/problems``, the others still count).
    public var presets: @Sendable () -> PresetCatalog = { PresetCatalog.load(userFiles: []) }
    /// What is told about accounts (``AccountEvents``): `check.json`, the ledger
    /// `check-state.json`, desktop notifications, hooks.
    public var events: AccountEventsClient = .none
    /// Refresh margin, "expiring soon", backoff.
    public var policy: ExpiryPolicy
    /// How long the browser flow waits for the redirect (RFC 8252 §8.3: bounded).
    public var browserTimeout: Duration
    /// This process's memory of what it already fetched (discovery, JWKS caches).
    let memo = ProcessMemo()
    /// Reads a private-key file the user named (Sign in with Apple's `.p8`) without following
    /// a final symlink; the live value is `FileManager`'s `lstat`-based attributes.
    public var readKeyFile: @Sendable (_ path: String) throws(AppError) -> AppleKeyFile
    /// The text of a federated client assertion's local input, read now: a variable
    /// of this process's environment, a file's contents, a command's stdout (exit 0); nil when it
    /// is not there (unset, no such file, the command failed).
    public var readAssertionInput: @Sendable (ClientAssertionSource.Input) -> String? = { _ in nil }

    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void, crypto: CryptoProvider,
                http: @escaping @Sendable (ProviderConfig?) -> HTTPClient, browser: BrowserClient, loopback: LoopbackClient,
                credentials: CredentialStoreClient, files: MetadataFiles, cache: ProviderDocumentCache,
                readKeyFile: @escaping @Sendable (String) throws(AppError) -> AppleKeyFile,
                policy: ExpiryPolicy = .standard, browserTimeout: Duration = .seconds(300)) {
        self.now = now
        self.sleep = sleep
        self.crypto = crypto
        self.http = http
        self.browser = browser
        self.loopback = loopback
        self.credentials = credentials
        self.files = files
        self.cache = cache
        self.readKeyFile = readKeyFile
        self.policy = policy
        self.browserTimeout = browserTimeout
    }
}

/// Opens a URL in the user's browser.
public struct BrowserClient: Sendable {
    /// Returns whether a browser was started (false: show the URL instead).
    public var open: @Sendable (URL) async -> Bool
    public init(open: @escaping @Sendable (URL) async -> Bool) { self.open = open }
}

/// Why a loopback redirect listener stopped without a callback.
public enum RedirectListenerFailure: Error, Equatable, Sendable {
    case timedOut
    case cancelled
    /// Binding or serving failed; `detail` is the system's text.
    case failed(String)
    /// The exact port asked for is in use on 127.0.0.1; `holder` names what listens there when
    /// it can be known ("pid 4242 (python3)"). Never answered with another port.
    case portBusy(port: UInt16, holder: String?)
}

/// One listening loopback redirect endpoint (RFC 8252 §7.3).
public struct RedirectListener: Sendable {
    /// `http://127.0.0.1:PORT/path`.
    public var redirectURI: URL
    /// Serves requests until `decide` returns `.finish` for one, then returns it.
    public var waitForCallback: @Sendable (_ timeout: Duration, _ decide: @escaping @Sendable (RedirectCallback) -> RedirectCallbackVerdict)
        async throws(RedirectListenerFailure) -> RedirectCallback
    /// Stops listening (idempotent).
    public var close: @Sendable () -> Void

    public init(redirectURI: URL,
                waitForCallback: @escaping @Sendable (Duration, @escaping @Sendable (RedirectCallback) -> RedirectCallbackVerdict)
                    async throws(RedirectListenerFailure) -> RedirectCallback,
                close: @escaping @Sendable () -> Void) {
        self.redirectURI = redirectURI
        self.waitForCallback = waitForCallback
        self.close = close
    }
}

/// Makes loopback redirect listeners.
public struct LoopbackClient: Sendable {
    public init(listen: @escaping @Sendable (String) throws(RedirectListenerFailure) -> RedirectListener) {
        self.bind = { path, _ throws(RedirectListenerFailure) in try listen(path) }
    }

    /// Binds a listener for `path` on exactly `port` (a client registered with the exact redirect
    /// URI, port included; `.portBusy` when it is taken), or on an ephemeral port when nil.
    public var bind: @Sendable (_ path: String, _ port: UInt16?) throws(RedirectListenerFailure) -> RedirectListener
    public init(bind: @escaping @Sendable (String, UInt16?) throws(RedirectListenerFailure) -> RedirectListener) { self.bind = bind }

    /// A listener for `path` (on exactly `port` when given).
    public func listen(_ path: String, port: UInt16? = nil) throws(RedirectListenerFailure) -> RedirectListener { try bind(path, port) }
}

/// The credential store and its administration.
public struct CredentialStoreClient: Sendable {
    /// The backend in use (the header badge, `status`). Cheap: it does not ask the Secret
    /// Service (the token path meets a locked keyring when it loads the secrets).
    public var info: @Sendable () -> StoreInfo
    /// ``info`` completed by asking the store itself, for `status` and the accounts screen: the
    /// Secret Service's default collection locked (`isLocked`) or not answering (`problem`), one
    /// D-Bus round trip. Never prompts.
    public var inspect: @Sendable (StoreInfo) -> StoreInfo
    /// The store; throws when none could be selected.
    public var store: @Sendable () throws(AppError) -> any SecretStore
    /// Makes sure the store can be written now (a vault is unlocked, or created and its passphrase
    /// set), so that no browser is opened for a sign-in whose tokens could not be kept.
    public var prepareForWrite: @Sendable () throws(AppError) -> Void
    /// Forgets the vault's cached key; false when the store is not a vault.
    public var lockVault: @Sendable () throws(AppError) -> Bool
    /// Re-encrypts the vault under a new passphrase; false when the store is not a vault.
    public var changeVaultPassphrase: @Sendable () throws(AppError) -> Bool
    /// The secrets' file (the vault, the plaintext file) or the keyring as `authdeck doctor`
    /// finds it: ok, missing, damaged (how), unreadable or locked. Never prompts.
    public var check: @Sendable () -> FileHealth
    /// Moves the secrets' file aside (same directory, timestamped name, 0600, atomic rename,
    /// under the store lock); returns the new path, nil when there was no file. Throws for a
    /// store without a file (Secret Service).
    public var moveAside: @Sendable (_ now: Date) throws(AppError) -> String?

    public init(info: @escaping @Sendable () -> StoreInfo, store: @escaping @Sendable () throws(AppError) -> any SecretStore,
                prepareForWrite: @escaping @Sendable () throws(AppError) -> Void,
                lockVault: @escaping @Sendable () throws(AppError) -> Bool,
                changeVaultPassphrase: @escaping @Sendable () throws(AppError) -> Bool,
                check: @escaping @Sendable () -> FileHealth,
                moveAside: @escaping @Sendable (Date) throws(AppError) -> String?,
                inspect: @escaping @Sendable (StoreInfo) -> StoreInfo = { $0 }) {
        self.info = info
        self.inspect = inspect
        self.store = store
        self.prepareForWrite = prepareForWrite
        self.lockVault = lockVault
        self.changeVaultPassphrase = changeVaultPassphrase
        self.check = check
        self.moveAside = moveAside
    }
}

/// The non-secret metadata files: providers, account records, the active account.
public struct MetadataFiles: Sendable {
    public var providers: @Sendable () throws(AppError) -> [ProviderConfig]
    /// Adds or replaces a provider (by id).
    public var saveProvider: @Sendable (ProviderConfig) throws(AppError) -> Void
    /// Read-modify-write of one provider: `change` gets the provider `id` as saved and returns it
    /// as it is to be saved (a `change` that throws writes nothing). The live value does it under
    /// the providers file's lock, the lock `saveProvider` and `removeProvider` take.
    /// - Returns: the provider as saved; nil when there is no provider `id` (nothing written).
    public var updateProvider: @Sendable (ProviderID, _ change: (ProviderConfig) throws(AppError) -> ProviderConfig)
        throws(AppError) -> ProviderConfig?
    /// Removes a provider; returns whether it existed.
    public var removeProvider: @Sendable (ProviderID) throws(AppError) -> Bool
    public var accounts: @Sendable () throws(AppError) -> [AccountRecord]
    /// Adds or replaces an account record (by id).
    public var saveAccount: @Sendable (AccountRecord) throws(AppError) -> Void
    /// Read-modify-write of one record: reads the record `id`, lets `change` edit it and writes
    /// the file only when the record changed (a `change` that throws writes nothing). The live
    /// value does it under the accounts file's lock: one read and at most one write of the file.
    /// - Returns: the record as it now is on disk; nil when there is no record `id` (nothing written).
    public var updateAccount: @Sendable (AccountID, _ change: (inout AccountRecord) throws(AppError) -> Void) throws(AppError) -> AccountRecord?
    public var removeAccount: @Sendable (AccountID) throws(AppError) -> Void
    public var activeAccount: @Sendable () throws(AppError) -> AccountID?
    /// Persists the active account (`nil` clears it).
    public var saveActiveAccount: @Sendable (AccountID?) throws(AppError) -> Void
    /// A file's condition (ok, missing, damaged and how, unreadable) and its path; reads only.
    public var check: @Sendable (MetadataFileKind) -> FileHealth
    /// Moves a file aside (same directory, timestamped name, 0600, atomic rename, under the
    /// file's lock); returns the new path, nil when there was no file.
    public var moveAside: @Sendable (MetadataFileKind, _ now: Date) throws(AppError) -> String?

    public init(providers: @escaping @Sendable () throws(AppError) -> [ProviderConfig],
                saveProvider: @escaping @Sendable (ProviderConfig) throws(AppError) -> Void,
                updateProvider: (@Sendable (ProviderID, (ProviderConfig) throws(AppError) -> ProviderConfig)
                    throws(AppError) -> ProviderConfig?)? = nil,
                removeProvider: @escaping @Sendable (ProviderID) throws(AppError) -> Bool,
                accounts: @escaping @Sendable () throws(AppError) -> [AccountRecord],
                saveAccount: @escaping @Sendable (AccountRecord) throws(AppError) -> Void,
                updateAccount: (@Sendable (AccountID, (inout AccountRecord) throws(AppError) -> Void) throws(AppError) -> AccountRecord?)? = nil,
                removeAccount: @escaping @Sendable (AccountID) throws(AppError) -> Void,
                activeAccount: @escaping @Sendable () throws(AppError) -> AccountID?,
                saveActiveAccount: @escaping @Sendable (AccountID?) throws(AppError) -> Void,
                check: @escaping @Sendable (MetadataFileKind) -> FileHealth,
                moveAside: @escaping @Sendable (MetadataFileKind, Date) throws(AppError) -> String?) {
        self.providers = providers
        self.saveProvider = saveProvider
        // Without one of its own: `providers` then `saveProvider` (not atomic across processes).
        if let updateProvider {
            self.updateProvider = updateProvider
        } else {
            self.updateProvider = { (id: ProviderID, change: (ProviderConfig) throws(AppError) -> ProviderConfig)
                throws(AppError) -> ProviderConfig? in
                guard let read = try providers().first(where: { $0.id == id }) else { return nil }
                let changed = try change(read)
                try saveProvider(changed)
                return changed
            }
        }
        self.removeProvider = removeProvider
        self.accounts = accounts
        self.saveAccount = saveAccount
        // Without one of its own: `accounts` then `saveAccount` when changed (not atomic across
        // processes; the in-memory worlds of the tests have one process).
        if let updateAccount {
            self.updateAccount = updateAccount
        } else {
            self.updateAccount = { (id: AccountID, change: (inout AccountRecord) throws(AppError) -> Void) throws(AppError) -> AccountRecord? in
                try Self.update(id, change, accounts: accounts, saveAccount: saveAccount)
            }
        }
        self.removeAccount = removeAccount
        self.activeAccount = activeAccount
        self.saveActiveAccount = saveActiveAccount
        self.check = check
        self.moveAside = moveAside
    }
}

extension MetadataFiles {
    /// ``updateAccount`` from `accounts` and `saveAccount`: read, change, save when changed.
    static func update(_ id: AccountID, _ change: (inout AccountRecord) throws(AppError) -> Void,
                       accounts: () throws(AppError) -> [AccountRecord],
                       saveAccount: (AccountRecord) throws(AppError) -> Void) throws(AppError) -> AccountRecord? {
        guard let read = try accounts().first(where: { $0.id == id }) else { return nil }
        var record = read
        try change(&record)
        if record != read { try saveAccount(record) }
        return record
    }
}

/// A provider document kept between processes (0600, written atomically by the live value).
public struct CachedDocument: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The discovery document (OIDC Discovery §4, RFC 8414 §3).
        case discovery
        /// The JWK Set at `jwks_uri` (RFC 7517 §5).
        case jwks
    }
    public var kind: Kind
    /// The URL it was fetched from; a document from another URL is not used.
    public var url: String
    /// The response body as received (UTF-8 JSON).
    public var body: String
    public var fetchedAt: Date
    /// How long it stays fresh, from `Cache-Control: max-age` within ``ProviderDocumentCache/freshness(cacheControl:)``.
    public var maxAgeSeconds: Int
    /// A JWK Set fetched because a token's `kid` was not in the cached one: the unknown-key
    /// cool-down (``JWKSCache/unknownKeyCooldown``) runs from `fetchedAt`.
    public var forKeyLookup: Bool

    public init(kind: Kind, url: String, body: String, fetchedAt: Date, maxAgeSeconds: Int, forKeyLookup: Bool = false) {
        self.kind = kind
        self.url = url
        self.body = body
        self.fetchedAt = fetchedAt
        self.maxAgeSeconds = maxAgeSeconds
        self.forKeyLookup = forKeyLookup
    }

    /// Whether it is still fresh at `now`.
    public func isFresh(at now: Date) -> Bool {
        let age = now.timeIntervalSince(fetchedAt)
        return age >= 0 && age < Double(maxAgeSeconds)
    }
}

/// Discovery metadata and JWK Sets per provider, kept between processes.
public struct ProviderDocumentCache: Sendable {
    public var load: @Sendable (ProviderID, CachedDocument.Kind) -> CachedDocument?
    public var save: @Sendable (ProviderID, CachedDocument) -> Void
    /// Drops everything kept for a provider (`provider remove`, `provider add` replacing it).
    public var remove: @Sendable (ProviderID) -> Void
    /// Every cache file and its condition (`authdeck doctor`); reads only.
    public var check: @Sendable () -> [FileHealth]
    /// Deletes one cache file named by ``check`` (a damaged one: it is fetched again when needed).
    public var drop: @Sendable (_ path: String) -> Void

    public init(load: @escaping @Sendable (ProviderID, CachedDocument.Kind) -> CachedDocument?,
                save: @escaping @Sendable (ProviderID, CachedDocument) -> Void,
                remove: @escaping @Sendable (ProviderID) -> Void,
                check: @escaping @Sendable () -> [FileHealth],
                drop: @escaping @Sendable (String) -> Void) {
        self.load = load
        self.save = save
        self.remove = remove
        self.check = check
        self.drop = drop
    }

    /// No cache: every process fetches again.
    public static let none = ProviderDocumentCache(load: { _, _ in nil }, save: { _, _ in }, remove: { _ in }, check: { [] }, drop: { _ in })

    /// Freshness when the response has no usable `Cache-Control: max-age`.
    public static let defaultMaxAge = 86_400
    /// Bounds on a server's `max-age`: at least 5 minutes (no refetch storm on `max-age=0`),
    /// at most 7 days.
    public static let maxAgeBounds = 300...604_800

    /// The freshness lifetime in seconds for a `Cache-Control` header value (RFC 9111 §5.2.2.1):
    /// `max-age=N` clamped to ``maxAgeBounds``, else ``defaultMaxAge``.
    public static func freshness(cacheControl: String?) -> Int {
        guard let cacheControl else { return defaultMaxAge }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1].trimming(where: { $0 == "\"" })) {
                return min(max(seconds, maxAgeBounds.lowerBound), maxAgeBounds.upperBound)
            }
        }
        return defaultMaxAge
    }
}

/// The latest `DPoP-Nonce` of each server (origin: ``DPoPNonceStore/origin(_:)``), kept between
/// processes (the live value: one 0600 file per server in the cache directory, written
/// atomically under its lock). A nonce is no secret (the server sends it in the clear and
/// expects it back), but it is never logged either.
public typealias DPoPNonceCache = DPoPNonceStore.Persistence

extension DPoPNonceStore.Persistence {
    /// Nothing kept: each process learns the nonce again.
    public static let none = DPoPNonceCache(load: { _ in nil }, save: { _, _ in })
}

/// What one process has fetched already: discovery metadata and a JWKS cache per provider,
/// each for the provider configuration it was made from (a provider removed and added again
/// with another issuer is resolved anew), the metadata for at most ``metadataLifetime``.
final class ProcessMemo: Sendable {
    struct Metadata: Sendable {
        var config: ProviderConfig
        var metadata: AuthorizationServerMetadata
        var until: Date
    }
    struct JWKS: Sendable {
        var config: ProviderConfig
        var jwksURI: URL?
        var cache: JWKSCache
    }
    /// How long a long-running process (the TUI) keeps metadata before looking again (the
    /// document cache then answers without a request while it is fresh).
    static let metadataLifetime: TimeInterval = 300
    let metadata = Mutex<[ProviderID: Metadata]>([:])
    let jwks = Mutex<[ProviderID: JWKS]>([:])
    /// The process's DPoP nonces (made on first use over ``AppEnvironment/dpopNonces``).
    let dpopNonces = Mutex<DPoPNonceStore?>(nil)
}
