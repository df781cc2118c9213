// A real OpenSSH server (Debian `openssh-server`) on 127.0.0.1 for tests that run authdeck in an
// SSH session: its own sshd_config, host key, client key and authorized_keys in a
// 0700 temp dir, sshd in its own process group, stopped by pid — never by name.
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the SSH fixture could not start (a missing package, a refused account, sshd not ready).
public struct SSHServerError: Error, CustomStringConvertible {
    public let description: String
}

/// A private `sshd -D -e -f <config>` on a free port of 127.0.0.1 that lets ``user`` (the user
/// running the tests; root in CI) log in with a fixture ed25519 key only.
///
/// The config (see ``start(timeout:)``) accepts no client environment (no `AcceptEnv`, and
/// ``sshArguments(remoteCommand:tty:)`` uses `-F /dev/null`, so no `SendEnv` either): the remote
/// command sees a fresh SSH login environment (`HOME`, `USER`, `LOGNAME`, `SHELL`, `MAIL`,
/// `SSH_CONNECTION`, `SSH_CLIENT`; with a tty also `SSH_TTY` and the ssh client's `TERM`, `dumb`
/// when it has none; sshd's default `PATH`: `/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:
/// /sbin:/bin` for root, `/usr/local/bin:/usr/bin:/bin:/usr/games` for others) plus whatever the
/// user's shell startup adds (Debian's bash reads `~/.bashrc` even for an SSH command). No
/// `LANG`, `TZ`, `DISPLAY`, `XDG_*` or `DBUS_SESSION_BUS_ADDRESS`. Pass what a test needs in the
/// remote command (`env VAR=… /abs/path/authdeck …`, words quoted with ``shellQuote(_:)``) and
/// use absolute paths: the remote `PATH` need not hold the test's binaries.
///
/// Not as root, sshd can give a session a tty only where `/dev/pts` is mounted with `gid=5`
/// (Debian's default; some containers mount it without): else `-tt` ends with "Connection
/// closed by remote host" and ``logText()`` says `chown(/dev/pts/N, …) failed`.
///
/// ``stop()`` ends the sessions still open (the processes sshd started, found by parent pid in
/// `/proc`), then sshd's process group, and removes the temp dir; so does dropping the last
/// reference, and the test process's exit.
public final class SSHServer: Sendable, CustomStringConvertible {
    /// The port on 127.0.0.1.
    public let port: Int
    /// The login name: `start(user:)`'s, else the user running the tests (`getpwuid(geteuid())`).
    public let user: String
    /// The sshd listener (its pid is its process group id; stderr is its log).
    public let process: FixtureProcess
    /// The 0700 temp dir holding the config, keys, `authorized_keys` and `sshd.pid`.
    public let directory: URL
    /// The client's private key (`-i`).
    public let clientKeyPath: String
    private let stopped = Mutex<Bool>(false)

    public var description: String { "SSHServer(\(user)@127.0.0.1:\(port), pid: \(process.pid))" }

    public static let sshdPath = "/usr/sbin/sshd"
    public static let sshPath = "/usr/bin/ssh"
    public static let sshKeygenPath = "/usr/bin/ssh-keygen"

    private init(port: Int, user: String, process: FixtureProcess, directory: URL, clientKeyPath: String) {
        self.port = port
        self.user = user
        self.process = process
        self.directory = directory
        self.clientKeyPath = clientKeyPath
    }

