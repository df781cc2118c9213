#if canImport(Glibc)
import Glibc
#endif

/// Errors of every credential store backend (docs/ARCHITECTURE.md, "Errors"). Each case says what went wrong
/// and, where a file is involved, names it. None ever carries a secret.
public enum SecretStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No secret set is stored under this key.
    case notFound(AccountKey)
    /// No Secret Service on the session bus (or no bus), or the backend cannot be used at all.
    case unavailable(cause: Cause)
    /// The operation did not finish within `seconds` (Secret Service calls: 3 s, as gh; lock waits).
    case timeout(operation: String, seconds: Double)
    /// The keyring (collection) is locked and could not be used.
    case locked(cause: Cause)
    /// The file (or keyring item) exists but is not what we wrote.
    case corrupt(file: String?, reason: CorruptionReason)
    /// The file ends before the length its header declares (or before the header ends).
    case truncated(file: String, expectedBytes: Int, actualBytes: Int)
    /// The vault's header is intact but the passphrase does not derive its key.
    case wrongPassphrase(file: String)
    /// A file or directory has unsafe permissions or ownership, or the OS refused access.
    case permissionDenied(file: String, cause: Cause)
    /// No passphrase could be obtained (no TTY, passphrase file missing or unsafe, …).
    case passphraseUnavailable(cause: Cause)
    /// An operating-system call failed on `file`.
    case io(file: String, operation: String, cause: Cause)
    /// The configuration names a backend that does not exist (e.g. `AUTHDECK_STORE=foo`).
    case invalidConfiguration(cause: Cause)
    /// The task waiting for the store was cancelled (Ctrl-C at a keyring's unlock prompt).
    case cancelled(operation: String)

    /// The reason behind an error, for logs and the "detail" line: an OS `errno`, a GLib
    /// error domain and code, or a short message. Never contains a secret.
    public struct Cause: Sendable, Equatable, CustomStringConvertible {
        public var message: String
        /// `errno` when the cause is an OS call.
        public var errno: Int32?
        /// GLib error domain (e.g. `g-io-error-quark`) and code, when the cause is libsecret.
        public var domain: String?
        public var code: Int?

        public init(_ message: String, errno: Int32? = nil, domain: String? = nil, code: Int? = nil) {
            self.message = message
            self.errno = errno
            self.domain = domain
            self.code = code
        }

        public var description: String {
            var parts = [message]
            if let errno { parts.append(SystemErrorText.describe(errno)) }
            if let domain { parts.append("\(domain) \(code.map(String.init) ?? "?")") }
            return parts.joined(separator: "; ")
        }
    }

    /// Why a file or item is considered corrupt.
    public enum CorruptionReason: Sendable, Equatable, CustomStringConvertible {
        /// The file does not start with the expected magic bytes.
        case badMagic
        /// A format version newer than this build understands.
        case unsupportedVersion(Int)
        /// The header's checksum does not match its bytes.
        case headerChecksumMismatch
        /// Header fields out of range (KDF limits, lengths).
        case invalidHeader(String)
        /// XChaCha20-Poly1305 authentication failed with the right key: the ciphertext or the
        /// header (associated data) was modified.
        case authenticationFailed
        /// Bytes after the declared end of the ciphertext.
        case trailingData
        /// The decrypted or plain payload is not a valid record (the decoding error's type).
        case malformedRecord(String)
        /// The file is empty (zero bytes, or only white space): a write was cut short.
        case empty
        /// The bytes are not JSON (where the parser stopped).
        case notJSON(String)
        /// JSON that stops before its last value closes: the file was cut short.
        case truncatedJSON
        /// Two or more JSON documents one after the other (the file was written twice).
        case multipleJSONDocuments
        /// Valid JSON, but not the shape authdeck writes (e.g. an object where a list belongs).
        case wrongShape(String)
        /// Valid JSON of the right shape, but one record in it does not decode (its position
        /// from 0, and the field at fault).
        case undecodableRecord(index: Int, field: String)

        public var description: String {
            switch self {
            case .badMagic: "not an authdeck file (bad magic)"
            case .unsupportedVersion(let v): "unsupported format version \(v)"
            case .headerChecksumMismatch: "header checksum mismatch"
            case .invalidHeader(let what): "invalid header: \(what)"
            case .authenticationFailed: "authentication failed (modified ciphertext or header)"
            case .trailingData: "unexpected data after the end"
            case .malformedRecord(let what): "malformed record (\(what))"
            case .empty: "empty (a write was cut short)"
            case .notJSON(let position): "not JSON (\(position))"
            case .truncatedJSON: "truncated: the JSON stops before it is complete"
            case .multipleJSONDocuments: "two JSON documents one after the other (written twice)"
            case .wrongShape(let what): "valid JSON but the wrong shape (\(what))"
            case .undecodableRecord(let index, let field):
                "record \(index + 1) does not decode\(field.isEmpty ? "" : " (field '\(field)')")"
            }
        }
    }

    /// The damage of a file or item that exists but is not what authdeck wrote (corrupt or
    /// truncated): the file (nil for a keyring item) and what is wrong, for ``ErrorMapping`` and
    /// `authdeck doctor`. Nil for every other error (a locked store, a permission, I/O).
    public var damage: (file: String?, description: String)? {
        switch self {
        case .corrupt(let file, let reason): (file, reason.description)
        case .truncated(_, let expected, let actual): (file, "truncated: expected \(expected) bytes, found \(actual)")
        default: nil
        }
    }

    /// The file this error is about, if any.
    public var file: String? {
        switch self {
        case .corrupt(let file, _): file
        case .truncated(let file, _, _), .wrongPassphrase(let file), .permissionDenied(let file, _),
            .io(let file, _, _):
            file
        default: nil
        }
    }

    /// True when retrying later may succeed without the user doing anything.
    public var isTransient: Bool {
        switch self {
        case .timeout: true
        default: false
        }
    }

    /// True when the user must act (unlock the keyring, enter a passphrase, fix permissions).
    public var needsUserAction: Bool {
        switch self {
        case .locked, .wrongPassphrase, .passphraseUnavailable, .permissionDenied: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .notFound(let key): "no stored secrets for \(key)"
        case .unavailable(let cause): "credential store unavailable: \(cause)"
        case .timeout(let operation, let seconds): "credential store \(operation) timed out after \(seconds) s"
        case .locked(let cause): "keyring is locked: \(cause)"
        case .corrupt(let file, let reason): "\(file ?? "stored item") is corrupt: \(reason)"
        case .truncated(let file, let expected, let actual):
            "\(file) is truncated: expected \(expected) bytes, found \(actual)"
        case .wrongPassphrase(let file): "wrong passphrase for \(file)"
        case .permissionDenied(let file, let cause): "refusing to use \(file): \(cause)"
        case .passphraseUnavailable(let cause): "no vault passphrase: \(cause)"
        case .io(let file, let operation, let cause): "\(operation) \(file) failed: \(cause)"
        case .invalidConfiguration(let cause): "invalid credential store configuration: \(cause)"
        case .cancelled(let operation): "credential store \(operation) was cancelled"
        }
    }
}

/// An `errno` in words: the C library's text and the symbolic name ("No such device or address
/// (ENXIO)"), never a bare number.
public enum SystemErrorText {
    static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF", EAGAIN: "EAGAIN",
        ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR",
        EINVAL: "EINVAL", EMFILE: "EMFILE", ENOTTY: "ENOTTY", ENOSPC: "ENOSPC", EROFS: "EROFS", EPIPE: "EPIPE",
        ELOOP: "ELOOP", ENAMETOOLONG: "ENAMETOOLONG", EDQUOT: "EDQUOT", ETIMEDOUT: "ETIMEDOUT",
    ]

    public static func describe(_ code: Int32) -> String {
        let text = strerror(code).map { String(cString: $0) } ?? "error"
        return "\(text) (\(names[code] ?? "errno \(code)"))"
    }
}
