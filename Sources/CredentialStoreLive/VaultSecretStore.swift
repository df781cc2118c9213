import CSodium
import CredentialStore
import FoundationEssentials
import Synchronization

/// The encrypted file vault: every account's secret set in one file, encrypted with
/// XChaCha20-Poly1305 under a key derived from a passphrase with Argon2id (format in
/// ``VaultHeader``).
///
/// **One file for all accounts**, not one per account: one salt and one derivation unlock
/// everything; a passphrase change is a single atomic rename (with a file per account it could
/// not be atomic); listing needs no directory scan. The cost, a read-modify-write of the whole
/// file per save, is covered by the store-level lock (see ``AccountsFile``) and is small
/// (see PERFORMANCE.md).
///
/// The passphrase is stretched **once per unlock**: the derived key is kept in this object and in
/// the ``VaultKeyCache`` for ``keyCacheTTL``; every write re-encrypts with that key and a fresh
/// random nonce (the salt and key check stay), never a new Argon2id derivation.
public final class VaultSecretStore: SecretStore {
    /// Argon2id cost. Production uses ``moderate``; tests use ``interactive`` or ``minimum``.
    public struct KDFLimits: Sendable, Equatable {
        public var opsLimit: UInt64
        /// Bytes.
        public var memLimit: UInt64

        public init(opsLimit: UInt64, memLimit: UInt64) {
            self.opsLimit = opsLimit
            self.memLimit = memLimit
        }

        /// libsodium MODERATE: 3 passes, 256 MiB (about 0.45 s here).
        public static let moderate = KDFLimits(opsLimit: UInt64(crypto_pwhash_OPSLIMIT_MODERATE),
                                               memLimit: UInt64(crypto_pwhash_MEMLIMIT_MODERATE))
        /// libsodium INTERACTIVE: 2 passes, 64 MiB (about 70 ms).
        public static let interactive = KDFLimits(opsLimit: UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
                                                  memLimit: UInt64(crypto_pwhash_MEMLIMIT_INTERACTIVE))
        /// libsodium MIN: 1 pass, 8 KiB. Tests only.
        public static let minimum = KDFLimits(opsLimit: UInt64(crypto_pwhash_OPSLIMIT_MIN), memLimit: UInt64(crypto_pwhash_MEMLIMIT_MIN))
    }

    public let path: String
    public let passphrase: PassphraseSource
    /// Limits for a new vault and for a passphrase change (an existing vault keeps its own).
    public let newVaultLimits: KDFLimits
    public let keyCache: any VaultKeyCache
    public let keyCacheTTL: Duration

    let file: AccountsFile
    private let unlocked = Mutex<VaultKeys?>(nil)
    private let derivationCount = Atomic<Int>(0)

    public var kind: SecretStoreKind { .vault }

    /// - Parameters:
    ///   - path: the vault file (its directory must be 0700 and owned by the user).
    ///   - passphrase: asked only when neither this object nor `keyCache` holds the key.
    ///   - keyCacheTTL: how long a derived key stays in `keyCache` (whole seconds); zero or less
    ///     disables the cache (nothing put or read; ``forgetKey()`` still removes old entries).
    public init(
        path: String,
        passphrase: PassphraseSource,
        newVaultLimits: KDFLimits = .moderate,
        keyCache: any VaultKeyCache = NoVaultKeyCache(),
        keyCacheTTL: Duration = .seconds(900)
    ) {
        self.path = path
        self.passphrase = passphrase
        self.newVaultLimits = newVaultLimits
        self.keyCache = keyCache
        self.keyCacheTTL = keyCacheTTL
        file = AccountsFile(path: path)
    }

    /// How many Argon2id derivations this object has run (tests assert "once per unlock").
    public var derivations: Int { derivationCount.load(ordering: .relaxed) }

    // MARK: SecretStore