    /// Makes the keys and config, starts sshd, and waits until a TCP connect to the port works
    /// and `ssh … true` logs in.
    ///
    /// The `sshd_config`: `ListenAddress 127.0.0.1`, `Port <free>`, `HostKey <dir>/host_ed25519`,
    /// `AuthorizedKeysFile <dir>/authorized_keys`, `PidFile <dir>/sshd.pid`, `UsePAM no`,
    /// `StrictModes no`, `PasswordAuthentication no`, `KbdInteractiveAuthentication no`,
    /// `PubkeyAuthentication yes`, `PermitRootLogin prohibit-password`, `PrintMotd no`,
    /// `PrintLastLog no`, `LogLevel ERROR`. As root it creates sshd's privilege separation
    /// directory `/run/sshd` (0755) when missing.
    /// - Parameters:
    ///   - user: the login name; nil is the user running the tests. Another user (see
    ///     ``RemoteAccount``) needs a root sshd: the temp dir is then 0711 and `authorized_keys`
    ///     0644 (sshd reads it as that user; the private keys stay 0600).
    ///   - timeout: how long to wait for the login to work.
    /// - Throws: ``SSHServerError`` (missing `openssh-server`/`openssh-client`, a locked account
    ///   or no login shell, sshd not ready in time: with sshd's log), ``FixtureProcessError``
    ///   when a program cannot be spawned.
    public static func start(user name: String? = nil, timeout: Duration = .seconds(20)) async throws -> SSHServer {
        try await checkPrograms()
        let user = try loginUser(name)

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("authdeck-sshd-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            let hostKey = directory.appendingPathComponent("host_ed25519").path
            let clientKey = directory.appendingPathComponent("client_ed25519").path
            try await run(sshKeygenPath, ["-q", "-t", "ed25519", "-N", "", "-C", "authdeck-test-host", "-f", hostKey])
            try await run(sshKeygenPath, ["-q", "-t", "ed25519", "-N", "", "-C", "authdeck-test-client", "-f", clientKey])
            let authorizedKeys = directory.appendingPathComponent("authorized_keys")
            try Data(contentsOf: URL(fileURLWithPath: clientKey + ".pub")).write(to: authorizedKeys)
            chmod(authorizedKeys.path, 0o600)
            if let name, name != String(cString: getpwuid(geteuid()).pointee.pw_name) {
                chmod(directory.path, 0o711)
                chmod(authorizedKeys.path, 0o644)
            }

            if geteuid() == 0 {
                // sshd's privilege separation directory (made by the ssh.service unit, which we
                // never start; /run is a tmpfs).
                var info = stat()
                if stat("/run/sshd", &info) != 0 {
                    mkdir("/run/sshd", 0o755)
                    chmod("/run/sshd", 0o755)
                }
            }

            let configURL = directory.appendingPathComponent("sshd_config")
            var lastFailure = ""
            // A port picked free may be taken before sshd binds it: then another one, twice.
            for _ in 0..<3 {
                let port = try FreePort.loopback()
                let config = """
                    ListenAddress 127.0.0.1
                    Port \(port)
                    HostKey \(hostKey)
                    AuthorizedKeysFile \(authorizedKeys.path)
                    PidFile \(directory.appendingPathComponent("sshd.pid").path)
                    UsePAM no
                    StrictModes no
                    PasswordAuthentication no
                    KbdInteractiveAuthentication no
                    PubkeyAuthentication yes
                    PermitRootLogin prohibit-password
                    PrintMotd no
                    PrintLastLog no
                    LogLevel ERROR

                    """
                try Data(config.utf8).write(to: configURL)
                chmod(configURL.path, 0o600)
                try await run(sshdPath, ["-t", "-f", configURL.path], what: "sshd -t (config check)")

                // No TZ: sshd hands its own TZ to sessions, and a real sshd has none.
                let process = try FixtureProcess.spawn(
                    executable: sshdPath, arguments: ["-D", "-e", "-f", configURL.path], environment: ["TZ": nil])
                let server = SSHServer(port: port, user: user, process: process, directory: directory,
                                       clientKeyPath: clientKey)
                switch await server.waitUntilReady(timeout: timeout) {
                case .ready:
                    LiveSSHServers.register(process.pid, directory: directory)
                    return server
                case .portTaken(let log):
                    lastFailure = log
                    await server.discard()
                    continue
                case .failed(let reason):
                    await server.discard()
                    throw SSHServerError(description: reason)
                }
            }
            throw SSHServerError(description: "sshd could not bind a free port of 127.0.0.1 three times; its log:\n\(lastFailure)")
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// The `ssh` command line that runs `remoteCommand` as ``user`` on this server:
    /// `/usr/bin/ssh -F /dev/null -i <client key> -o IdentitiesOnly=yes -o StrictHostKeyChecking=no
    /// -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes -p PORT [-tt]
    /// user@127.0.0.1 <remoteCommand>`.
    /// - Parameters:
    ///   - remoteCommand: one string, run by the user's login shell on the server (`$SHELL -c`):
    ///     quote its words with ``shellQuote(_:)``.
    ///   - tty: `-tt`, a pseudo-terminal even when ssh's own stdin is not a terminal (its size is
    ///     that of ssh's terminal, e.g. a tmux pane; 0×0 when there is none).
    public func sshArguments(remoteCommand: String, tty: Bool) -> [String] {
        var arguments = [
            Self.sshPath, "-F", "/dev/null", "-i", clientKeyPath,
            "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "-p", String(port),
        ]
        if tty { arguments.append("-tt") }
        arguments += ["\(user)@127.0.0.1", remoteCommand]
        return arguments
    }

    /// ``sshArguments(remoteCommand:tty:)`` as one `/bin/sh` command line (each word quoted),
    /// e.g. for ``TmuxSession``'s `command`.
    public func sshCommandLine(remoteCommand: String, tty: Bool) -> String {
        sshArguments(remoteCommand: remoteCommand, tty: tty).map(Self.shellQuote).joined(separator: " ")
    }

    /// `word` as one POSIX shell word (single quotes; `'` as `'\''`).
    public static func shellQuote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// Everything sshd logged (`-e`, `LogLevel ERROR`).
    public func logText() -> String { process.stderrText() }

    /// Ends the sessions still open (SIGTERM to every process sshd started, SIGKILL after 3 s),
    /// then sshd's process group, and removes the temp dir. Safe to call more than once.
    public func stop() async {
        let first = stopped.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        await stopProcesses()
        LiveSSHServers.unregister(process.pid)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the processes of a server that never became ready, keeping the temp dir (the next
    /// attempt, or the caller, reuses or removes it).
    private func discard() async {
        stopped.withLock { $0 = true }
        await stopProcesses()
    }

    private func stopProcesses() async {
        let sessions = ProcessTree.descendants(of: process.pid)
        ProcessTree.signal(sessions, SIGTERM)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(3))
        while !ProcessTree.alive(sessions).isEmpty && clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        ProcessTree.signal(ProcessTree.alive(sessions), SIGKILL)
        await process.terminate()
    }

    deinit {
        guard !stopped.withLock({ $0 }) else { return }
        // Not stopped: the sessions go now; `process` (sshd's group) goes in its own deinit.
        ProcessTree.signal(ProcessTree.descendants(of: process.pid), SIGKILL)
        LiveSSHServers.unregister(process.pid)
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Start-up

    private enum Readiness {
        case ready
        case portTaken(log: String)
        case failed(String)
    }

    private func waitUntilReady(timeout: Duration) async -> Readiness {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var lastProbe = "no login tried yet (nothing answered SSH on the port)"
        while clock.now < deadline {
            if let status = process.exitStatus {
                let log = process.stderrText()
                if log.contains("Address already in use") { return .portTaken(log: log) }
                return .failed("sshd exited (status \(status)) before it was ready; its log:\n\(log)")
            }
            if Self.answersSSH(port: port) {
                let probe = sshArguments(remoteCommand: "true", tty: false)
                do {
                    let ssh = try FixtureProcess.spawn(executable: probe[0], arguments: Array(probe.dropFirst()))
                    let status = await ssh.waitForExit(timeout: .seconds(10))
                    await ssh.terminate()
                    if status == 0 { return .ready }
                    lastProbe = "`ssh … \(user)@127.0.0.1 true` " + (status.map { "exited \($0)" } ?? "hung 10 s")
                        + ": " + ssh.stderrTail(limit: 1000)
                } catch {
                    return .failed("could not run \(Self.sshPath): \(error)")
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return .failed("""
            sshd on 127.0.0.1:\(port) was not ready within \(timeout): \(lastProbe)
            sshd's log:
            \(process.stderrTail())
            """)
    }

    /// sshd, ssh and ssh-keygen are installed and run (`-V`); else which Debian package to add.
    private static func checkPrograms() async throws {
        let programs = [
            (sshdPath, "openssh-server"), (sshPath, "openssh-client"), (sshKeygenPath, "openssh-client"),
        ]
        for (path, package) in programs {
            let missing = "\(path) is missing: install the Debian package \(package) (scripts/bootstrap installs it)"
            guard FileManager.default.isExecutableFile(atPath: path) else { throw SSHServerError(description: missing) }
        }
        for (path, package) in programs where path != sshKeygenPath {
            let process = try FixtureProcess.spawn(executable: path, arguments: ["-V"])
            let status = await process.waitForExit(timeout: .seconds(10))
            await process.terminate()
            guard status == 0 else {
                throw SSHServerError(description: """
                    `\(path) -V` \(status.map { "exited \($0)" } ?? "hung"): \(process.stderrTail(limit: 500)) \
                    (Debian package \(package))
                    """)
            }
        }
    }

    /// `name` (nil: the user running the tests), if sshd will let them in with a key.
    private static func loginUser(_ wanted: String?) throws -> String {
        guard let entry = wanted.map({ getpwnam($0) }) ?? getpwuid(geteuid()) else {
            throw SSHServerError(description: "no passwd entry for \(wanted ?? "uid \(geteuid())"): sshd needs one to log in")
        }
        let name = String(cString: entry.pointee.pw_name)
        let shell = entry.pointee.pw_shell.map { String(cString: $0) } ?? ""
        let loginShell = shell.isEmpty ? "/bin/sh" : shell
        if !FileManager.default.isExecutableFile(atPath: loginShell) || loginShell.hasSuffix("nologin")
            || loginShell == "/bin/false" || loginShell == "/usr/bin/false" {
            throw SSHServerError(description: "user \(name) has no login shell (\(loginShell)): sshd would run no command")
        }
        // With `UsePAM no`, sshd refuses an account whose /etc/shadow password starts with "!"
        // (locked, as `useradd` leaves it) even for a key; it logs that at INFO, below our
        // LogLevel. Only root reads /etc/shadow, and only a root sshd checks it.
        if geteuid() == 0, let shadow = try? String(contentsOfFile: "/etc/shadow", encoding: .utf8) {
            for line in shadow.split(separator: "\n") {
                let fields = line.split(separator: ":", omittingEmptySubsequences: false)
                if fields.count > 1, fields[0] == name, fields[1].hasPrefix("!") {
                    throw SSHServerError(description: """
                        sshd (UsePAM no) refuses \(name): the account is locked ("!" in /etc/shadow); \
                        give it no password instead, e.g. `usermod -p '*' \(name)`
                        """)
                }
            }
        }
        return name
    }

    /// Runs a setup tool to its end (20 s at most); throws with its stderr unless it exits 0.
    private static func run(_ path: String, _ arguments: [String], what: String? = nil) async throws {
        let process = try FixtureProcess.spawn(executable: path, arguments: arguments)
        let status = await process.waitForExit(timeout: .seconds(20))
        await process.terminate()
        guard status == 0 else {
            throw SSHServerError(description: """
                \(what ?? "\(path) \(arguments.joined(separator: " "))") \
                \(status.map { "exited \($0)" } ?? "hung 20 s"): \(process.stderrTail(limit: 1000))
                """)
        }
    }

    /// Whether a TCP connect to 127.0.0.1:`port` works and an SSH server answers: its
    /// identification line (`SSH-2.0-…`) within 2 s. The probe sends its own before closing, so
    /// sshd has nothing to log at `LogLevel ERROR` (a bare connect and close would log
    /// `kex_exchange_identification: Connection closed by remote host`).
    private static func answersSSH(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = INADDR_LOOPBACK.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return false }
        var received = [UInt8]()
        let deadline = Date().addingTimeInterval(2)
        while !received.contains(UInt8(ascii: "\n")) && received.count < 255 {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(remaining * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return false }
            var buffer = [UInt8](repeating: 0, count: 255 - received.count)
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            received += buffer[..<count]
        }
        guard received.starts(with: Array("SSH-".utf8)) else { return false }
        let identification = Array("SSH-2.0-authdeck-fixture-probe\r\n".utf8)
        _ = identification.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return true
    }
}

/// Processes by pid and start time (`/proc/<pid>/stat` field 22), so that a pid reused by
/// another program after ours ended is never signalled.
private enum ProcessTree {
    struct Entry: Hashable {
        let pid: pid_t
        let startTime: String
    }

    /// (parent pid, start time, state) of `pid`, from `/proc/<pid>/stat`.
    private static func stat(_ pid: pid_t) -> (parent: pid_t, startTime: String, state: String)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm) ": state, ppid, … starttime is the 20th field after comm.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let parent = pid_t(fields[1]) else { return nil }
        return (parent, String(fields[19]), String(fields[0]))
    }

    /// Every living descendant of `root` (children, their children, …), at this moment.
    static func descendants(of root: pid_t) -> [Entry] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var children: [pid_t: [Entry]] = [:]
        for name in names {
            guard let pid = pid_t(name), let info = stat(pid) else { continue }
            children[info.parent, default: []].append(Entry(pid: pid, startTime: info.startTime))
        }
        var found: [Entry] = []
        var queue = children[root] ?? []
        while let next = queue.popLast() {
            found.append(next)
            queue += children[next.pid] ?? []
        }
        return found
    }

    /// Those of `entries` still running as themselves (zombies count as gone).
    static func alive(_ entries: [Entry]) -> [Entry] {
        entries.filter { entry in
            guard let info = stat(entry.pid) else { return false }
            return info.startTime == entry.startTime && info.state != "Z"
        }
    }

    static func signal(_ entries: [Entry], _ signal: Int32) {
        for entry in alive(entries) { kill(entry.pid, signal) }
    }
}

/// SSH servers not stopped, whose sessions and temp dirs go at exit (before FixtureProcess's
/// own exit handler, registered earlier, ends the sshd groups).
private enum LiveSSHServers {
    private static let servers = Mutex<[pid_t: URL]>([:])
    private static let installed = Mutex<Bool>(false)

    static func register(_ pid: pid_t, directory: URL) {
        servers.withLock { $0[pid] = directory }
        let install = installed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if install { atexit { LiveSSHServers.cleanUpAtExit() } }
    }

    static func unregister(_ pid: pid_t) {
        servers.withLock { _ = $0.removeValue(forKey: pid) }
    }

    static func cleanUpAtExit() {
        let live = servers.withLock { $0 }
        for (pid, directory) in live {
            ProcessTree.signal(ProcessTree.descendants(of: pid), SIGKILL)
            try? FileManager.default.removeItem(at: directory)
        }
    }
}
