import AuthEngine
import CredentialStore
import FoundationEssentials

extension AppEnvironment {
    /// An environment whose every edge calls `report` with its name and fails: tests replace
    /// only the edges their story uses, so an unexpected network call, browser start or file
    /// write shows up as a test issue (swift-dependencies' `unimplemented`).
    public static func unimplemented(_ report: @escaping @Sendable (String) -> Void) -> AppEnvironment {
        @Sendable func failure(_ name: String) -> AppError {
            report("unimplemented: environment.\(name)")
            return AppError(title: "Unimplemented dependency", detail: "environment.\(name)")
        }
        var environment = AppEnvironment(
            now: { report("unimplemented: environment.now"); return Date(timeIntervalSince1970: 0) },
            sleep: { _ in throw failure("sleep") },
            crypto: CryptoProvider(
                digest: { _, _ in report("unimplemented: environment.crypto.digest"); return Data() },
                randomBytes: { count in report("unimplemented: environment.crypto.randomBytes"); return Data(count: count) },
                verifySignature: { (_: JWSAlgorithm, _: JWK, _: Data, _: Data) throws(SignatureVerificationError) in
                    report("unimplemented: environment.crypto.verifySignature")
                    throw .invalidSignature
                },
                generateKeyPair: { (algorithm: JWSAlgorithm) throws(JWSSigningError) -> JWSKeyPair in
                    report("unimplemented: environment.crypto.generateKeyPair")
                    throw .unsupportedAlgorithm(algorithm)
                },
                sign: { (_: JWSKeyPair, _: Data) throws(JWSSigningError) -> Data in
                    report("unimplemented: environment.crypto.sign")
                    throw .signingFailed("unimplemented")
                },
                readPKCS8P256: { (_: Data) throws(JWSSigningError) -> JWSKeyPair in
                    report("unimplemented: environment.crypto.readPKCS8P256")
                    throw .unusableKey("unimplemented")
                }),
            http: { _ in
                HTTPClient { (request: HTTPRequest) throws(TransportError) -> HTTPResponse in
                    report("unimplemented: environment.http (\(request.method.rawValue) \(request.url.absoluteString))")
                    throw .connection(url: request.url.absoluteString, detail: "unimplemented")
                }
            },
            browser: BrowserClient { _ in report("unimplemented: environment.browser.open"); return false },
            loopback: LoopbackClient { (_: String) throws(RedirectListenerFailure) -> RedirectListener in
                report("unimplemented: environment.loopback.listen")
                throw .failed("unimplemented")
            },
            credentials: CredentialStoreClient(
                info: { report("unimplemented: environment.credentials.info"); return StoreInfo(backend: .memory) },
                store: { () throws(AppError) -> any SecretStore in throw failure("credentials.store") },
                prepareForWrite: { () throws(AppError) in throw failure("credentials.prepareForWrite") },
                lockVault: { () throws(AppError) -> Bool in throw failure("credentials.lockVault") },
                changeVaultPassphrase: { () throws(AppError) -> Bool in throw failure("credentials.changeVaultPassphrase") },
                check: {
                    report("unimplemented: environment.credentials.check")
                    return FileHealth(kind: .secrets, path: "unimplemented", condition: .unreadable("unimplemented"))
                },
                moveAside: { (_: Date) throws(AppError) -> String? in throw failure("credentials.moveAside") }),
            files: MetadataFiles(
                providers: { () throws(AppError) -> [ProviderConfig] in throw failure("files.providers") },
                saveProvider: { (_: ProviderConfig) throws(AppError) in throw failure("files.saveProvider") },
                removeProvider: { (_: ProviderID) throws(AppError) -> Bool in throw failure("files.removeProvider") },
                accounts: { () throws(AppError) -> [AccountRecord] in throw failure("files.accounts") },
                saveAccount: { (_: AccountRecord) throws(AppError) in throw failure("files.saveAccount") },
                removeAccount: { (_: AccountID) throws(AppError) in throw failure("files.removeAccount") },
                activeAccount: { () throws(AppError) -> AccountID? in throw failure("files.activeAccount") },
                saveActiveAccount: { (_: AccountID?) throws(AppError) in throw failure("files.saveActiveAccount") },
                check: { kind in
                    report("unimplemented: environment.files.check(\(kind.rawValue))")
                    return FileHealth(kind: .providers, path: kind.rawValue, condition: .unreadable("unimplemented"))
                },
                moveAside: { (_: MetadataFileKind, _: Date) throws(AppError) -> String? in throw failure("files.moveAside") }),
            cache: ProviderDocumentCache(
                load: { _, kind in report("unimplemented: environment.cache.load(\(kind))"); return nil },
                save: { _, document in report("unimplemented: environment.cache.save(\(document.kind))") },
                remove: { _ in report("unimplemented: environment.cache.remove") },
                check: { report("unimplemented: environment.cache.check"); return [] },
                drop: { _ in report("unimplemented: environment.cache.drop") }),
            readKeyFile: { (_: String) throws(AppError) -> AppleKeyFile in throw failure("readKeyFile") })
        environment.clock = ReportingClock(report: report)
        environment.dpopNonces = DPoPNonceCache(load: { _ in report("unimplemented: environment.dpopNonces.load"); return nil },
                                                save: { _, _ in report("unimplemented: environment.dpopNonces.save") })
        environment.place = PlaceClient(
            currentDirectory: { report("unimplemented: environment.place.currentDirectory"); return nil },
            realPath: { _ in report("unimplemented: environment.place.realPath"); return nil },
            bindings: { () throws(AppError) in throw failure("place.bindings") },
            updateBindings: { _ throws(AppError) in throw failure("place.updateBindings") })
        environment.git = GitClient { arguments, _ in report("unimplemented: environment.git.run(\(arguments.first ?? ""))"); return nil }
        environment.presets = { report("unimplemented: environment.presets"); return PresetCatalog.load(userFiles: []) }
        environment.events = AccountEventsClient(
            configuration: { report("unimplemented: environment.events.configuration"); return CheckConfiguration() },
            ledger: { report("unimplemented: environment.events.ledger"); return CheckLedger() },
            updateLedger: { _ throws(AppError) in throw failure("events.updateLedger") },
            notify: { _, _ in report("unimplemented: environment.events.notify"); return nil },
            runHook: { hook, _ in report("unimplemented: environment.events.runHook(\(hook))") })
        return environment
    }
}

/// The test value's clock: reading or sleeping on it reports "unimplemented: environment.clock";
/// a sleep then throws (as a cancelled wait).
private struct ReportingClock: Clock {
    let report: @Sendable (String) -> Void
    var now: ContinuousClock.Instant {
        report("unimplemented: environment.clock")
        return .now
    }
    var minimumResolution: Duration { .zero }
    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        report("unimplemented: environment.clock")
        throw CancellationError()
    }
}