    public func load(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets {
        guard let bytes = try file.read() else { throw .notFound(key) }
        guard let secrets = try open(bytes).document.secrets(for: key, path: path) else { throw .notFound(key) }
        return secrets
    }

    public func save(_ secrets: AccountSecrets, for key: AccountKey) throws(SecretStoreError) {
        try file.update { (bytes) throws(SecretStoreError) in
            if let bytes {
                var (header, keys, document) = try open(bytes)
                document.set(secrets, for: key)
                return seal(document, keys: keys, limits: KDFLimits(opsLimit: header.opsLimit, memLimit: header.memLimit))
            }
            let keys = try newKeys(limits: newVaultLimits, source: passphrase, creating: true)
            var document = VaultRecords()
            document.set(secrets, for: key)
            let sealed = seal(document, keys: keys, limits: newVaultLimits)
            remember(keys)
            return sealed
        }
    }

    /// Saves several secret sets in one read-modify-write (one atomic replacement): importing
    /// from another backend, or filling a benchmark vault.
    public func saveAll(_ entries: [AccountKey: AccountSecrets]) throws(SecretStoreError) {
        try file.update { (bytes) throws(SecretStoreError) in
            var keys: VaultKeys
            var limits = newVaultLimits
            var document = VaultRecords()
            if let bytes {
                let opened = try open(bytes)
                (keys, document) = (opened.keys, opened.document)
                limits = KDFLimits(opsLimit: opened.header.opsLimit, memLimit: opened.header.memLimit)
            } else {
                keys = try newKeys(limits: newVaultLimits, source: passphrase, creating: true)
                remember(keys)
            }
            for (key, secrets) in entries.sorted(by: { $0.key < $1.key }) { document.set(secrets, for: key) }
            return seal(document, keys: keys, limits: limits)
        }
    }

    public func delete(_ key: AccountKey) throws(SecretStoreError) {
        try file.update { (bytes) throws(SecretStoreError) in
            guard let bytes else { return nil }
            var (header, keys, document) = try open(bytes)
            guard document.contains(key) else { return nil }
            document.set(nil, for: key)
            return seal(document, keys: keys, limits: KDFLimits(opsLimit: header.opsLimit, memLimit: header.memLimit))
        }
    }

    public func listAccounts() throws(SecretStoreError) -> [AccountKey] {
        guard let bytes = try file.read() else { return [] }
        return try open(bytes).document.keys
    }

    public func tryLockAccount(_ key: AccountKey) throws(SecretStoreError) -> (any AccountLockHandle)? {
        try PrivateFiles.ensureDirectory(file.directory)
        return try file.accountLocks.tryLock(key)
    }

    // MARK: Vault operations

    /// True when the vault file exists.
    public var exists: Bool { (try? file.read()) != nil }

    /// Unlocks an existing vault, or creates a new one (its passphrase set) before anything is stored in it.
    public func prepareForWrite() throws(SecretStoreError) {
        if exists { try unlock() } else { try saveAll([:]) }
    }

    /// Unlocks now (asks for the passphrase unless this object or the key cache holds the key)
    /// and caches the key. Does nothing when the vault does not exist yet (it is created, with a
    /// new passphrase, by the first save).
    /// - Throws: ``SecretStoreError/wrongPassphrase(file:)``, ``SecretStoreError/corrupt(file:reason:)``,
    ///   ``SecretStoreError/truncated(file:expectedBytes:actualBytes:)``, `permissionDenied`, `passphraseUnavailable`.
    public func unlock() throws(SecretStoreError) {
        guard let bytes = try file.read() else { return }
        _ = try open(bytes)
    }

    /// Whether the vault can be opened right now without asking anyone: there is no vault yet,
    /// or its key is held here or in the key cache, or the passphrase source is a file or a
    /// descriptor that opens it (then the key is cached). False when only a terminal prompt
    /// could open it, or the file source is refused or wrong: `status` reports that as locked
    /// (after `authdeck lock` with no passphrase source). Never prompts. A damaged vault is not
    /// "locked" (true here; reading it reports the damage).
    public func opensWithoutAsking() -> Bool {
        guard let bytes = try? file.read(), let header = try? VaultHeader.decode(bytes, path: path) else { return true }
        if let keys = unlocked.withLock({ $0 }), keys.salt == header.salt, Self.same(keys.keyCheck, header.keyCheck) { return true }
        if keyCacheTTL > .zero, let master = keyCache.get(VaultKeys.cacheID(salt: header.salt)),
           Self.same(VaultKeys(master: master, salt: header.salt).keyCheck, header.keyCheck) {
            return true
        }
        if case .terminal = passphrase { return false }
        do {
            _ = try open(bytes)
            return true
        } catch {
            if case .corrupt = error { return true }
            if case .truncated = error { return true }
            return false
        }
    }

    /// Forgets the derived key here and in the key cache (`authdeck lock`).
    public func forgetKey() {
        let keys = unlocked.withLock { value -> VaultKeys? in
            defer { value = nil }
            return value
        }
        if let keys { keyCache.remove(keys.cacheID) }
        if let bytes = try? file.read(), let header = try? VaultHeader.decode(bytes, path: path) {
            keyCache.remove(VaultKeys.cacheID(salt: header.salt))
        }
    }

    /// Re-encrypts the vault under `newPassphrase` (a new salt, ``newVaultLimits``), atomically:
    /// until the rename the old file is intact. The old key is removed from the cache and the new
    /// one cached. A terminal source asks for the new passphrase twice.
    /// - Throws: `io` when there is no vault yet; for the current passphrase
    ///   ``SecretStoreError/wrongPassphrase(file:)``; `corrupt`, `truncated`, `passphraseUnavailable`.
    public func changePassphrase(to newPassphrase: PassphraseSource) throws(SecretStoreError) {
        var replaced: (old: VaultKeys, new: VaultKeys)?
        try file.update { (bytes) throws(SecretStoreError) in
            guard let bytes else {
                throw .io(file: path, operation: "change passphrase of", cause: .init("no vault yet"))
            }
            let (_, oldKeys, document) = try open(bytes)
            let newKeys = try newKeys(limits: newVaultLimits, source: newPassphrase, creating: false)
            replaced = (oldKeys, newKeys)
            return seal(document, keys: newKeys, limits: newVaultLimits)
        }
        if let replaced {
            keyCache.remove(replaced.old.cacheID)
            remember(replaced.new)
        }
    }

    // MARK: Internals

    /// Checks, unlocks (memory → cache → passphrase) and decrypts a vault file.
    func open(_ bytes: [UInt8]) throws(SecretStoreError) -> (header: VaultHeader, keys: VaultKeys, document: VaultRecords) {
        let header = try VaultHeader.decode(bytes, path: path)
        let keys = try keys(for: header)
        let additionalData = Array(bytes[0..<VaultHeader.length])
        let sealed = bytes[VaultHeader.length...]
        guard var plaintext = Sodium.open(sealed, additionalData: additionalData, nonce: header.nonce, key: keys.encryption) else {
            throw .corrupt(file: path, reason: .authenticationFailed)
        }
        defer { Sodium.wipe(&plaintext) }  // best effort: copies made by Swift are not reachable
        return (header, keys, try VaultRecords.decode(plaintext, path: path))
    }

    private func keys(for header: VaultHeader) throws(SecretStoreError) -> VaultKeys {
        if let keys = unlocked.withLock({ $0 }), keys.salt == header.salt, Self.same(keys.keyCheck, header.keyCheck) {
            return keys
        }
        let cacheID = VaultKeys.cacheID(salt: header.salt)
        if keyCacheTTL > .zero, let master = keyCache.get(cacheID) {
            let keys = VaultKeys(master: master, salt: header.salt)
            if Self.same(keys.keyCheck, header.keyCheck) {
                unlocked.withLock { $0 = keys }
                return keys
            }
            keyCache.remove(cacheID)
        }
        // A typed passphrase gets three tries, and each wrong one says how many are left; a file
        // or descriptor gives the same answer every time, so it gets one.
        let attempts = passphrase.isInteractive ? PassphraseSource.terminalAttempts : 1
        for attempt in 1...attempts {
            let keys = try derive(passphrase.read(triesLeft: attempt == 1 ? nil : attempts - attempt + 1), salt: header.salt,
                                  limits: KDFLimits(opsLimit: header.opsLimit, memLimit: header.memLimit))
            if Self.same(keys.keyCheck, header.keyCheck) {
                remember(keys)
                return keys
            }
            let left = attempts - attempt
            if left > 0 { passphrase.tell("Wrong passphrase; \(left) \(left == 1 ? "try" : "tries") left.") }
        }
        throw .wrongPassphrase(file: path)
    }

    /// Keys for a new salt from a passphrase asked twice; `creating` for a vault that does not
    /// exist yet (the terminal says so, ``PassphraseSource/newVaultNotice(path:)``).
    private func newKeys(limits: KDFLimits, source: PassphraseSource, creating: Bool) throws(SecretStoreError) -> VaultKeys {
        try derive(source.read(confirm: true, newVaultAt: creating ? path : nil), salt: Sodium.randomBytes(Sodium.saltLength), limits: limits)
    }

    private func derive(_ passphrase: VaultPassphrase, salt: [UInt8], limits: KDFLimits) throws(SecretStoreError) -> VaultKeys {
        derivationCount.add(1, ordering: .relaxed)
        guard let master = Sodium.argon2id(passphrase: passphrase, salt: salt, opsLimit: limits.opsLimit, memLimit: Int(limits.memLimit)) else {
            throw .unavailable(cause: .init("Argon2id key derivation failed (out of memory?)"))
        }
        return VaultKeys(master: master, salt: salt)
    }

    private func remember(_ keys: VaultKeys) {
        unlocked.withLock { $0 = keys }
        if keyCacheTTL > .zero { keyCache.put(keys.cacheID, key: keys.master, ttl: keyCacheTTL) }
    }

    private func seal(_ document: VaultRecords, keys: VaultKeys, limits: KDFLimits) -> [UInt8] {
        var plaintext = document.encoded()
        defer { Sodium.wipe(&plaintext) }
        let header = VaultHeader(
            opsLimit: limits.opsLimit, memLimit: limits.memLimit, salt: keys.salt, keyCheck: keys.keyCheck,
            nonce: Sodium.randomBytes(Sodium.nonceLength),
            ciphertextLength: UInt64(plaintext.count + Sodium.tagLength)
        ).encoded()
        return header + Sodium.seal(plaintext, additionalData: header, nonce: Array(header[76..<100]), key: keys.encryption)
    }

    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && sodium_memcmp(a, b, a.count) == 0
    }
}
