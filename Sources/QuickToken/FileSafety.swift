#if canImport(Glibc)
import Glibc
#endif

/// What makes a file or directory unfit to decide where tokens go, from its `stat`: the one rule
/// under the credential store's checks (`PrivateFiles` in CredentialStoreLive, which throws) and
/// the launcher's (``QuickAnswer``, which hands over to the full program instead).
public enum FileSafety {
    /// Why `info` is not private to the effective user (secrets: the vault, its directory): a
    /// symbolic link (judged by `lstat`), another owner, any permission for group or others
    /// (0600/0700 needed); nil when it is.
    public static func privateProblem(_ info: stat) -> String? {
        if (info.st_mode & S_IFMT) == S_IFLNK { return "is a symbolic link" }
        if let owner = ownerProblem(info) { return owner }
        let mode = info.st_mode & 0o777
        return mode & 0o077 != 0 ? "mode \(String(mode, radix: 8)) lets group or others read or write it (need 600/700)" : nil
    }

    /// Why `info` may not decide where tokens go (metadata such as `providers.json`, and the
    /// directories holding it): another owner, or writable by group or others (at most 644/755);
    /// nil when it may.
    public static func notWritableByOthersProblem(_ info: stat) -> String? {
        if let owner = ownerProblem(info) { return owner }
        let mode = info.st_mode & 0o777
        return mode & 0o022 != 0 ? "mode \(String(mode, radix: 8)) lets group or others write it (need 600/700, or at most 644/755)" : nil
    }

    static func ownerProblem(_ info: stat) -> String? {
        info.st_uid != geteuid() ? "owned by uid \(info.st_uid), not \(geteuid())" : nil
    }

    /// Opens `path` for reading without following a final symbolic link and without blocking on
    /// a FIFO or a device (`O_NONBLOCK`, which a regular file ignores); the descriptor and its
    /// `stat`, or nil (errno set) when it cannot be opened; `EINVAL`-free: the caller checks
    /// that the result is a regular file (`S_IFREG`).
    public static func openForReading(_ path: String, followLinks: Bool = false) -> (fd: Int32, info: stat)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            errno = code
            return nil
        }
        return (fd, info)
    }
}
