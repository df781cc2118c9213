@testable import CredentialStoreLive
import CredentialStore
import Foundation
import QuickToken
import StrictJSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Metadata permissions, key cache opt-out, store selection errors")
struct HardeningTests {
    struct Metadata: Sendable, Equatable {
        var value: String
        init(value: String) { self.value = value }
        init(json: JSONValue) throws(JSONShapeError) { value = try JSONReader(json).string("value") }
        var json: JSONValue { .object(["value": .string(value)]) }
    }

    /// A config (or state) directory holding one metadata file, both with the given modes.
    func metadataFile(_ dir: TemporaryDirectory, kind: String, directoryMode: mode_t, fileMode: mode_t) throws -> JSONFileStore<Metadata> {
        let paths = XDGPaths(environment: ["HOME": dir.path, "XDG_CONFIG_HOME": dir.file("config"), "XDG_STATE_HOME": dir.file("state")])
        let read = { @Sendable (json: JSONValue) throws(JSONShapeError) in try Metadata(json: json) }
        let file = kind == "config" ? MetadataFile.config("providers.json", paths: paths, read: read, write: { $0.json })
                                    : MetadataFile.state("accounts.json", paths: paths, read: read, write: { $0.json })
        try file.write(Metadata(value: "v"))
        chmod(file.path, fileMode)
        chmod(PrivateFiles.directoryOf(file.path), directoryMode)
        return file
    }

    @Test("Config and state directories writable by group or others are refused (.permissionDenied) for read, write and update",
          arguments: ["config", "state"], [mode_t(0o777), 0o775, 0o757])
    func writableDirectoryRefused(kind: String, directoryMode: mode_t) throws {
        let dir = TemporaryDirectory()
        let file = try metadataFile(dir, kind: kind, directoryMode: directoryMode, fileMode: 0o600)
        let directory = PrivateFiles.directoryOf(file.path)
        #expect(storeError { _ = try file.read() }?.caseName == "permissionDenied")
        #expect(storeError { _ = try file.read() }?.file == directory)
        #expect(storeError { try file.write(Metadata(value: "w")) }?.caseName == "permissionDenied")
        #expect(storeError { try file.update { $0?.value = "u" } }?.caseName == "permissionDenied")
        chmod(directory, 0o700)
        #expect(try file.read() == Metadata(value: "v"), "refused writes changed nothing")
    }

    @Test("A metadata file writable by group or others is refused (.permissionDenied naming it)",
          arguments: ["config", "state"], [mode_t(0o666), 0o620, 0o602])
    func writableFileRefused(kind: String, fileMode: mode_t) throws {
        let dir = TemporaryDirectory()
        let file = try metadataFile(dir, kind: kind, directoryMode: 0o700, fileMode: fileMode)
        #expect(storeError { _ = try file.read() }?.caseName == "permissionDenied")
        #expect(storeError { _ = try file.read() }?.file == file.path)
        #expect(storeError { try file.update { $0?.value = "u" } }?.caseName == "permissionDenied")
    }

    @Test("Non-secret metadata readable by others (0644 file, 0755 directory) is accepted", arguments: ["config", "state"])
    func readableMetadataAccepted(kind: String) throws {
        let dir = TemporaryDirectory()
        let file = try metadataFile(dir, kind: kind, directoryMode: 0o755, fileMode: 0o644)
        #expect(try file.read() == Metadata(value: "v"))
        try file.update { $0?.value = "u" }
        #expect(try file.read() == Metadata(value: "u"))
    }

    @Test("A per-account lock directory writable by group or others is refused (.permissionDenied)", arguments: [mode_t(0o777), 0o770])
    func writableLockDirectoryRefused(directoryMode: mode_t) throws {
        let dir = TemporaryDirectory()
        let locks = AccountLockDirectory(directory: dir.file("state/authdeck/locks"))
        let lock = try #require(try locks.tryLock(alice))
        lock.release()
        chmod(locks.directory, directoryMode)
        #expect(storeError { _ = try locks.tryLock(alice) }?.caseName == "permissionDenied")
    }

