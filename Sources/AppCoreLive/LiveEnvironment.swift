import AppCore
import AuthEngine
import AuthEngineLive
import CredentialStore
import CredentialStoreLive
import FoundationEssentials
import Glibc
import QuickToken
import TextSupport

/// The composition root: the one place where the edges of ``AppEnvironment`` are made from the
/// live modules (libcurl, libcrypto, the loopback listener, the browser launcher, the credential
/// store backends, the metadata and cache files). The TUI and the CLI each build it once.
extension AppEnvironment {
    /// - Parameters:
    ///   - processEnvironment: XDG paths, `AUTHDECK_STORE`, `$BROWSER`, passphrase sources, …
    ///   - vaultLimits: Argon2id limits for a new vault (tests use cheaper ones).
    ///   - browserTimeout: how long a browser sign-in waits for the redirect.
    ///   - now: the wall clock (the CLI passes the one it reads itself).
    ///   - report: where the events' problems are said (a hook that failed, a damaged ledger):
    ///     the CLI's stderr; nil for the accounts screen (hooks' output to `/dev/null` too).
    public static func live(processEnvironment: [String: String] = ProcessInfo.processInfo.environment,
                            vaultLimits: VaultSecretStore.KDFLimits = .moderate, browserTimeout: Duration = .seconds(300),
                            policy: ExpiryPolicy = .standard, now: @escaping @Sendable () -> Date = { Date() },
                            report: (@Sendable (String) -> Void)? = nil) -> AppEnvironment {
        let paths = XDGPaths(environment: processEnvironment)
        let files = ConfigFiles(paths: paths)
        let browser = BrowserLauncher(environment: processEnvironment)
        var environment = AppEnvironment(
            now: now,
            sleep: { duration in try await Task.sleep(for: duration) },
            crypto: OpenSSLCrypto.live,
            http: { provider in CurlHTTPClient.live(configuration: CurlHTTPConfiguration(caBundlePath: provider?.caBundlePath)) },
            browser: BrowserClient { url in await browser.open(url) },
            loopback: .live,
            credentials: .live(paths: paths, files: files, processEnvironment: processEnvironment, vaultLimits: vaultLimits),
            files: .live(files),
            cache: .live(directory: "\(paths.cacheDirectory)/providers"),
            readKeyFile: { path throws(AppError) in try readKeyFileWithoutFollowingLinks(path) },
            policy: policy,
            browserTimeout: browserTimeout)
        environment.dpopNonces = .live(directory: "\(paths.cacheDirectory)/dpop-nonces")
        environment.place = .live(files)
        environment.git = .live(processEnvironment: processEnvironment)
        environment.readAssertionInput = { input in liveAssertionInput(input, processEnvironment: processEnvironment) }
        environment.presets = { PresetFiles.catalog(environment: processEnvironment) }
        environment.events = .live(paths: paths, processEnvironment: processEnvironment, report: report)
        return environment
    }
}

/// A key file's contents, mode and whether it is a symlink (lstat(2)); a symlink's target is
/// never read.
func readKeyFileWithoutFollowingLinks(_ path: String) throws(AppError) -> AppleKeyFile {
    var status = stat()
    guard lstat(path, &status) == 0 else {
        throw AppError(title: "Cannot read the key file '\(path)'", detail: "Give the path of the AuthKey_<KEYID>.p8 file downloaded from Apple.",
                       disposition: .usage)
    }
    let isLink = status.st_mode & S_IFMT == S_IFLNK
    return AppleKeyFile(path: path, contents: isLink ? Data() : (FileManager.default.contents(atPath: path) ?? Data()),
                        permissions: Int(status.st_mode & 0o7777), isSymbolicLink: isLink)
}

