import AppCore
import AuthEngineLive
import CredentialStore
import CredentialStoreLive
import FoundationEssentials
import Glibc
import QuickToken
import StrictJSON
import Synchronization

/// The signal that arrived while a hook ran (``AccountEventsClient/runHook(_:told:environment:quiet:limit:report:)``), 0 when none.
private let hookInterruption = Atomic<Int32>(0)

extension AccountEventsClient {
    /// `check.json` and `check-state.json` under the XDG directories, desktop notifications on
    /// the session bus (``DesktopNotifications``), hooks as `sh -c` children (``runHook(_:told:environment:quiet:report:)``).
    /// - Parameters:
    ///   - report: where a problem is said (a hook that failed, a damaged or unusable file): the
    ///     CLI's stderr; nil in the accounts screen, whose hooks' output also goes to `/dev/null`.
    ///
    /// A process started by a hook (``hookVariable`` in its environment) tells nothing: its
    /// refreshes and sign-ins work, but no hook, notification or ledger change comes of them, so
    /// a hook that runs `authdeck refresh` does not fire its own event again, level after level.
    public static func live(paths: XDGPaths, processEnvironment: [String: String], report: (@Sendable (String) -> Void)?) -> AccountEventsClient {
        let say = report ?? { _ in }
        let configFile = MetadataFile.config("check.json", paths: paths, read: { json throws(JSONShapeError) in try CheckConfiguration(json: json) },
                                             write: { _ in .object([:]) })
        let ledgerFile = MetadataFile.state("check-state.json", paths: paths, read: { json throws(JSONShapeError) in try CheckLedger(json: json) },
                                            write: { $0.json })
        let warnedAboutConfiguration = Mutex(false)
        let check: @Sendable () -> [FileHealth] = {
            [health(configFile.inspect().map { $0.map { _ in () } }, path: configFile.path, kind: .checkConfiguration),
             health(ledgerFile.inspect().map { $0.map { _ in () } }, path: ledgerFile.path, kind: .checkState)]
        }
        let moveLedgerAside: @Sendable (Date) throws(AppError) -> String? = { now throws(AppError) in
            do throws(SecretStoreError) { return try ledgerFile.moveAside(now: now) } catch { throw ErrorMapping.appError(error) }
        }
        if processEnvironment[hookVariable] != nil {
            return AccountEventsClient(configuration: { CheckConfiguration() }, ledger: { ((try? ledgerFile.read()) ?? nil) ?? CheckLedger() },
                                       updateLedger: { _ throws(AppError) in }, notify: { _, _ in nil }, runHook: { _, _ in },
                                       check: check, moveLedgerAside: moveLedgerAside)
        }
        return AccountEventsClient(
            configuration: {
                do throws(SecretStoreError) { return try configFile.read() ?? CheckConfiguration() } catch {
                    let first = warnedAboutConfiguration.withLock { warned in defer { warned = true }; return !warned }
                    if first {
                        say("warning: \(configFile.path) cannot be used (\(damage(error, path: configFile.path).damage)); "
                            + "its hooks are not run — fix it (authdeck check says how)")
                    }
                    return CheckConfiguration()
                }
            },
            ledger: { ((try? ledgerFile.read()) ?? nil) ?? CheckLedger() },
            updateLedger: { body throws(AppError) in
                do throws(SecretStoreError) {
                    try PrivateFiles.ensureDirectory(paths.stateDirectory)
                    try FileLock.withLock(ledgerFile.path + ".lock") { () throws(SecretStoreError) in
                        var ledger: CheckLedger
                        do throws(SecretStoreError) {
                            ledger = try ledgerFile.read() ?? CheckLedger()
                        } catch {
                            guard case .corrupt = error else { throw error }
                            // Damaged: kept aside (every byte), and every state is told again.
                            let aside = try PrivateFiles.moveAside(ledgerFile.path, now: Date())
                            say("warning: \(ledgerFile.path) was damaged (\(error)); moved to \(aside ?? "nowhere") — every state is told again")
                            ledger = CheckLedger()
                        }
                        let before = ledger
                        body(&ledger)
                        if ledger != before { try ledgerFile.write(ledger) }
                    }
                } catch {
                    // The file's own trouble (a directory, a link, damage), not the credential store's.
                    throw damage(error, path: ledgerFile.path).appError
                }
            },
            notify: { told, replacing in
                let urgency: DesktopNotifications.Urgency = switch told.event {
                case .needsSignIn, .failed: .critical
                case .endingSoon, .transient, .storeLocked: .normal
                case .recovered, .refreshed, .signedIn, .signedOut: .low
                }
                return DesktopNotifications.send(.init(summary: told.summary, body: told.detail, urgency: urgency, replacesID: replacing),
                                                 environment: processEnvironment)
            },
            runHook: { hook, told in runHook(hook, told: told, environment: processEnvironment, quiet: report == nil, report: say) },
            check: check, moveLedgerAside: moveLedgerAside)
    }

    /// A file's condition from its read (nil: absent): damaged when it does not parse or is not a
    /// file (a directory, a symbolic link: ``damage(_:path:)``), unreadable otherwise (permissions, I/O).
    static func health(_ read: Result<Void, SecretStoreError>?, path: String, kind: FileHealth.Kind) -> FileHealth {
        let condition: FileHealth.Condition
        switch read {
        case nil: condition = .missing
        case .success?: condition = .ok
        case .failure(let error)?:
            var status = stat()
            let notAFile = lstat(path, &status) == 0 && [S_IFLNK, S_IFDIR].contains(status.st_mode & S_IFMT)
            condition = error.damage != nil || notAFile ? .damaged(damage(error, path: path).damage) : .unreadable("\(error)")
        }
        return FileHealth(kind: kind, path: path, condition: condition)
    }

