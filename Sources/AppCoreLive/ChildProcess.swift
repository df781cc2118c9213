import CredentialStore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A child process. The program `authdeck exec` runs: spawned in authdeck's own process group (it stays the
/// terminal's foreground job, so it can read the terminal and gets Ctrl-C from it directly), with
/// stdin, stdout and stderr as they are, the caller's other descriptors, none of authdeck's, an
/// empty signal mask and default signal actions.
public struct ChildProcess: Sendable {
    public let pid: pid_t

    /// Why the program did not start, with the exit status a shell gives for it (POSIX `sh`:
    /// 127 not found, 126 found but not executable).
    public struct SpawnFailure: Error {
        public var message: String
        public var exitCode: Int32
    }

    /// The descriptors open in this process now (`/proc/self/fd`), above 2.
    public static func openDescriptors() -> Set<Int32> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap(Int32.init).filter { $0 > 2 })
    }

    /// Starts `command` (`command[0]` looked up in the child's `PATH`, as `execvp` does); every
    /// descriptor above 2 not in `keeping` is closed in the child. `detached`: in a process group
    /// of its own (ended with ``endGroup()``), stdin from `/dev/null` and stdout to our stderr, or
    /// both stdout and stderr to `output` when given (the hooks: a pipe authdeck drains), or with
    /// `quiet` to `/dev/null` (the hooks in the accounts screen: a terminal screen stays whole).
    /// - Throws: ``SpawnFailure`` (not found, not executable, or the spawn's errno).
    public static func spawn(_ command: [String], environment: [String: String], keeping: Set<Int32>, detached: Bool = false,
                             quiet: Bool = false, output: Int32? = nil) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The standard descriptors first: `output` is among the descriptors closed after.
        if detached {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            if quiet {
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            } else if let output {
                posix_spawn_file_actions_adddup2(&actions, output, 1)
                posix_spawn_file_actions_adddup2(&actions, output, 2)
            } else {
                posix_spawn_file_actions_adddup2(&actions, 2, 1)
            }
        }
        for descriptor in openDescriptors().subtracting(keeping) { posix_spawn_file_actions_addclose(&actions, descriptor) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        if detached { posix_spawnattr_setpgroup(&attributes, 0) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (detached ? POSIX_SPAWN_SETPGROUP : 0)))
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        // posix_spawnp searches the PATH of this process, which the child's environment keeps.
        let result = posix_spawnp(&pid, command[0], &actions, &attributes, argv, envp)
        switch result {
        case 0: return ChildProcess(pid: pid)
        case ENOENT: throw SpawnFailure(message: "\(command[0]): command not found", exitCode: 127)
        case EACCES, ENOEXEC, EISDIR: throw SpawnFailure(message: "\(command[0]): cannot run it (\(SystemErrorText.describe(result)))", exitCode: 126)
        default: throw SpawnFailure(message: "\(command[0]): cannot start it (\(SystemErrorText.describe(result)))", exitCode: 126)
        }
    }

    /// The child's exit status once it has ended, else nil: its own exit code, or 128 + N for a
    /// death by signal N (as shells report it).
    public func reap() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return nil }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// A detached child and everything it started: SIGTERM to its group, SIGKILL half a second
    /// later, then reaped.
    public func endGroup() {
        kill(-pid, SIGTERM)
        usleep(500_000)
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// A child being ended: SIGTERM now, SIGKILL at `forceAt` if it is still there.
    public struct Ending: Sendable {
        public var forceAt: Date?
    }

    /// Sends SIGTERM; the caller sends SIGKILL at the returned `forceAt` (10 s after `now`).
    public func end(now: Date) -> Ending {
        signal(SIGTERM)
        return Ending(forceAt: now.addingTimeInterval(10))
    }
}
