#if canImport(Glibc)
import Glibc
#endif

/// Facts of the running process that the launcher and the full program read the same way.
public enum ThisProcess {
    /// This process's executable (`/proc/self/exe`, links resolved); nil when it cannot be read.
    public static func runningExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The process environment's `NAME=value` entries, in `environ`'s order.
    public static func environmentEntries() -> [String] {
        var result: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            result.append(String(cString: pointer))
            entry += 1
        }
        return result
    }

    /// The real path of the current directory; nil when it is gone or unreadable.
    public static func currentDirectory() -> String? {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }

    /// Now, in seconds since 1970 (`CLOCK_REALTIME`).
    public static func now() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Names this process `name` for ps, pgrep and top (`/proc/self/comm`, as `prctl(PR_SET_NAME)`
    /// does); nothing where `/proc` is missing.
    public static func nameProcess(_ name: String) {
        let fd = open("/proc/self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = Array(name.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