    @Test("PermissionProblem finds what every read refuses (a 0644 vault, a 0755 directory) without reading, even locked",
          arguments: [(false, mode_t(0o644)), (true, mode_t(0o755))])
    func permissionProblemIsTheReadsRule(directory: Bool, mode: mode_t) throws {
        let dir = TemporaryDirectory()
        let folder = dir.file("data")
        #expect(mkdir(folder, 0o700) == 0)
        let vault = VaultSecretStore(path: folder + "/secrets.vault", passphrase: .value(testPassphrase), newVaultLimits: .minimum)
        try vault.save(secrets("r"), for: alice)
        #expect(vault.permissionProblem() == nil)
        chmod(directory ? folder : vault.path, mode)
        let locked = VaultSecretStore(path: vault.path, passphrase: .file(path: dir.file("absent")))
        #expect(locked.permissionProblem()?.caseName == "permissionDenied", "found without the passphrase")
        #expect(storeError { _ = try vault.load(alice) }?.caseName == "permissionDenied", "and the read refuses it")
        chmod(directory ? folder : vault.path, directory ? 0o700 : 0o600)
        #expect(locked.permissionProblem() == nil)
    }

    @Test("AUTHDECK_VAULT_CACHE_SECONDS=0 disables the vault key cache: nothing is put in it and nothing is read from it")
    func zeroTTLDisablesKeyCache() throws {
        let paths = XDGPaths(environment: ["HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1"])
        let made = try #require(try LiveSecretStores.make(.vault, paths: paths, environment: ["AUTHDECK_VAULT_CACHE_SECONDS": "0"]) as? VaultSecretStore)
        #expect(made.keyCacheTTL == .zero)

        let dir = TemporaryDirectory()
        let cache = MemoryKeyCache()
        let vault = VaultSecretStore(path: dir.file("v"), passphrase: .value(testPassphrase), newVaultLimits: .minimum,
                                     keyCache: cache, keyCacheTTL: .zero)
        try vault.save(secrets("r"), for: alice)
        #expect(cache.count == 0, "no key cached with TTL 0")

        // A key cached earlier (with a longer TTL) is not used while the cache is disabled.
        let caching = VaultSecretStore(path: dir.file("v"), passphrase: .value(testPassphrase), keyCache: cache, keyCacheTTL: .seconds(60))
        _ = try caching.load(alice)
        #expect(cache.count == 1)
        let disabled = VaultSecretStore(path: dir.file("v"), passphrase: .file(path: dir.file("absent")), keyCache: cache, keyCacheTTL: .zero)
        #expect(storeError { _ = try disabled.load(alice) }?.caseName == "passphraseUnavailable")
        disabled.forgetKey()
        #expect(cache.count == 0, "lock still removes a cached key")
    }

    @Test("Key caches store nothing for a TTL of 0 (runtime file, kernel keyring)")
    func zeroTTLCachesStoreNothing() throws {
        let dir = TemporaryDirectory()
        let key = SecureKey { bytes in for index in bytes.indices { bytes[index] = 7 } }
        let runtime = RuntimeFileVaultKeyCache(directory: dir.file("runtime"))
        runtime.put("zero-ttl", key: key, ttl: .zero)
        #expect(runtime.get("zero-ttl") == nil)
        #expect(!FileManager.default.fileExists(atPath: runtime.path("zero-ttl")))
        if KernelKeyringVaultKeyCache.isAvailable() {
            let keyring = KernelKeyringVaultKeyCache()
            let id = "zero-ttl-\(getpid())"
            keyring.put(id, key: key, ttl: .zero)
            #expect(keyring.get(id) == nil)
            keyring.remove(id)
        }
    }

    @Test("AUTHDECK_STORE with an unknown value is .invalidConfiguration naming the variable, the value and the allowed kinds")
    func unknownStoreKind() {
        let error = storeError { _ = try LiveSecretStores.select(environment: ["AUTHDECK_STORE": "bogus"]) }
        #expect(error?.caseName == "invalidConfiguration")
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("AUTHDECK_STORE"))
        #expect(text.contains("bogus"))
        for kind in SecretStoreKind.allCases { #expect(text.contains(kind.rawValue)) }
    }
}
