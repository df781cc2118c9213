import CSodium
import CredentialStore
import FoundationEssentials
import StrictJSON
import TextSupport

/// The vault file format, version 1 (all integers big-endian):
///
/// | offset | bytes | field |
/// | --- | --- | --- |
/// | 0 | 8 | magic `ADVAULT\0` |
/// | 8 | 2 | format version (1) |
/// | 10 | 1 | KDF algorithm (2 = Argon2id v1.3, libsodium `crypto_pwhash_ALG_ARGON2ID13`) |
/// | 11 | 1 | reserved (0) |
/// | 12 | 8 | Argon2id opslimit |
/// | 20 | 8 | Argon2id memlimit (bytes) |
/// | 28 | 16 | salt |
/// | 44 | 32 | key check: keyed BLAKE2b of the salt under KDF subkey 2 |
/// | 76 | 24 | XChaCha20-Poly1305 nonce (fresh for every write) |
/// | 100 | 8 | ciphertext length (bytes, including the 16-byte tag) |
/// | 108 | 32 | header checksum: BLAKE2b-256 of bytes 0..<108 |
/// | 140 | n | ciphertext of the ``VaultRecords`` payload; associated data = bytes 0..<140 |
///
/// Decoding order makes the three failures distinct: a short file is ``SecretStoreError/truncated(file:expectedBytes:actualBytes:)``;
/// a header whose checksum fails is ``SecretStoreError/corrupt(file:reason:)``; an intact header whose
/// key check does not match the derived key is ``SecretStoreError/wrongPassphrase(file:)``; a
/// failing AEAD tag under the right key is `corrupt(.authenticationFailed)`.
struct VaultHeader: Equatable {
    static let magic: [UInt8] = Array("ADVAULT".utf8) + [0]
    static let currentVersion: UInt16 = 1
    static let kdfArgon2id13: UInt8 = UInt8(crypto_pwhash_ALG_ARGON2ID13)
    static let bodyLength = 108
    static let length = 140

    var version: UInt16 = currentVersion
    var opsLimit: UInt64
    var memLimit: UInt64
    var salt: [UInt8]
    var keyCheck: [UInt8]
    var nonce: [UInt8]
    var ciphertextLength: UInt64

    /// The 140 header bytes (body plus checksum).
    func encoded() -> [UInt8] {
        var bytes = Self.magic
        bytes += Self.bigEndian(UInt64(version), width: 2)
        bytes += [Self.kdfArgon2id13, 0]
        bytes += Self.bigEndian(opsLimit, width: 8)
        bytes += Self.bigEndian(memLimit, width: 8)
        bytes += salt + keyCheck + nonce
        bytes += Self.bigEndian(ciphertextLength, width: 8)
        precondition(bytes.count == Self.bodyLength)
        return bytes + Sodium.genericHash(bytes, length: 32)
    }

    /// Parses and checks the header of `file` (its full contents).
    static func decode(_ file: [UInt8], path: String) throws(SecretStoreError) -> VaultHeader {
        guard file.count >= length else {
            throw .truncated(file: path, expectedBytes: length, actualBytes: file.count)
        }
        let body = Array(file[0..<bodyLength])
        guard Sodium.genericHash(body, length: 32) == Array(file[bodyLength..<length]) else {
            // Tell a foreign file from a damaged one when we can.
            if Array(file[0..<8]) != magic { throw .corrupt(file: path, reason: .badMagic) }
            throw .corrupt(file: path, reason: .headerChecksumMismatch)
        }
        guard Array(file[0..<8]) == magic else { throw .corrupt(file: path, reason: .badMagic) }
        let version = UInt16(integer(file, 8, 2))
        guard version == currentVersion else { throw .corrupt(file: path, reason: .unsupportedVersion(Int(version))) }
        guard file[10] == kdfArgon2id13 else { throw .corrupt(file: path, reason: .invalidHeader("KDF algorithm \(file[10])")) }
        let header = VaultHeader(
            version: version,
            opsLimit: integer(file, 12, 8),
            memLimit: integer(file, 20, 8),
            salt: Array(file[28..<44]),
            keyCheck: Array(file[44..<76]),
            nonce: Array(file[76..<100]),
            ciphertextLength: integer(file, 100, 8)
        )
        // Refuse limits that would let a crafted file make us burn minutes or gigabytes.
        guard header.opsLimit >= UInt64(crypto_pwhash_OPSLIMIT_MIN), header.opsLimit <= 16,
            header.memLimit >= UInt64(crypto_pwhash_MEMLIMIT_MIN), header.memLimit <= 4 << 30
        else { throw .corrupt(file: path, reason: .invalidHeader("Argon2id limits out of range")) }
        guard header.ciphertextLength >= UInt64(Sodium.tagLength), header.ciphertextLength <= 1 << 32 else {
            throw .corrupt(file: path, reason: .invalidHeader("ciphertext length"))
        }
        let expected = length + Int(header.ciphertextLength)
        if file.count < expected { throw .truncated(file: path, expectedBytes: expected, actualBytes: file.count) }
        if file.count > expected { throw .corrupt(file: path, reason: .trailingData) }
        return header
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
    }