extension LoopbackClient {
    /// RFC 8252 §7.3 listeners on 127.0.0.1 (``LoopbackRedirectListener``).
    static let live = LoopbackClient { (path: String, port: UInt16?) throws(RedirectListenerFailure) -> RedirectListener in
        let listener: LoopbackRedirectListener
        do { listener = try LoopbackRedirectListener(path: path, port: port ?? 0) } catch { throw failure(error) }
        return RedirectListener(
            redirectURI: listener.redirectURI,
            waitForCallback: { (timeout: Duration, decide) async throws(RedirectListenerFailure) -> RedirectCallback in
                do { return try await listener.waitForCallback(timeout: timeout.timeInterval, decide: decide) } catch { throw failure(error) }
            },
            close: { listener.close() })
    }

    private static func failure(_ error: any Error) -> RedirectListenerFailure {
        switch error as? LoopbackListenerError {
        case .timedOut: .timedOut
        case .cancelled: .cancelled
        case .bindFailed(let detail): .failed("could not bind a loopback port: \(detail)")
        case .portBusy(let port, let holder): .portBusy(port: port, holder: holder)
        case .notListening: .failed("the listener is not listening")
        case nil: .failed(String(describing: type(of: error)))
        }
    }
}

extension CredentialStoreClient {
    /// The backend chosen by `AUTHDECK_STORE`, the recorded choice, or a Secret Service probe
    /// (then the vault; nothing when the probe timed out); a probe's choice is recorded in
    /// `store.json` (``StoreSelection/isRecorded``).
    static func live(paths: XDGPaths, files: ConfigFiles, processEnvironment: [String: String],
                     vaultLimits: VaultSecretStore.KDFLimits) -> CredentialStoreClient {
        // Not `Result`: its metadata, made at run time for the closures below, checks `Failure:
        // Error` by scanning every conformance record of the image (2 % of `token`, PERFORMANCE.md).
        enum Selection { case success(StoreSelection), failure(SecretStoreError) }
        let selection: Selection
        let store: (any SecretStore)?
        let recorded = files.recordedStore()
        let storeFile = files.path(.storeChoice)
        do {
            let chosen = try LiveSecretStores.select(environment: processEnvironment, configured: recorded?.kind)
            if chosen.isRecorded { try? files.recordStore(chosen) }
            let made = try LiveSecretStores.make(chosen.kind, paths: paths, environment: processEnvironment, vaultLimits: vaultLimits)
            selection = .success(chosen)
            store = made
        } catch {
            selection = .failure(error)
            store = nil
        }
        @Sendable func opened() throws(AppError) -> any SecretStore {
            switch selection {
            case .success: return store!
            case .failure(let error): throw ErrorMapping.appError(error)
            }
        }
        return CredentialStoreClient(
            info: {
                switch selection {
                case .success(let chosen):
                    // A vault that only a terminal prompt could open now (its key not cached, no
                    // passphrase file or descriptor, e.g. after `authdeck lock`) counts as locked:
                    // `status` reports what a script would meet, and never prompts.
                    let locked = (store as? VaultSecretStore).map { !$0.opensWithoutAsking() } ?? false
                    let reason = switch chosen.reason {
                    case .environment: "\(StoreSelection.environmentVariable)=\(chosen.kind.rawValue)"
                    case .configuration:
                        "recorded in \(storeFile)" + (recorded.flatMap { $0.isRecorded ? " (chosen when \($0.reason.explanation))" : nil } ?? "")
                    case .secretServiceReachable, .secretServiceUnreachable: "\(chosen.reason.explanation); recorded in \(storeFile)"
                    }
                    return StoreInfo(backend: chosen.kind, isLocked: locked, reason: reason)
                case .failure(.timeout(let operation, let seconds)):
                    // The probe did not answer: nothing is chosen, and nothing is locked either.
                    return StoreInfo(backend: nil, problem: "\(operation) timed out after \(seconds) s")
                case .failure(.invalidConfiguration(let cause)):
                    // A bad AUTHDECK_STORE or store.json is a setting to fix, not a locked store.
                    return StoreInfo(backend: nil, problem: cause.description)
                case .failure(let error):
                    return StoreInfo(backend: nil, isLocked: true, problem: error.description)
                }
            },
            store: opened,
            prepareForWrite: { () throws(AppError) in
                // A vault is unlocked or created, a keyring's collection unlocked (its prompt answered).
                let store = try opened()
                do { try store.prepareForWrite() } catch { throw ErrorMapping.appError(error) }
            },
            lockVault: { () throws(AppError) -> Bool in
                guard let vault = try opened() as? VaultSecretStore else { return false }
                vault.forgetKey()
                return true
            },
            changeVaultPassphrase: { () throws(AppError) -> Bool in
                guard let vault = try opened() as? VaultSecretStore else { return false }
                let source: PassphraseSource = processEnvironment["AUTHDECK_NEW_PASSPHRASE_FILE"].map { .file(path: $0) }
                    ?? .terminal(prompt: "New vault passphrase: ")
                do { try vault.changePassphrase(to: source) } catch { throw ErrorMapping.appError(error) }
                return true
            },
            check: {
                switch selection {
                case .failure(let error):
                    return FileHealth(kind: .secrets, path: "credential store", condition: .unreadable(error.description))
                case .success:
                    let store = store!
                    let fileStore = store as? any FileBackedSecretStore
                    let path = fileStore?.path ?? "Secret Service (application=authdeck)"
                    if fileStore != nil, access(path, F_OK) != 0 { return FileHealth(kind: .secrets, path: path, condition: .missing) }
                    // The permissions every read refuses, before asking whether it opens (locked or not).
                    if let problem = fileStore?.permissionProblem() {
                        return FileHealth(kind: .secrets, path: path, condition: .unreadable(problem.description))
                    }
                    if let vault = store as? VaultSecretStore, !vault.opensWithoutAsking() {
                        return FileHealth(kind: .secrets, path: path, condition: .locked("the vault's passphrase is needed to check it"))
                    }
                    // A locked keyring still lists its items: say it is locked (its secrets cannot be read).
                    if let keyring = store as? SecretServiceStore,
                       (try? SecretServiceStore.defaultCollectionState(timeout: keyring.timeout)) == .locked {
                        let reason = "the keyring's default collection is locked; unlock it to check the items"
                        return FileHealth(kind: .secrets, path: path, condition: .locked(reason))
                    }
                    do throws(SecretStoreError) {
                        _ = try store.listAccounts()
                        return FileHealth(kind: .secrets, path: path, condition: .ok)
                    } catch {
                        if let damage = error.damage { return FileHealth(kind: .secrets, path: path, condition: .damaged(damage.description)) }
                        if error.needsUserAction, case .permissionDenied = error {
                            return FileHealth(kind: .secrets, path: path, condition: .unreadable(error.description))
                        }
                        if error.needsUserAction { return FileHealth(kind: .secrets, path: path, condition: .locked(error.description)) }
                        return FileHealth(kind: .secrets, path: path, condition: .unreadable(error.description))
                    }
                }
            },
            moveAside: { now throws(AppError) -> String? in
                guard let fileStore = try opened() as? any FileBackedSecretStore else {
                    throw AppError(title: "The Secret Service keeps its own items",
                                   detail: "There is no file to move aside; remove damaged items with your keyring's tool (e.g. seahorse).")
                }
                do { return try fileStore.moveAside(now: now) } catch { throw ErrorMapping.appError(error) }
            },
            inspect: { info in
                // A file store: the permissions `token` would be refused for (one check, AccountsFile.permissionProblem).
                if let fileStore = store as? any FileBackedSecretStore {
                    var info = info
                    if let problem = fileStore.permissionProblem() { info.problem = problem.description }
                    return info
                }
                guard let keyring = store as? SecretServiceStore else { return info }
                var info = info
                do throws(SecretStoreError) {
                    if try SecretServiceStore.defaultCollectionState(timeout: keyring.timeout) == .locked { info.isLocked = true }
                } catch {
                    if case .locked = error { info.isLocked = true } else { info.problem = error.description }
                }
                return info
            })
    }
}

