import CSodium
import CXAttr
#if canImport(Glibc)
import Glibc
#endif

/// The mark authdeck leaves on every file it writes atomically: the extended attribute
/// `user.authdeck.written`, the BLAKE2b-256 (libsodium `crypto_generichash`, keyed with the
/// writing version: ``key``) of the file's bytes,
/// set on the temporary file before it is renamed into place. A file whose bytes still have their
/// mark is exactly what authdeck wrote (and checked) last; a hand edit, a damaged file or a
/// file system without user attributes has none that matches. Not a security boundary (whoever
/// can write the file can write the attribute): it tells the quick token path (``QuickAnswer``)
/// that the full program would read the file without complaint.
public enum WrittenMark {
    public static let attribute = "user.authdeck.written"
    static let length = 32

    /// The key of the mark: the version that wrote the file, so that another version of authdeck
    /// (an upgrade, a second build sharing the home) does not take the file as one it can read
    /// until it has written it itself.
    static let key = Array("authdeck \(ProgramLayout.version) written".utf8)

    /// The mark of `bytes`: 32 bytes, BLAKE2b keyed with ``key``.
    static func mark(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        // Idempotent and thread-safe; the first call picks BLAKE2b's implementation for the CPU.
        _ = sodium_init()
        var digest = [UInt8](repeating: 0, count: length)
        _ = crypto_generichash(&digest, length, bytes.bindMemory(to: UInt8.self).baseAddress, UInt64(bytes.count), key, key.count)
        return digest
    }

    /// Marks the open file `fd` whose bytes are `bytes`; silently nothing where the file system
    /// keeps no user attributes (the quick path then falls back to the full program).
    public static func set(fd: Int32, bytes: UnsafeRawBufferPointer) {
        let digest = mark(bytes)
        _ = fsetxattr(fd, attribute, digest, digest.count, 0)
    }

    /// The bytes of `path` when its mark matches them; nil when the file is missing, unreadable,
    /// not a regular file, larger than `limit` bytes, unmarked, or changed since it was marked, or
    /// when it or its directory fails `safety` (``FileSafety``: the checks the full program makes
    /// before it trusts the file; the directory is judged through a symbolic link, as there).
    public static func readUnchanged(_ path: String, limit: Int = 1 << 20,
                                     safety: (stat) -> String? = FileSafety.notWritableByOthersProblem) -> [UInt8]? {
        guard let (fd, info) = FileSafety.openForReading(path) else { return nil }
        defer { close(fd) }
        var directory = stat()
        guard (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= limit, safety(info) == nil,
              stat(ProgramLayout.parent(path), &directory) == 0, safety(directory) == nil else { return nil }
        guard let bytes = readAll(fd, size: Int(info.st_size)) else { return nil }
        var stored = [UInt8](repeating: 0, count: length)
        guard fgetxattr(fd, attribute, &stored, length) == length else { return nil }
        let matches = bytes.withUnsafeBytes { mark($0) } == stored
        return matches ? bytes : nil
    }

    /// The `size` bytes of the regular file open at `fd`; nil when it holds more or fewer.
    static func readAll(_ fd: Int32, size: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            count += n
        }
        guard count == size else { return nil }
        bytes.removeLast()
        return bytes
    }
}
