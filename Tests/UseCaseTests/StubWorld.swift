import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// The start instant of every story.
let t0 = Date(timeIntervalSince1970: 1_900_000_000)

/// A world for the use cases with no network, no files and no terminal: metadata and secrets in
/// memory, a scripted provider (``StubProvider``) behind the HTTP edge, a browser and a loopback
/// listener that act as the user would, and a clock the test moves. Edges a story does not use
/// stay ``AppEnvironment/unimplemented(_:)`` and record a test issue when touched.
final class StubWorld: Sendable {
    struct Files: Sendable {
        var providers: [ProviderConfig] = []
        var accounts: [AccountRecord] = []
        var active: AccountID?
    }

    let provider: StubProvider
    let secrets: InMemorySecretStore
    let files = Mutex(Files())
    /// The document cache, shared by every "process" (environment) made from this world.
    let cache = Mutex<[String: CachedDocument]>([:])
    /// The DPoP nonces kept between "processes", by origin, and how many times one was saved.
    let dpopNonces = Mutex<[String: String]>([:])
    let dpopNonceSaves = Mutex(0)
    let clock = Mutex(t0)
    let browserOpened = Mutex<[URL]>([])
    /// Where the browser went on from a page of the listener (a 303), in order.
    let browserFollowed = Mutex<[URL]>([])
    let sleeps = Mutex<[Duration]>([])
    /// What the user does in the browser with an authorization URL: the callback parameters
    /// the listener then receives (several: the listener decides on each in turn).
    let browserAction = Mutex<@Sendable (URL) -> [[(name: String, value: String)]]>({ _ in [] })
    /// Checked when a browser opens (e.g. that local secrets are already gone at logout).
    let onBrowserOpen = Mutex<@Sendable (URL) -> Void>({ _ in })
    let storeWritable = Mutex(true)
    /// More providers, by host (the HTTP edge routes by the request's host).
    let others = Mutex<[String: StubProvider]>([:])
    /// The place: the current directory (a real path), symlinks (link → target), the directory
    /// rules, and what `git` answers (arguments and directory → run; nil: no git).
    let directory = Mutex<String?>(nil)
    let symlinks = Mutex<[String: String]>([:])
    let bindings = Mutex<[DirectoryBinding]>([])
    let git = Mutex<@Sendable ([String], String?) -> GitRun?>({ _, _ in nil })
    /// What is told about accounts: `check.json`, the ledger between "processes", each hook run
    /// (as `hook event account`), each notification (as `event account replacing`) and the ledger writes.
    let checkConfiguration = Mutex(CheckConfiguration())
    let ledger = Mutex(CheckLedger())
    let ledgerWrites = Mutex(0)
    /// Set: the ledger cannot be kept (a directory, a link), `updateLedger` throws it.
    let ledgerUnusable = Mutex<AppError?>(nil)
    let hooksRun = Mutex<[String]>([])
    let notifications = Mutex<[String]>([])

    init(provider: StubProvider = StubProvider(), secrets: InMemorySecretStore = InMemorySecretStore()) {
        self.provider = provider
        self.secrets = secrets
        files.withLock { $0.providers = [provider.config] }
    }