extension MetadataFiles {
    /// The metadata files alone, for what needs nothing else (shell completion: no credential
    /// store, no network).
    public static func live(processEnvironment: [String: String]) -> MetadataFiles {
        .live(ConfigFiles(paths: XDGPaths(environment: processEnvironment)))
    }

    /// The JSON files of ``ConfigFiles``.
    static func live(_ files: ConfigFiles) -> MetadataFiles {
        @Sendable func mapped<T>(_ body: () throws(SecretStoreError) -> T) throws(AppError) -> T {
            do { return try body() } catch { throw ErrorMapping.appError(error) }
        }
        return MetadataFiles(
            providers: { () throws(AppError) in try mapped { () throws(SecretStoreError) in try files.providers() } },
            saveProvider: { provider throws(AppError) in try mapped { () throws(SecretStoreError) in try files.saveProvider(provider) } },
            updateProvider: { id, change throws(AppError) in
                // Under the file's lock; `list = nil` tells JSONFileStore.update to write nothing.
                var refused: AppError?
                var result: ProviderConfig?
                try mapped { () throws(SecretStoreError) in
                    try files.providersFile.update { (list: inout [ProviderConfig]?) throws(SecretStoreError) in
                        guard let index = list?.firstIndex(where: { $0.id == id }), let read = list?[index] else { list = nil; return }
                        do throws(AppError) { result = try change(read) } catch { refused = error; list = nil; return }
                        list?[index] = result ?? read
                    }
                }
                if let refused { throw refused }
                return result
            },
            removeProvider: { id throws(AppError) in try mapped { () throws(SecretStoreError) in try files.removeProvider(id) } },
            accounts: { () throws(AppError) in try mapped { () throws(SecretStoreError) in try files.accounts() } },
            saveAccount: { record throws(AppError) in try mapped { () throws(SecretStoreError) in try files.saveAccount(record) } },
            updateAccount: { id, change throws(AppError) in
                // Under the file's lock; `list = nil` tells JSONFileStore.update to write nothing.
                var refused: AppError?
                var result: AccountRecord?
                try mapped { () throws(SecretStoreError) in
                    try files.accountsFile.update { (list: inout [AccountRecord]?) throws(SecretStoreError) in
                        guard let index = list?.firstIndex(where: { $0.id == id }), let read = list?[index] else { list = nil; return }
                        var record = read
                        do throws(AppError) { try change(&record) } catch { refused = error; list = nil; return }
                        result = record
                        if record == read { list = nil } else { list?[index] = record }
                    }
                }
                if let refused { throw refused }
                return result
            },
            removeAccount: { id throws(AppError) in try mapped { () throws(SecretStoreError) in try files.removeAccount(id) } },
            activeAccount: { () throws(AppError) in try mapped { () throws(SecretStoreError) in try files.activeAccount() } },
            saveActiveAccount: { id throws(AppError) in try mapped { () throws(SecretStoreError) in try files.saveActiveAccount(id) } },
            check: { kind in files.check(kind) },
            moveAside: { kind, now throws(AppError) in try mapped { () throws(SecretStoreError) in try files.moveAside(kind, now: now) } })
    }
}

