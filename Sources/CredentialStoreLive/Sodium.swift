import CSodium
import CredentialStore
import FoundationEssentials
import Glibc

/// 32 bytes of key material in `sodium_malloc` memory (guarded pages, locked, wiped and freed on
/// deinit). Immutable after creation.
public final class SecureKey: @unchecked Sendable {
    // Safety: the buffer is written only in init and only read afterwards.
    static let length = 32
    let pointer: UnsafeMutableRawPointer

    /// A key filled by `fill` (which must write exactly ``length`` bytes).
    init(_ fill: (UnsafeMutableRawBufferPointer) -> Void) {
        _ = Sodium.ready
        guard let p = sodium_malloc(Self.length) else {
            // Out of locked memory: no safe place for a key. One line and exit 1, no backtrace.
            let line = Array("authdeck: sodium_malloc failed: no locked memory for the vault key (raise RLIMIT_MEMLOCK)\n".utf8)
            _ = line.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
            _exit(1)
        }
        pointer = p
        fill(UnsafeMutableRawBufferPointer(start: p, count: Self.length))
    }

    /// A copy of `bytes` (must be ``length`` long).
    convenience init?(copying bytes: UnsafeRawBufferPointer) {
        guard bytes.count == Self.length else { return nil }
        self.init { $0.copyMemory(from: bytes) }
    }

    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(start: pointer, count: Self.length))
    }

    /// Constant-time comparison.
    func equals(_ other: SecureKey) -> Bool {
        sodium_memcmp(pointer, other.pointer, Self.length) == 0
    }

    deinit { sodium_free(pointer) }
}

/// The libsodium calls the vault uses. Nothing here is hand-rolled crypto: each function is one
/// libsodium primitive.
enum Sodium {
    /// `sodium_init()`, once per process.
    static let ready: Bool = sodium_init() >= 0

    /// `sodium_memzero` over the array's buffer.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { sodium_memzero(base, raw.count) }
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        _ = ready
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return bytes
    }

    /// BLAKE2b (`crypto_generichash`), optionally keyed.
    static func genericHash(_ message: [UInt8], length: Int = 32, key: SecureKey? = nil) -> [UInt8] {
        _ = ready
        var out = [UInt8](repeating: 0, count: length)
        message.withUnsafeBufferPointer { m in
            out.withUnsafeMutableBufferPointer { o in
                if let key {
                    _ = crypto_generichash(o.baseAddress!, length, m.baseAddress, UInt64(m.count),
                                           key.pointer.assumingMemoryBound(to: UInt8.self), SecureKey.length)
                } else {
                    _ = crypto_generichash(o.baseAddress!, length, m.baseAddress, UInt64(m.count), nil, 0)
                }
            }
        }
        return out
    }

    /// Argon2id13 (`crypto_pwhash`) of `passphrase` with `salt` (16 bytes): a 32-byte key.
    /// Returns nil when libsodium refuses (out of memory, limits out of range).
    static func argon2id(passphrase: VaultPassphrase, salt: [UInt8], opsLimit: UInt64, memLimit: Int) -> SecureKey? {
        _ = ready
        // The passphrase bytes go through a sodium_malloc buffer that is wiped on free.
        let utf8 = Array(passphrase.exposedValue.utf8)
        guard let scratch = sodium_malloc(max(utf8.count, 1)) else { return nil }
        defer { sodium_free(scratch) }
        utf8.withUnsafeBytes { scratch.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        var status: Int32 = -1
        let key = SecureKey { out in
            status = salt.withUnsafeBufferPointer { s in
                crypto_pwhash(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(SecureKey.length),
                    scratch.assumingMemoryBound(to: CChar.self), UInt64(utf8.count),
                    s.baseAddress!, opsLimit, memLimit, crypto_pwhash_ALG_ARGON2ID13
                )
            }
        }
        return status == 0 ? key : nil
    }

    /// `crypto_kdf_derive_from_key`: subkey `id` of `master` in an 8-character `context`.
    static func deriveSubkey(_ master: SecureKey, id: UInt64, context: StaticString) -> SecureKey {
        precondition(context.utf8CodeUnitCount == 8)
        return SecureKey { out in
            context.utf8Start.withMemoryRebound(to: CChar.self, capacity: 8) { ctx in
                _ = crypto_kdf_derive_from_key(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), SecureKey.length, id, ctx,
                    master.pointer.assumingMemoryBound(to: UInt8.self)
                )
            }
        }
    }

    static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    static let saltLength = Int(crypto_pwhash_SALTBYTES)

    /// XChaCha20-Poly1305-IETF encryption with associated data.
    static func seal(_ plaintext: [UInt8], additionalData: [UInt8], nonce: [UInt8], key: SecureKey) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var outLength: UInt64 = 0
        _ = out.withUnsafeMutableBufferPointer { o in
            crypto_aead_xchacha20poly1305_ietf_encrypt(
                o.baseAddress!, &outLength, plaintext, UInt64(plaintext.count), additionalData,
                UInt64(additionalData.count), nil, nonce, key.pointer.assumingMemoryBound(to: UInt8.self)
            )
        }
        return out
    }

    /// XChaCha20-Poly1305-IETF decryption; nil when authentication fails.
    static func open(_ ciphertext: ArraySlice<UInt8>, additionalData: [UInt8], nonce: [UInt8], key: SecureKey) -> [UInt8]? {
        guard ciphertext.count >= tagLength else { return nil }
        var out = [UInt8](repeating: 0, count: ciphertext.count - tagLength)
        var outLength: UInt64 = 0
        let status = ciphertext.withUnsafeBufferPointer { c in
            out.withUnsafeMutableBufferPointer { o in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    o.baseAddress ?? UnsafeMutablePointer(mutating: c.baseAddress!), &outLength, nil,
                    c.baseAddress!, UInt64(c.count), additionalData, UInt64(additionalData.count), nonce,
                    key.pointer.assumingMemoryBound(to: UInt8.self)
                )
            }
        }
        return status == 0 ? out : nil
    }
}
