import CJansson
import CKeyutils
import CSodium
#if canImport(Glibc)
import Glibc
#endif

/// Reading one account's access token from the encrypted vault (format 1, as
/// `CredentialStoreLive`'s `VaultFormat` writes it) with the key the full program cached in the
/// kernel keyring: the header checked (BLAKE2b-256 checksum, magic, version 1, Argon2id, lengths),
/// the cached key checked against the header's key check, the payload opened with
/// XChaCha20-Poly1305 (the header as associated data), then the account's record. Anything
/// unexpected is nil, never an error: the full program reads the vault again and says what is
/// wrong. Keys and the plaintext stay in `sodium_malloc` memory and are wiped.
enum StoredVault {
    static let headerBodyLength = 108
    static let headerLength = 140
    static let tagLength = 16

    /// The secret set of `provider`/`account` (its JSON object, as `AccountSecretsEncoding` writes
    /// it) handed to `body`; nil when it cannot be read here.
    static func withSecrets<T>(vault path: String, provider: String, account: String,
                               _ body: (UnsafeMutablePointer<json_t>) -> T?) -> T? {
        guard let file = readFile(path), isVault(file) else { return nil }
        let salt = Array(file[28..<44])
        let ciphertextLength = file.count - headerLength
        let plaintextLength = ciphertextLength - tagLength
        // One guarded region for the keys (cached, encryption, key check) and the plaintext.
        let regionLength = 96 + plaintextLength
        guard let region = sodium_malloc(regionLength)?.assumingMemoryBound(to: UInt8.self) else { return nil }
        defer {
            sodium_memzero(region, regionLength)
            sodium_free(region)
        }
        let master = region, encryption = region + 32, plaintext = region + 96
        guard cachedKey(salt: salt, into: master), keyChecks(file, master: master, scratch: region + 64) else { return nil }
        _ = crypto_kdf_derive_from_key(encryption, 32, 1, "adeckvlt", master)
        let opened = file.withUnsafeBufferPointer { bytes in
            crypto_aead_xchacha20poly1305_ietf_decrypt(plaintext, nil, nil, bytes.baseAddress! + headerLength, UInt64(ciphertextLength),
                                                       bytes.baseAddress!, UInt64(headerLength), bytes.baseAddress! + 76, encryption)
        }
        guard opened == 0 else { return nil }
        let records = UnsafeBufferPointer(start: plaintext, count: plaintextLength)
        guard let secrets = record(records, provider: Array(provider.utf8), account: Array(account.utf8)) else { return nil }
        var error = json_error_t()
        guard let document = json_loadb(UnsafeRawPointer(secrets.baseAddress!).assumingMemoryBound(to: CChar.self), secrets.count,
                                        authdeck_json_decode_flags(), &error) else { return nil }
        defer { authdeck_json_decref(document) }
        return body(document)
    }

    /// Whether the vault at `path` opens with the key cached in the kernel keyring, without a
    /// prompt (its header as for ``withSecrets(vault:provider:account:_:)``, the key checked
    /// against it; nothing decrypted).
    static func opensWithCachedKey(vault path: String) -> Bool {
        guard let file = readFile(path), isVault(file) else { return false }
        guard let region = sodium_malloc(64)?.assumingMemoryBound(to: UInt8.self) else { return false }
        defer {
            sodium_memzero(region, 64)
            sodium_free(region)
        }
        return cachedKey(salt: Array(file[28..<44]), into: region) && keyChecks(file, master: region, scratch: region + 32)
    }

    /// The header of format 1: its BLAKE2b-256 checksum, magic, version, Argon2id and its limits, the payload's length.
    static func isVault(_ file: [UInt8]) -> Bool {
        guard file.count >= headerLength + tagLength, sodium_init() >= 0 else { return false }
        var checksum = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&checksum, 32, file, UInt64(headerBodyLength), nil, 0)
        let magic: [UInt8] = Array("ADVAULT".utf8) + [0]
        guard checksum[...] == file[headerBodyLength..<headerLength], file[0..<8].elementsEqual(magic),
              file[8] == 0, file[9] == 1, file[10] == UInt8(crypto_pwhash_ALG_ARGON2ID13),
              integer(file, 100, 8) == UInt64(file.count - headerLength),
              (UInt64(crypto_pwhash_OPSLIMIT_MIN)...16).contains(integer(file, 12, 8)),
              (UInt64(crypto_pwhash_MEMLIMIT_MIN)...(4 << 30)).contains(integer(file, 20, 8)) else { return false }
        return true
    }

    /// Whether `master` (32 bytes) is the key of the vault `file`: the header's key check
    /// (BLAKE2b keyed with the derived check key, `scratch` 32 bytes for it).
    static func keyChecks(_ file: [UInt8], master: UnsafeMutablePointer<UInt8>, scratch check: UnsafeMutablePointer<UInt8>) -> Bool {
        _ = crypto_kdf_derive_from_key(check, 32, 2, "adeckvlt", master)
        let checked = Array(file[28..<44]) + Array("authdeck vault key check".utf8)
        var keyCheck = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&keyCheck, 32, checked, UInt64(checked.count), check, 32)
        return keyCheck[...] == file[44..<76]
    }

    /// The secrets frame of the record for `provider`/`account` (frames: u32 length, bytes; three
    /// per record: provider, account, secrets JSON); nil when absent or a frame is malformed.
    static func record(_ bytes: UnsafeBufferPointer<UInt8>, provider: [UInt8], account: [UInt8]) -> UnsafeBufferPointer<UInt8>? {
        var offset = 0
        func frame() -> UnsafeBufferPointer<UInt8>? {
            guard bytes.count - offset >= 4 else { return nil }
            let length = (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
            offset += 4
            guard bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return UnsafeBufferPointer(rebasing: bytes[offset..<(offset + length)])
        }
        while offset < bytes.count {
            guard let p = frame(), let a = frame(), let secrets = frame() else { return nil }
            if p.elementsEqual(provider) && a.elementsEqual(account) { return secrets.isEmpty ? nil : secrets }
        }
        return nil
    }

    /// Reads the Argon2id output cached in the user keyring under `authdeck:vault-key:ID` (ID: the
    /// hex BLAKE2b-128 of the salt) into the 32 bytes at `key`; false when absent or not 32 bytes.
    static func cachedKey(salt: [UInt8], into key: UnsafeMutablePointer<UInt8>) -> Bool {
        var id = [UInt8](repeating: 0, count: 16)
        _ = crypto_generichash(&id, 16, salt, UInt64(salt.count), nil, 0)
        let digits = Array("0123456789abcdef".utf8)
        let hex = String(decoding: id.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", "authdeck:vault-key:\(hex)", 0)
        guard serial >= 0 else { return false }
        return keyctl_read(key_serial_t(serial), UnsafeMutableRawPointer(key).assumingMemoryBound(to: CChar.self), 32) == 32
    }

    static func integer(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
        bytes[offset..<(offset + width)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The bytes of `path` (at most 16 MiB) when it and its directory are private
    /// (``FileSafety/privateProblem(_:)``, the directory by `lstat`: not a link); nil otherwise.
    static func readFile(_ path: String) -> [UInt8]? {
        guard let (fd, info) = FileSafety.openForReading(path) else { return nil }
        defer { close(fd) }
        var directory = stat()
        guard (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= 16 << 20, FileSafety.privateProblem(info) == nil,
              lstat(ProgramLayout.parent(path), &directory) == 0, FileSafety.privateProblem(directory) == nil else { return nil }
        return WrittenMark.readAll(fd, size: Int(info.st_size))
    }
}