extension DPoPNonceCache {
    /// One file per server under `directory` (`<origin, percent-encoded>.json`,
    /// `{"nonce": …, "origin": …}`), 0600 in a 0700 folder, replaced atomically under its lock.
    /// An unreadable or damaged file counts as no nonce (the server asks again); a failed write
    /// only costs the next process one more request.
    static func live(directory: String) -> DPoPNonceCache {
        @Sendable func file(_ origin: String) -> JSONFileStore<String> {
            JSONFileStore(path: "\(directory)/\(ProviderDocumentCache.fileName(origin)).json",
                          read: { (json) throws(JSONShapeError) in try JSONReader(json).string("nonce") },
                          write: { nonce in .object(["nonce": .string(nonce), "origin": .string(origin)]) })
        }
        return DPoPNonceCache(
            load: { origin in
                let store = file(origin)
                var info = stat()
                guard stat(store.path, &info) == 0, info.st_size <= maximumDPoPNonceFileBytes else { return nil }
                return try? store.read()
            },
            save: { origin, nonce in
                let store = file(origin)
                PrivateFiles.removeStaleTempFiles(for: store.path)
                try? store.update { (kept: inout String?) throws(SecretStoreError) in kept = nonce }
            })
    }
}

/// The largest DPoP nonce file read back, in bytes (a nonce is a short token, RFC 9449 §8.1).
let maximumDPoPNonceFileBytes = 16 << 10

