import CSodium
import CXAttr
#if canImport(Glibc)
import Glibc
#endif

/// The mark authdeck leaves on every file it writes atomically: the extended attribute
/// `user.authdeck.written`, the BLAKE2b-256 (libsodium `crypto_generichash`) of the file's bytes,
/// set on the temporary file before it is renamed into place. A file whose bytes still have their
/// mark is exactly what authdeck wrote (and checked) last; a hand edit, a damaged file or a
/// file system without user attributes has none that matches. Not a security boundary (whoever
/// can write the file can write the attribute): it tells the quick token path (``QuickAnswer``)
/// that the full program would read the file without complaint.
public enum WrittenMark {
    public static let attribute = "user.authdeck.written"
    static let length = 32

    /// The mark of `bytes`: 32 bytes.
    static func mark(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: length)
        _ = crypto_generichash(&digest, length, bytes.bindMemory(to: UInt8.self).baseAddress, UInt64(bytes.count), nil, 0)
        return digest
    }

    /// Marks the open file `fd` whose bytes are `bytes`; silently nothing where the file system
    /// keeps no user attributes (the quick path then falls back to the full program).
    public static func set(fd: Int32, bytes: UnsafeRawBufferPointer) {
        let digest = mark(bytes)
        _ = fsetxattr(fd, attribute, digest, digest.count, 0)
    }

    /// The bytes of `path` when its mark matches them; nil when the file is missing, unreadable,
    /// larger than `limit` bytes, unmarked, or changed since it was marked.
    public static func readUnchanged(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= limit else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            count += n
        }
        guard count == Int(info.st_size) else { return nil }
        bytes.removeLast()
        var stored = [UInt8](repeating: 0, count: length)
        guard fgetxattr(fd, attribute, &stored, length) == length else { return nil }
        let matches = bytes.withUnsafeBytes { mark($0) } == stored
        return matches ? bytes : nil
    }
}