    var now: Date { clock.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { clock.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// A new "process": a fresh environment (empty in-process memo) over the same world.
    func environment(policy: ExpiryPolicy = .standard) -> AppEnvironment {
        var env = AppEnvironment.unimplemented { message in Issue.record(Comment(rawValue: message)) }
        env.policy = policy
        env.browserTimeout = .seconds(5)
        env.now = { [self] in clock.withLock { $0 } }
        env.sleep = { [self] duration in
            sleeps.withLock { $0.append(duration) }
            clock.withLock { $0 = $0.addingTimeInterval(duration.timeInterval) }
        }
        // Lock waits are real (short) waits: a story holding a lock for a while wants them so.
        env.clock = ContinuousClock()
        env.crypto = StubCrypto.provider
        env.http = { [self] _ in
            HTTPClient { request in
                let provider = self.others.withLock { $0[request.url.host ?? ""] } ?? self.provider
                return provider.handle(request, now: self.clock.withLock { $0 })
            }
        }
        env.browser = BrowserClient { [self] url in
            browserOpened.withLock { $0.append(url) }
            onBrowserOpen.withLock { $0 }(url)
            return true
        }
        env.loopback = LoopbackClient { [self] path in
            let redirectURI = URL(string: "http://127.0.0.1:49152\(path)")!
            return RedirectListener(
                redirectURI: redirectURI,
                waitForCallback: { (_: Duration, decide) async throws(RedirectListenerFailure) -> RedirectCallback in
                    guard var url = self.browserOpened.withLock({ $0.last }) else { throw .timedOut }
                    // A page of the listener itself (sign-out's one-time start page): the browser
                    // gets it, and follows a 303 as a browser does.
                    if url.host == "127.0.0.1", url.port == 49152,
                       case .respond(.redirect(let next)) = decide(RedirectCallback(method: "GET", path: url.path, parameters: [], peer: .sameUser)) {
                        self.browserFollowed.withLock { $0.append(next) }
                        self.onBrowserOpen.withLock { $0 }(next)
                        url = next
                    }
                    for parameters in self.browserAction.withLock({ $0 })(url) {
                        let callback = RedirectCallback(method: "GET", path: path, parameters: parameters)
                        if case .finish = decide(callback) { return callback }
                    }
                    throw .timedOut
                },
                close: {})
        }
        env.credentials = CredentialStoreClient(
            info: { StoreInfo(backend: .memory) },
            store: { [secrets] in secrets },
            prepareForWrite: { [self] () throws(AppError) in
                guard storeWritable.withLock({ $0 }) else {
                    throw AppError(title: "The credential store is locked", detail: "no passphrase", disposition: .storeLocked)
                }
            },
            lockVault: { false },
            changeVaultPassphrase: { false },
            // Doctor's edges stay the failing test value's (DoctorTests sets them).
            check: env.credentials.check,
            moveAside: env.credentials.moveAside)
        env.files = MetadataFiles(
            providers: { [self] in files.withLock { $0.providers } },
            saveProvider: { [self] provider in files.withLock { $0.providers.removeAll { $0.id == provider.id }; $0.providers.append(provider) } },
            removeProvider: { [self] id in files.withLock { state in
                let existed = state.providers.contains { $0.id == id }
                state.providers.removeAll { $0.id == id }
                return existed
            } },
            accounts: { [self] in files.withLock { $0.accounts } },
            saveAccount: { [self] record in files.withLock { $0.accounts.removeAll { $0.id == record.id }; $0.accounts.append(record) } },
            removeAccount: { [self] id in files.withLock { $0.accounts.removeAll { $0.id == id } } },
            activeAccount: { [self] in files.withLock { $0.active } },
            saveActiveAccount: { [self] id in files.withLock { $0.active = id } },
            check: env.files.check,
            moveAside: env.files.moveAside)
        env.cache = ProviderDocumentCache(
            load: { [self] provider, kind in cache.withLock { $0["\(provider)/\(kind)"] } },
            save: { [self] provider, document in cache.withLock { $0["\(provider)/\(document.kind)"] = document } },
            remove: { [self] provider in cache.withLock { store in for kind in CachedDocument.Kind.allCases { store["\(provider)/\(kind)"] = nil } } },
            check: env.cache.check,
            drop: env.cache.drop)
        env.place = PlaceClient(
            currentDirectory: { [self] in directory.withLock { $0 } },
            realPath: { [self] path in
                // Links resolved by the longest linked prefix; a path under no link is itself.
                let links = symlinks.withLock { $0 }
                guard let link = links.keys.filter({ DirectoryBinding.path(path, isWithin: $0) }).max(by: { $0.count < $1.count }), let target = links[link] else { return path }
                return target + path.dropFirst(link.count)
            },
            bindings: { [self] in bindings.withLock { $0 } },
            updateBindings: { [self] change in bindings.withLock { change(&$0) } })
        env.git = GitClient { [self] arguments, directory in git.withLock { $0 }(arguments, directory) }
        env.events = AccountEventsClient(
            configuration: { [self] in checkConfiguration.withLock { $0 } },
            ledger: { [self] in ledger.withLock { $0 } },
            updateLedger: { [self] body throws(AppError) in
                if let error = ledgerUnusable.withLock({ $0 }) { throw error }
                ledger.withLock { value in
                    let before = value
                    body(&value)
                    if value != before { ledgerWrites.withLock { $0 += 1 } }
                }
            },
            notify: { [self] told, replacing in
                notifications.withLock { list in
                    list.append("\(told.event.rawValue) \(told.account.rawValue) \(replacing)")
                    return UInt32(list.count)
                }
            },
            runHook: { [self] hook, told in hooksRun.withLock { $0.append("\(hook) \(told.event.rawValue) \(told.account.rawValue)") } })
        env.dpopNonces = DPoPNonceCache(
            load: { [self] origin in dpopNonces.withLock { $0[origin] } },
            save: { [self] origin, nonce in
                dpopNonces.withLock { $0[origin] = nonce }
                dpopNonceSaves.withLock { $0 += 1 }
            })
        return env
    }

    /// The browser approves: the callback carries a code and the sent `state` (and `iss`).
    func approveInBrowser(as subject: String = "alice") {
        let provider = self.provider
        browserAction.withLock {
            $0 = { url in
                let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
                // RFC 9126 §4: a pushed request arrives as `request_uri`; its parameters were pushed.
                let pushed = query.first { $0.name == "request_uri" }?.value.flatMap(provider.pushedParameters)
                let state = pushed?["state"] ?? query.first { $0.name == "state" }?.value ?? ""
                let nonce = pushed?["nonce"] ?? query.first { $0.name == "nonce" }?.value
                let code = provider.issueCode(subject: subject, nonce: nonce)
                return [[("code", code), ("state", state), ("iss", provider.issuer)]]
            }
        }
    }

    var accounts: [AccountRecord] { files.withLock { $0.accounts } }
    var active: AccountID? { files.withLock { $0.active } }
    func storedSecrets(_ subject: String = "alice") -> AccountSecrets? {
        try? secrets.loadIfPresent(AccountKey(provider: provider.config.id.rawValue, account: subject))
    }
}

/// Digests, random bytes and signatures for the stories, without real cryptography: a signature
/// verifies exactly when it is `valid-signature`; digests are a fixed function of the input
/// (the stories never depend on a hash value's security, only on equality).
enum StubCrypto {
    static let validSignature = Data("valid-signature".utf8)
    static let counter = Mutex<UInt8>(0)

    static var provider: CryptoProvider {
        CryptoProvider(
            digest: { _, data in
                var out = [UInt8](repeating: 0, count: 32)
                for (index, byte) in data.enumerated() { out[index % 32] = out[index % 32] &+ byte &+ UInt8(index % 251) }
                return Data(out)
            },
            randomBytes: { count in
                let value = counter.withLock { value -> UInt8 in
                    value &+= 1
                    return value
                }
                return Data(repeating: value, count: count)
            },
            verifySignature: { (_: JWSAlgorithm, _: JWK, _: Data, signature: Data) throws(SignatureVerificationError) in
                guard signature == validSignature else { throw .invalidSignature }
            },
            generateKeyPair: { (algorithm: JWSAlgorithm) throws(JWSSigningError) -> JWSKeyPair in
                // A distinct public key per call; the stub signature does not depend on it.
                let x = counter.withLock { value -> Data in
                    value &+= 1
                    return Data(repeating: value, count: 32)
                }
                return JWSKeyPair(algorithm: algorithm, publicKey: JWK(keyType: "EC", curve: "P-256", x: x, y: Data(repeating: 7, count: 32)),
                                  privateKey: JWSPrivateKey("stub-private-key"))
            },
            sign: { (_: JWSKeyPair, _: Data) throws(JWSSigningError) -> Data in validSignature },
            readPKCS8P256: { (_: Data) throws(JWSSigningError) -> JWSKeyPair in
                Issue.record("unimplemented: environment.crypto.readPKCS8P256 (set it in the story)")
                throw .unusableKey("unimplemented")
            })
    }
}