/// The largest cached provider document read back, in bytes.
let maximumCachedDocumentBytes = 1 << 20

extension ProviderDocumentCache {
    /// One JSON file per provider and kind under `directory` (0600, atomic, in 0700 folders).
    /// A damaged or unreadable file counts as absent: the document is fetched again.
    static func live(directory: String) -> ProviderDocumentCache {
        @Sendable func file(_ provider: ProviderID, _ kind: CachedDocument.Kind) -> JSONFileStore<CachedDocument> {
            cacheFile("\(directory)/\(folderName(provider))/\(kind.rawValue).json")
        }
        return ProviderDocumentCache(
            load: { provider, kind in
                // No provider document is larger than the HTTP client's limit (1 MiB); a larger
                // file was not written by authdeck and is not read.
                let store = file(provider, kind)
                var info = stat()
                guard stat(store.path, &info) == 0, info.st_size <= maximumCachedDocumentBytes else { return nil }
                return try? store.read()
            },
            save: { provider, document in
                let store = file(provider, document.kind)
                PrivateFiles.removeStaleTempFiles(for: store.path)
                try? store.write(document)
            },
            remove: { provider in
                for kind in CachedDocument.Kind.allCases { unlink(file(provider, kind).path) }
            },
            check: {
                let folders = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                return folders.sorted().flatMap { folder in
                    CachedDocument.Kind.allCases.compactMap { kind -> FileHealth? in
                        let store = cacheFile("\(directory)/\(folder)/\(kind.rawValue).json")
                        switch store.inspect() {
                        case nil: return nil
                        case .success?: return FileHealth(kind: .cache, path: store.path, condition: .ok)
                        case .failure(let error)?:
                            return FileHealth(kind: .cache, path: store.path,
                                              condition: error.damage.map { .damaged($0.description) } ?? .unreadable(error.description))
                        }
                    }
                }
            },
            drop: { path in
                // Only a cache file of this directory (what `check` lists).
                guard path.hasPrefix(directory + "/"), !path.contains("/../"), path.hasSuffix(".json") else { return }
                unlink(path)
            })
    }

    /// One cache file, through ``CachedDocument``'s JSON mapping.
    static func cacheFile(_ path: String) -> JSONFileStore<CachedDocument> {
        JSONFileStore(path: path, read: { (json) throws(JSONShapeError) in try CachedDocument(json: json) }, write: { $0.json })
    }

    /// A provider id as one path component: ASCII letters, digits, `-` and `_` kept, the rest
    /// percent-encoded (so `..` or `/` can never leave the folder).
    static func folderName(_ provider: ProviderID) -> String { fileName(provider.rawValue) }

    /// `text` as one path component: ASCII letters, digits, `-` and `_` kept, the rest
    /// percent-encoded (`%` alone for the empty text).
    static func fileName(_ text: String) -> String {
        let encoded = text.percentEncoded { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        return encoded.isEmpty ? "%" : encoded
    }
}

/// ``AppEnvironment/readAssertionInput``: the variable from `processEnvironment`; the file (links
/// followed: a projected token is a link into `..data`); the command run without a shell, with
/// the environment less `AUTHDECK_*`, stdout read to the end, stopped after 10 s.
func liveAssertionInput(_ input: ClientAssertionSource.Input, processEnvironment: [String: String]) -> String? {
    switch input {
    case .variable(let name): return processEnvironment[name]
    case .file(let path): return FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    case .command(let argv):
        let environment = processEnvironment.filter { !$0.key.hasPrefix("AUTHDECK_") }
        guard let run = GitProcess.run(argv, environment: environment, timeout: .seconds(10)), run.status == 0 else { return nil }
        return run.stdout
    }
}
