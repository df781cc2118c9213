import CredentialStore
import FoundationEssentials
import QuickToken

#if canImport(Glibc)
import Glibc
import TextSupport
#endif

/// File-system primitives shared by the file backends: atomic 0600 writes, private directories,
/// permission checks, reads that name the file in their errors.
public enum PrivateFiles {
    /// The cause for the current `errno`.
    static func errnoCause(_ what: String, _ code: Int32 = errno) -> SecretStoreError.Cause {
        .init("\(what): \(String(cString: strerror(code)))", errno: code)
    }

    /// Creates `path` and missing parents with mode 0700 (existing directories are left as they are).
    /// - Throws: ``SecretStoreError/io(file:operation:cause:)``.
    public static func ensureDirectory(_ path: String) throws(SecretStoreError) {
        var st = stat()
        if stat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else {
                throw .io(file: path, operation: "create directory", cause: .init("exists and is not a directory"))
            }
            return
        }
        let parent = PathText.directory(path)
        if !parent.isEmpty, parent != path, parent != "/" { try ensureDirectory(parent) }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw .io(file: path, operation: "create directory", cause: errnoCause("mkdir"))
        }
    }

    /// Refuses `path` (a file or directory we keep secrets in, or the directory holding one) when
    /// it is a symlink, is not owned by the effective user, or is readable or writable by
    /// group or others.
    /// - Throws: ``SecretStoreError/permissionDenied(file:cause:)``; `io` when `lstat` fails.
    public static func checkPrivate(_ path: String) throws(SecretStoreError) {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            throw .io(file: path, operation: "stat", cause: errnoCause("lstat"))
        }
        try checkPrivate(st, path: path)
    }

    static func checkPrivate(_ st: stat, path: String) throws(SecretStoreError) {
        if let problem = FileSafety.privateProblem(st) { throw .permissionDenied(file: path, cause: .init(problem)) }
    }

    /// Refuses `path` (non-secret metadata that still decides where tokens go, e.g.
    /// `providers.json`, or the directory holding it) when it is not owned by the effective user
    /// or is writable by group or others. Readable by others (0644/0755) is accepted. A symlinked
    /// directory is judged by its target; a missing `path` passes (nothing to check yet).
    /// - Throws: ``SecretStoreError/permissionDenied(file:cause:)``; `io` when `stat` fails otherwise.
    public static func checkNotWritableByOthers(_ path: String) throws(SecretStoreError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            if errno == ENOENT { return }
            throw .io(file: path, operation: "stat", cause: errnoCause("stat"))
        }
        try checkNotWritableByOthers(st, path: path)
    }

    static func checkNotWritableByOthers(_ st: stat, path: String) throws(SecretStoreError) {
        if let problem = FileSafety.notWritableByOthersProblem(st) { throw .permissionDenied(file: path, cause: .init(problem)) }
    }

    /// Reads the whole file at `path`; nil when it does not exist. With `requirePrivate`, the
    /// open file must pass ``checkPrivate(_:)`` (checked on the descriptor that is read).
    /// - Throws: ``SecretStoreError/permissionDenied(file:cause:)``, `io`.
    public static func read(_ path: String, requirePrivate: Bool) throws(SecretStoreError) -> Data? {
        try read(path, check: requirePrivate ? .private : .none)
    }

    /// What ``read(_:check:)`` requires of the open file.
    enum FileCheck { case none, `private`, notWritableByOthers }

    /// Reads the whole file at `path`; nil when it does not exist; `check` judges the open descriptor.
    static func read(_ path: String, check: FileCheck) throws(SecretStoreError) -> Data? {
        // Not blocked by a FIFO put in the file's place (O_NONBLOCK; a regular file ignores it).
        guard let (fd, st) = FileSafety.openForReading(path) else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw .permissionDenied(file: path, cause: .init("is a symbolic link")) }
            if errno == EACCES { throw .permissionDenied(file: path, cause: errnoCause("open")) }
            throw .io(file: path, operation: "open", cause: errnoCause("open"))
        }
        defer { close(fd) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw .io(file: path, operation: "read", cause: .init("is not a regular file (a FIFO, a device or a directory); move it away"))
        }
        switch check {
        case .none: break
        case .private: try checkPrivate(st, path: path)
        case .notWritableByOthers: try checkNotWritableByOthers(st, path: path)
        }
        return try readAll(fd: fd, path: path, sizeHint: Int(st.st_size))
    }

    /// Reads `fd` to end of file; `sizeHint` (the file's size) sizes the buffer.
    static func readAll(fd: Int32, path: String, sizeHint: Int = 0) throws(SecretStoreError) -> Data {
        var data = Data()
        data.reserveCapacity(max(sizeHint, 0))
        // One byte more than the file, so that one read finds the end: a 64 KiB buffer zeroed for
        // each of the small files `token` reads was 5 % of its instructions (PERFORMANCE.md).
        var buffer = [UInt8](repeating: 0, count: min(max(sizeHint + 1, 4096), 64 * 1024))
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(file: path, operation: "read", cause: errnoCause("read"))
            }
            if n == 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return data
    }

    /// Replaces `path` with `data` atomically: a temp file in the same directory (mode `mode`),
    /// written fully, fsync'd, renamed over `path`, then the directory fsync'd. A crash at any
    /// moment leaves either the old or the new file. A failure removes the temp file. The file
    /// carries its ``WrittenMark`` (where the file system keeps user attributes). `durable` false
    /// (a cache, rebuilt when lost): the same without either fsync, so a crash may leave the old file.
    /// - Throws: ``SecretStoreError/io(file:operation:cause:)``.
    public static func writeAtomically(_ data: Data, to path: String, mode: mode_t = 0o600, durable: Bool = true) throws(SecretStoreError) {
        let directory = directoryOf(path)
        var template = Array("\(directory)/\(tempPrefix(for: path))XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .io(file: path, operation: "create temp file for", cause: errnoCause("mkstemp")) }
        let tempPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var committed = false
        defer {
            if !committed { unlink(tempPath) }
        }
        let failure: (String, Int32)? = data.withUnsafeBytes { raw in
            defer { close(fd) }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            guard fchmod(fd, mode) == 0 else { return ("fchmod", errno) }
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return ("write", errno)
                }
                offset += n
            }
            // What authdeck wrote, marked on the file itself (WrittenMark: the launcher's quick path
            // trusts only files still as authdeck wrote them).
            WrittenMark.set(fd: fd, bytes: raw)
            guard !durable || fsync(fd) == 0 else { return ("fsync", errno) }
            return nil
        }
        if let (operation, code) = failure {
            throw .io(file: tempPath, operation: operation, cause: errnoCause(operation, code))
        }
        guard rename(tempPath, path) == 0 else {
            throw .io(file: path, operation: "rename temp file onto", cause: errnoCause("rename"))
        }
        committed = true
        if durable { try syncDirectory(directory) }
    }

    /// fsyncs a directory so that a rename in it is durable.
    public static func syncDirectory(_ directory: String) throws(SecretStoreError) {
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw .io(file: directory, operation: "open directory", cause: errnoCause("open")) }
        defer { close(dfd) }
        guard fsync(dfd) == 0 else { throw .io(file: directory, operation: "fsync directory", cause: errnoCause("fsync")) }
    }

    /// Removes temp files that a writer killed mid-write left next to `path`. Call only while
    /// holding the lock that all writers of `path` take (no live writer can own one then).
    public static func removeStaleTempFiles(for path: String) {
        let directory = directoryOf(path)
        let prefix = tempPrefix(for: path)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            unlink("\(directory)/\(name)")
        }
    }

    /// Moves a damaged file aside, keeping every byte: renamed (atomically, in the same
    /// directory) to `<name>.damaged-<UTC time>` (with `-2`, `-3`, … when taken), mode 0600, the
    /// directory fsync'd. Call it holding the lock the file's writers take. Returns the new path;
    /// nil when there was no file.
    /// - Throws: ``SecretStoreError/io(file:operation:cause:)``.
    public static func moveAside(_ path: String, now: Date) throws(SecretStoreError) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            if errno == ENOENT { return nil }
            throw .io(file: path, operation: "stat", cause: errnoCause("lstat"))
        }
        // `20261201T102049Z`: ISO 8601 basic format, UTC.
        let stamp = Date.ISO8601FormatStyle(dateSeparator: .omitted, timeSeparator: .omitted, timeZone: .gmt).format(now)
        // A symbolic link is moved itself; chmod would change the file it points to.
        let isLink = (st.st_mode & S_IFMT) == S_IFLNK
        let base = "\(path).damaged-\(stamp)"
        var target = base
        var counter = 1
        while lstat(target, &st) == 0 {
            counter += 1
            target = "\(base)-\(counter)"
        }
        guard isLink || chmod(path, 0o600) == 0 else { throw .io(file: path, operation: "chmod", cause: errnoCause("chmod")) }
        guard rename(path, target) == 0 else { throw .io(file: path, operation: "move aside", cause: errnoCause("rename")) }
        try syncDirectory(directoryOf(path))
        return target
    }

    static func directoryOf(_ path: String) -> String {
        let directory = PathText.directory(path)
        return directory.isEmpty ? "." : directory
    }

    static func tempPrefix(for path: String) -> String {
        ".\(PathText.lastComponent(path)).tmp-"
    }
}
