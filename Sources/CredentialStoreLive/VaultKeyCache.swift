import CKeyutils
import CSodium
import CredentialStore
import FoundationEssentials
import QuickToken

#if canImport(Glibc)
import Glibc
#endif

/// Where the vault's derived key is kept between processes for a limited time, so that
/// `authdeck token` in a script does not prompt on every call. Entries are named by an id derived
/// from the vault's salt (not secret), so a passphrase change makes old entries useless.
///
/// Threat model. The cached key decrypts the vault, so while it is cached any process running as
/// the same user (or root) can read every secret — the same exposure as an unlocked Secret
/// Service collection, and the reason the lifetime is bounded (15 min by default,
/// `AUTHDECK_VAULT_CACHE_SECONDS`). Other users cannot read it. Neither cache ever reaches
/// persistent storage:
/// - kernel keyring (preferred): a `user` key in `@u`, kernel memory only, not swappable, expiry
///   enforced by the kernel (`keyctl_set_timeout`), gone at reboot; blocked in some containers
///   (seccomp), hence the fallback;
/// - `$XDG_RUNTIME_DIR/authdeck/vault-key-<id>`, 0600 in a 0700 directory on the per-user tmpfs
///   (removed at logout); expiry is checked when read (an expired file is deleted then), so a key
///   file can outlive its TTL until the next read or logout;
/// - neither (no keyring, no `XDG_RUNTIME_DIR`): no cache; every process asks.
/// `VaultSecretStore.forgetKey()` (`authdeck lock`) removes the entry at once. A process that has
/// unlocked keeps the key in `sodium_malloc` memory for its lifetime.
public protocol VaultKeyCache: Sendable {
    /// A short name for `status` ("kernel-keyring", "runtime-file", "none").
    var name: String { get }
    /// The cached key of `id`, or nil when absent or expired.
    func get(_ id: String) -> SecureKey?
    /// Caches `key` under `id` for `ttl` (whole seconds, at least 1); a `ttl` of zero or less
    /// stores nothing.
    func put(_ id: String, key: SecureKey, ttl: Duration)
    /// Forgets `id`.
    func remove(_ id: String)
}

/// No caching: every process asks for the passphrase.
public struct NoVaultKeyCache: VaultKeyCache {
    public init() {}
    public var name: String { "none" }
    public func get(_ id: String) -> SecureKey? { nil }
    public func put(_ id: String, key: SecureKey, ttl: Duration) {}
    public func remove(_ id: String) {}
}

/// The Linux kernel keyring: a `user` key in the user keyring `@u` with a kernel-enforced
/// timeout (`keyctl_set_timeout`). In RAM only, readable by processes of the same uid, gone at
/// reboot or expiry. Looked up with `keyctl_search(@u)` (docs/PLATFORM.md, "Kernel keyring").
public struct KernelKeyringVaultKeyCache: VaultKeyCache {
    public init() {}
    public var name: String { "kernel-keyring" }

    static func description(_ id: String) -> String { "authdeck:vault-key:\(id)" }

    /// True when `add_key` works here (it can be blocked by seccomp in containers).
    public static func isAvailable() -> Bool {
        let probe = "authdeck:probe:\(getpid())"
        var byte: UInt8 = 0
        let serial = add_key("user", probe, &byte, 1, KEY_SPEC_USER_KEYRING)
        guard serial >= 0 else { return false }
        _ = keyctl_unlink(serial, KEY_SPEC_USER_KEYRING)
        _ = keyctl_revoke(serial)
        return true
    }

    public func get(_ id: String) -> SecureKey? {
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", Self.description(id), 0)
        guard serial >= 0 else { return nil }
        var buffer: UnsafeMutableRawPointer?
        let length = Int(keyctl_read_alloc(key_serial_t(serial), &buffer))
        guard let buffer else { return nil }
        defer {
            sodium_memzero(buffer, max(length, 0))
            free(buffer)
        }
        guard length == SecureKey.length else { return nil }
        return SecureKey(copying: UnsafeRawBufferPointer(start: buffer, count: length))
    }

    public func put(_ id: String, key: SecureKey, ttl: Duration) {
        guard ttl > .zero else { return }
        let serial = key.withBytes { add_key("user", Self.description(id), $0.baseAddress, $0.count, KEY_SPEC_USER_KEYRING) }
        guard serial >= 0 else { return }
        _ = keyctl_set_timeout(serial, UInt32(max(1, ttl.components.seconds)))
    }

    public func remove(_ id: String) {
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", Self.description(id), 0)
        guard serial >= 0 else { return }
        _ = keyctl_unlink(key_serial_t(serial), KEY_SPEC_USER_KEYRING)
        _ = keyctl_revoke(key_serial_t(serial))
    }
}

/// A 0600 file per vault under `$XDG_RUNTIME_DIR/authdeck` (a per-user tmpfs on systemd
/// machines, removed at logout): 8 bytes of expiry (Unix seconds, big-endian) then the key.
/// Expiry is checked on read with the injected clock, and an expired file is deleted.
public struct RuntimeFileVaultKeyCache: VaultKeyCache {
    public let directory: String
    let now: @Sendable () -> Date

    public init(directory: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.directory = directory
        self.now = now
    }

    public var name: String { "runtime-file" }

    func path(_ id: String) -> String { "\(directory)/vault-key-\(id)" }

    public func get(_ id: String) -> SecureKey? {
        let path = path(id)
        guard let data = try? PrivateFiles.read(path, requirePrivate: true), data.count == 8 + SecureKey.length else {
            return nil
        }
        let expiry = data.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard Double(expiry) > now().timeIntervalSince1970 else {
            unlink(path)
            return nil
        }
        return data.dropFirst(8).withUnsafeBytes { SecureKey(copying: $0) }
    }

    public func put(_ id: String, key: SecureKey, ttl: Duration) {
        guard ttl > .zero else { return }
        guard (try? PrivateFiles.ensureDirectory(directory)) != nil, (try? PrivateFiles.checkPrivate(directory)) != nil else {
            return
        }
        let expiry = UInt64(max(0, now().timeIntervalSince1970)) + UInt64(max(1, ttl.components.seconds))
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: expiry >> (56 - 8 * $0)) }
        key.withBytes { bytes.append(contentsOf: $0) }
        try? PrivateFiles.writeAtomically(Data(bytes), to: path(id))
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress!, $0.count) }
    }

    public func remove(_ id: String) { unlink(path(id)) }
}

extension XDGPaths {
    /// The key cache to use: the kernel keyring when it works, else a 0600 file under
    /// `$XDG_RUNTIME_DIR/authdeck`, else none.
    public func defaultVaultKeyCache() -> any VaultKeyCache {
        if KernelKeyringVaultKeyCache.isAvailable() { return KernelKeyringVaultKeyCache() }
        if let runtimeDirectory { return RuntimeFileVaultKeyCache(directory: runtimeDirectory) }
        return NoVaultKeyCache()
    }
}
