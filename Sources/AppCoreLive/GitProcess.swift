import AppCore
import FoundationEssentials
import Glibc
import QuickToken
import TextSupport

extension GitClient {
    /// `git` from `$PATH` (posix_spawnp), stdin `/dev/null`, stdout and stderr read to the end,
    /// its own process group, stopped (SIGKILL to the group) after `timeout`. The child's
    /// environment is the process's less every `AUTHDECK_*` variable (a passphrase file, a store
    /// choice: nothing of authdeck's reaches git).
    public static func live(processEnvironment: [String: String], timeout: Duration = .seconds(10)) -> GitClient {
        let environment = processEnvironment.filter { !$0.key.hasPrefix("AUTHDECK_") }
        return GitClient(
            run: { arguments, directory in
                GitProcess.run(["git"] + (directory.map { ["-C", $0] } ?? []) + arguments, environment: environment, timeout: timeout)
            },
            configMayMention: { section, directory in
                GitConfigFiles.mayMention(section, directory: directory, environment: environment)
            })
    }
}

enum GitProcess {
    static func run(_ argv: [String], environment: [String: String], timeout: Duration) -> GitRun? {
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { return nil }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0]); close(outPipe[1])
            return nil
        }
        // Not inherited by children other processes' threads spawn meanwhile (the TUI's browser).
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
        close(outPipe[1]); close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0]); close(errPipe[0])
            return nil
        }
        var output: [Int32: [UInt8]] = [outPipe[0]: [], errPipe[0]: []]
        var open = [outPipe[0], errPipe[0]]
        let deadline = ContinuousClock.now + timeout
        var timedOut = false
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            let left = deadline - ContinuousClock.now
            if left <= .zero { timedOut = true; break }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 10_000))
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { break }
            for entry in fds where entry.revents != 0 {
                let count = read(entry.fd, &chunk, chunk.count)
                if count > 0 {
                    output[entry.fd, default: []].append(contentsOf: chunk[0..<count])
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        if timedOut { kill(-pid, SIGKILL) }
        close(outPipe[0]); close(errPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard !timedOut, (status & 0x7f) == 0 else { return nil }
        return GitRun(status: (status >> 8) & 0xff, stdout: String(decoding: output[outPipe[0]] ?? [], as: UTF8.self),
                      stderr: String(decoding: output[errPipe[0]] ?? [], as: UTF8.self))
    }
}

extension PlaceClient {
    /// The process's directory (getcwd(3), then realpath(3)) and `bindings.json` (``ConfigFiles``).
    static func live(_ files: ConfigFiles) -> PlaceClient {
        @Sendable func realPath(_ path: String) -> String? {
            guard let resolved = realpath(path, nil) else { return nil }
            defer { free(resolved) }
            return String(cString: resolved)
        }
        return PlaceClient(
            currentDirectory: {
                guard let directory = getcwd(nil, 0) else { return nil }
                defer { free(directory) }
                return realPath(String(cString: directory))
            },
            realPath: realPath,
            bindings: { () throws(AppError) in
                do { return try files.bindings() } catch { throw ErrorMapping.appError(error) }
            },
            updateBindings: { change throws(AppError) in
                do { try files.updateBindings(change) } catch { throw ErrorMapping.appError(error) }
            })
    }
}