    /// What is wrong with `check.json` or `check-state.json` (`path`) when `error` says it cannot be
    /// read: its damage (not JSON, the wrong shape), or what it is instead of a file (a directory;
    /// a symbolic link, refused because authdeck opens its files without following links), else
    /// the error's own words.
    public static func damage(_ error: SecretStoreError, path: String) -> FileDamage {
        if let damage = error.damage { return FileDamage(file: path, damage: damage.description) }
        var status = stat()
        if lstat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFLNK:
                return FileDamage(file: path, damage: "it is a symbolic link, which authdeck refuses (its files are opened without following "
                                  + "links, so that a link cannot send what it reads or writes elsewhere)")
            case S_IFDIR: return FileDamage(file: path, damage: "it is a directory, not a file")
            default: break
            }
        }
        return FileDamage(file: path, damage: "\(error)")
    }

    /// Set (to the event) in a hook's environment: an authdeck the hook starts tells nothing.
    public static let hookVariable = "AUTHDECK_HOOK_EVENT"

    /// Runs one hook for one event: `sh -c CMD` in its own process group with `AUTHDECK_EVENT`,
    /// `AUTHDECK_ACCOUNT` (the id), `AUTHDECK_PROVIDER`, `AUTHDECK_MESSAGE` and ``hookVariable``; never a token (the
    /// environment is authdeck's own, which holds none, without its secret variables); stdin
    /// `/dev/null`, stdout and stderr to a pipe of its own, which authdeck copies to its stderr
    /// while the hook runs and closes when it ends (a background child the hook starts never
    /// holds the caller's stderr: `$(authdeck check 2>&1)` returns when check does), or both to
    /// `/dev/null` when `quiet` (``ChildProcess`` detached); ended (SIGTERM, then SIGKILL half a second later, to its group) after `limit`
    /// seconds, or at once when SIGINT, SIGTERM or SIGHUP arrives, which is then raised again as
    /// it was handled before (by default: this process ends by it). A failure is said, never fatal.
    static func runHook(_ command: String, told: CheckLedger.Told, environment: [String: String], quiet: Bool, limit: Double = 10,
                        report: (String) -> Void) {
        var child = BrowserLauncher.childEnvironment(from: environment)
        child["AUTHDECK_EVENT"] = told.event.rawValue
        child["AUTHDECK_ACCOUNT"] = told.account.rawValue
        child["AUTHDECK_PROVIDER"] = told.provider.rawValue
        child["AUTHDECK_MESSAGE"] = told.message
        child[hookVariable] = told.event.rawValue
        var ends: [Int32] = [-1, -1]
        let piped = !quiet && pipe(&ends) == 0
        if piped { for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) } }
        let hook: ChildProcess
        do {
            hook = try ChildProcess.spawn(["/bin/sh", "-c", command], environment: child, keeping: [], detached: true, quiet: quiet,
                                          output: piped ? ends[1] : nil)
        } catch {
            if piped { close(ends[0]); close(ends[1]) }
            report("authdeck: the hook '\(command)' could not start")
            return
        }
        if piped {
            close(ends[1])
            _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        }
        // What the hook wrote is copied to stderr as it comes, and once more when it is gone; then
        // the pipe is closed, whoever still holds its other end.
        defer {
            if piped {
                forwardToStandardError(ends[0])
                close(ends[0])
            }
        }
        // SIGINT, SIGTERM or SIGHUP meanwhile (Ctrl-C, systemd stopping the unit, a closed
        // terminal): the hook's group is ended before this process goes as the signal says.
        let watched = [SIGINT, SIGTERM, SIGHUP]
        let previous = watched.map { signal($0, { hookInterruption.store($0, ordering: .relaxed) }) }
        defer {
            for (number, action) in zip(watched, previous) { signal(number, action) }
        }
        // Ignored signals stay ignored (nohup, a shell's background job).
        for (number, action) in zip(watched, previous) where unsafeBitCast(action, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
            signal(number, SIG_IGN)
        }
        let deadline = Date().addingTimeInterval(limit)
        while true {
            let interruption = hookInterruption.exchange(0, ordering: .relaxed)
            if interruption != 0 {
                hook.endGroup()
                for (number, action) in zip(watched, previous) { signal(number, action) }
                raise(interruption)
                return
            }
            if piped { forwardToStandardError(ends[0]) }
            if let status = hook.reap() {
                if status > 128 {
                    report("authdeck: the hook '\(command)' for \(told.event.rawValue) was ended by signal \(status - 128)")
                } else if status != 0 {
                    report("authdeck: the hook '\(command)' for \(told.event.rawValue) exited \(status)")
                }
                return
            }
            if Date() >= deadline {
                hook.endGroup()
                report("authdeck: the hook '\(command)' for \(told.event.rawValue) was ended after \(Int(limit)) s")
                return
            }
            usleep(20_000)
        }
    }

    /// Copies what `descriptor` (non-blocking) holds now to stderr.
    static func forwardToStandardError(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            var offset = 0
            while offset < count {
                let written = buffer[offset..<count].withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                offset += written
            }
        }
    }
}