    static func integer(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
        bytes[offset..<(offset + width)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}

/// The keys of one unlocked vault: derived once per unlock from the Argon2id output.
final class VaultKeys: Sendable {
    /// The Argon2id output (what the key cache holds).
    let master: SecureKey
    /// XChaCha20-Poly1305 key (`crypto_kdf` subkey 1, context `adeckvlt`).
    let encryption: SecureKey
    /// Key-check key (subkey 2).
    let check: SecureKey
    let salt: [UInt8]

    init(master: SecureKey, salt: [UInt8]) {
        self.master = master
        self.salt = salt
        encryption = Sodium.deriveSubkey(master, id: 1, context: "adeckvlt")
        check = Sodium.deriveSubkey(master, id: 2, context: "adeckvlt")
    }

    /// The header's key check for these keys.
    var keyCheck: [UInt8] { Sodium.genericHash(salt + Array("authdeck vault key check".utf8), length: 32, key: check) }

    /// Names cache entries: derived from the salt only (public), so no secret leaks through it.
    var cacheID: String { Self.cacheID(salt: salt) }

    static func cacheID(salt: [UInt8]) -> String { Sodium.genericHash(salt, length: 16).lowercaseHex }
}

/// The plaintext file's JSON document: every account's secret set,
/// `{"accounts":[{"account":"…","provider":"…","secrets":{…}}],"version":1}` (compact, sorted
/// member names; each `secrets` as in ``AccountSecretsEncoding``).
struct AccountsDocument {
    static let currentVersion = 1

    struct Entry {
        var provider: String
        var account: String
        var secrets: AccountSecrets
    }

    var version: Int = currentVersion
    var accounts: [Entry] = []

    subscript(key: AccountKey) -> AccountSecrets? {
        get { accounts.first { $0.provider == key.provider && $0.account == key.account }?.secrets }
        set {
            let index = accounts.firstIndex { $0.provider == key.provider && $0.account == key.account }
            switch (index, newValue) {
            case (let i?, let value?): accounts[i].secrets = value
            case (let i?, nil): accounts.remove(at: i)
            case (nil, let value?): accounts.append(Entry(provider: key.provider, account: key.account, secrets: value))
            case (nil, nil): break
            }
        }
    }

    var keys: [AccountKey] { accounts.map { AccountKey(provider: $0.provider, account: $0.account) }.sorted() }

    var json: JSONValue {
        .object([
            "version": .int(version),
            "accounts": .array(accounts.map { entry in
                .object(["provider": .string(entry.provider), "account": .string(entry.account), "secrets": entry.secrets.json])
            }),
        ])
    }

    /// - Throws: ``JSONShapeError`` naming the member (`accounts[1].secrets.idToken`).
    init(json: JSONValue) throws(JSONShapeError) {
        let reader = try JSONReader(json)
        version = try reader.int("version")
        guard version <= Self.currentVersion else { return }
        accounts = try reader.array("accounts") { (value, path) throws(JSONShapeError) -> Entry in
            let entry = try JSONReader(value, path: path)
            return Entry(provider: try entry.string("provider"), account: try entry.string("account"),
                         secrets: try AccountSecrets(json: entry.value("secrets") ?? .null, path: path + [.member("secrets")]))
        }
    }

    init() {}

    func encoded() -> [UInt8] { Array(json.serialized()) }

    /// - Throws: `.corrupt(file: path)` with the damage (``SecretStoreError/CorruptionReason``:
    ///   empty, truncated, two documents, not JSON, the record and field at fault), or
    ///   `.unsupportedVersion` for a newer version.
    static func decode(_ bytes: [UInt8], path: String) throws(SecretStoreError) -> AccountsDocument {
        let data = Data(bytes)
        let value: JSONValue
        do throws(JSONSyntaxError) { value = try parseJSONValue(data, maximumDepth: maximumStoredJSONDepth) } catch {
            throw .corrupt(file: path, reason: SecretStoreError.CorruptionReason(syntax: error, in: data))
        }
        let document: AccountsDocument
        do throws(JSONShapeError) { document = try AccountsDocument(json: value) } catch {
            throw .corrupt(file: path, reason: SecretStoreError.CorruptionReason(shape: error, records: "accounts"))
        }
        guard document.version <= currentVersion else {
            throw .corrupt(file: path, reason: .unsupportedVersion(document.version))
        }
        return document
    }
}

/// The vault's plaintext: one record per account, each holding that account's serialized secret
/// set (``AccountSecretsEncoding``, JSON) as opaque bytes, so `load` decodes only the account it
/// wants and `save` re-serializes only the account it changes. Framing (big-endian lengths):
///
///     repeated until the end: u32 n, provider (n bytes UTF-8); u32 n, account; u32 n, secrets JSON
///
/// The bytes are authenticated by the AEAD tag before they are parsed; the parser still checks
/// every length and reports a bad frame as ``SecretStoreError/CorruptionReason/malformedRecord(_:)``.
struct VaultRecords {
    struct Record {
        var key: AccountKey
        var secrets: [UInt8]
    }

    var records: [Record] = []

    var keys: [AccountKey] { records.map(\.key).sorted() }

    /// The decoded secret set of `key`, nil when absent.
    func secrets(for key: AccountKey, path: String) throws(SecretStoreError) -> AccountSecrets? {
        guard let record = records.first(where: { $0.key == key }) else { return nil }
        return try AccountSecretsEncoding.decode(Data(record.secrets), file: path)
    }

    /// True when `key` has a record.
    func contains(_ key: AccountKey) -> Bool { records.contains { $0.key == key } }

    /// Sets (nil: removes) the secret set of `key`.
    mutating func set(_ secrets: AccountSecrets?, for key: AccountKey) {
        let index = records.firstIndex { $0.key == key }
        switch (index, secrets) {
        case (let i?, let value?): records[i].secrets = Array(AccountSecretsEncoding.encode(value))
        case (let i?, nil): records.remove(at: i)
        case (nil, let value?): records.append(Record(key: key, secrets: Array(AccountSecretsEncoding.encode(value))))
        case (nil, nil): break
        }
    }

    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(records.reduce(0) { $0 + 12 + $1.key.provider.utf8.count + $1.key.account.utf8.count + $1.secrets.count })
        func field(_ bytes: some Collection<UInt8>) {
            out += VaultHeader.bigEndian(UInt64(bytes.count), width: 4)
            out += bytes
        }
        for record in records {
            field(record.key.provider.utf8)
            field(record.key.account.utf8)
            field(record.secrets)
        }
        return out
    }

    static func decode(_ bytes: [UInt8], path: String) throws(SecretStoreError) -> VaultRecords {
        var offset = 0
        func field() throws(SecretStoreError) -> ArraySlice<UInt8> {
            guard bytes.count - offset >= 4 else { throw .corrupt(file: path, reason: .malformedRecord("frame length")) }
            let length = Int(VaultHeader.integer(bytes, offset, 4))
            offset += 4
            guard bytes.count - offset >= length else { throw .corrupt(file: path, reason: .malformedRecord("frame")) }
            defer { offset += length }
            return bytes[offset..<(offset + length)]
        }
        var result = VaultRecords()
        while offset < bytes.count {
            let provider = try field()
            let account = try field()
            let secrets = try field()
            guard let p = String(validating: provider, as: UTF8.self), let a = String(validating: account, as: UTF8.self) else {
                throw .corrupt(file: path, reason: .malformedRecord("account key is not UTF-8"))
            }
            result.records.append(Record(key: AccountKey(provider: p, account: a), secrets: Array(secrets)))
        }
        return result
    }
}
