// credential-store-probe: a child process for the credential store tests and the benchmark.
// Prints one JSON object per line on stdout (unbuffered). Never prints a secret: test secrets
// are derived from non-secret seeds, and results say only "match"/"mismatch" or an error case.
//
//   select                                       {"kind":"vault","reason":"secretServiceUnreachable"}
//   ss-reachable                                 {"reachable":true}
//   ss-roundtrip                                 one line per step
//   ss-save <provider> <account> <seed>          {"result":"ok","elapsedMs":n} | {"error":"<case>","message":…,"elapsedMs":n}
//                                                (AUTHDECK_NONINTERACTIVE=1: the store of an unattended run, no prompt)
//   ss-save-cancel <provider> <account> <seed> <ms>  the save in a task cancelled after <ms> (a Ctrl-C during a prompt)
//   ss-load <provider> <account> <seed>          {"result":"match"|"mismatch"} | {"error":"<case>"}
//   ss-timeout <timeout-ms>                      stops the Secret Service daemon (SIGSTOP), calls it, resumes it
//   vault-write-loop <vault> <account>           saves rt-1, rt-2, … forever; prints {"committed":n} after each save
//   locked-rmw <vault> <provider> <account> <n>  n × (withAccountLock { re-read; counter+1; save }): the hook the
//                                                engine's "8 processes refresh the same account" test will use
//   vault-list-tty <vault>                       unlocks with a passphrase typed on /dev/tty
//   vault-create-tty <vault>                     creates the vault (one account) with a passphrase typed twice on /dev/tty
//   bench <dir>                                  unlock cost and load-one-of-1000 figures
// Vault commands read the passphrase from AUTHDECK_PASSPHRASE_FILE and use Argon2id MIN (tests only).
import CredentialStore
import CredentialStoreLive
import Foundation
import QuickToken

#if canImport(Glibc)
import Glibc
#endif

func emit(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    var line = data
    line.append(UInt8(ascii: "\n"))
    line.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
}

func caseName(_ error: any Error) -> String {
    guard let error = error as? SecretStoreError else { return "other" }
    switch error {
    case .notFound: return "notFound"
    case .unavailable: return "unavailable"
    case .timeout: return "timeout"
    case .locked: return "locked"
    case .corrupt: return "corrupt"
    case .truncated: return "truncated"
    case .wrongPassphrase: return "wrongPassphrase"
    case .permissionDenied: return "permissionDenied"
    case .passphraseUnavailable: return "passphraseUnavailable"
    case .io: return "io"
    case .invalidConfiguration: return "invalidConfiguration"
    case .cancelled: return "cancelled"
    }
}

/// Test secrets from a non-secret seed.
func fixture(_ seed: String) -> AccountSecrets {
    AccountSecrets(
        defaultAccessToken: StoredAccessTokenEntry(token: StoredAccessToken("at-\(seed)"), expiresAt: Date(timeIntervalSince1970: 1_900_000_000)),
        resourceAccessTokens: ["https://api.example.test": StoredAccessTokenEntry(token: StoredAccessToken("at-api-\(seed)"))],
        refreshToken: StoredRefreshToken("rt-\(seed)"),
        idToken: StoredIDToken("id-\(seed)")
    )
}

func counter(_ secrets: AccountSecrets?) -> Int {
    secrets?.refreshToken.flatMap { Int($0.exposedValue.dropFirst(3)) } ?? 0
}

func vault(_ path: String, environment: [String: String]) -> VaultSecretStore {
    VaultSecretStore(path: path, passphrase: .fromEnvironment(environment), newVaultLimits: .minimum)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment
let lockDirectory = XDGPaths(environment: environment).lockDirectory

func run() -> Int32 {
    switch arguments.first {
    case "ss-reachable":
        emit(["reachable": SecretServiceStore.probe() == .answered])
    case "select":
        do {
            let selection = try LiveSecretStores.select(environment: environment, probeTimeout: .seconds(3))
            emit(["kind": selection.kind.rawValue, "reason": selection.reason.rawValue])
        } catch { emit(["error": caseName(error)]) }
    case "ss-roundtrip":
        let store = SecretServiceStore(lockDirectory: lockDirectory)
        let key = AccountKey(provider: "corp", account: "alice")
        let other = AccountKey(provider: "corp", account: "bob")
        func step(_ name: String, _ body: () throws -> Any) {
            do { emit(["step": name, "result": try body()]) } catch { emit(["step": name, "error": caseName(error)]) }
        }
        step("save") { try store.save(fixture("one"), for: key); return "ok" }
        step("save-other") { try store.save(fixture("two"), for: other); return "ok" }
        step("load") { try store.load(key) == fixture("one") ? "match" : "mismatch" }
        step("overwrite") { try store.save(fixture("three"), for: key); return try store.load(key) == fixture("three") ? "match" : "mismatch" }
        step("list") { try store.listAccounts().map(\.description) }
        step("delete") { try store.delete(key); return "ok" }
        step("load-deleted") { _ = try store.load(key); return "present" }
        step("load-other") { try store.load(other) == fixture("two") ? "match" : "mismatch" }
        step("delete-absent") { try store.delete(key); return "ok" }
    case "ss-save" where arguments.count == 4:
        let start = ContinuousClock.now
        do {
            // AUTHDECK_NONINTERACTIVE=1: as `authdeck check` makes its store (no prompt).
            let interactive = ProcessInfo.processInfo.environment["AUTHDECK_NONINTERACTIVE"] != "1"
            try SecretServiceStore(lockDirectory: lockDirectory, interactive: interactive)
                .save(fixture(arguments[3]), for: AccountKey(provider: arguments[1], account: arguments[2]))
            emit(["result": "ok", "elapsedMs": elapsedMilliseconds(since: start)])
        } catch { emit(["error": caseName(error), "message": "\(error)", "elapsedMs": elapsedMilliseconds(since: start)]) }
    case "ss-save-cancel" where arguments.count == 5:
        let start = ContinuousClock.now
        let key = AccountKey(provider: arguments[1], account: arguments[2])
        let secrets = fixture(arguments[3])
        let store = SecretServiceStore(lockDirectory: lockDirectory)
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            defer { done.signal() }
            do {
                try store.save(secrets, for: key)
                emit(["result": "ok", "elapsedMs": elapsedMilliseconds(since: start)])
            } catch { emit(["error": caseName(error), "message": "\(error)", "elapsedMs": elapsedMilliseconds(since: start)]) }
        }
        usleep(useconds_t((Int(arguments[4]) ?? 500) * 1000))
        task.cancel()
        done.wait()
    case "ss-load" where arguments.count == 4:
        do {
            let loaded = try SecretServiceStore(lockDirectory: lockDirectory).load(AccountKey(provider: arguments[1], account: arguments[2]))
            emit(["result": loaded == fixture(arguments[3]) ? "match" : "mismatch"])
        } catch { emit(["error": caseName(error)]) }
    case "ss-timeout" where arguments.count == 2:
        return stopDaemonAndCall(timeoutMilliseconds: Int(arguments[1]) ?? 1000)
    case "vault-write-loop" where arguments.count == 3:
        let store = vault(arguments[1], environment: environment)
        let key = AccountKey(provider: "crash", account: arguments[2])
        var n = counter(try? store.load(key))
        while true {
            n += 1
            do {
                try store.save(AccountSecrets(refreshToken: StoredRefreshToken("rt-\(n)")), for: key)
            } catch {
                emit(["error": caseName(error)])
                return 1
            }
            emit(["committed": n])
        }
    case "locked-rmw" where arguments.count == 5:
        let store = vault(arguments[1], environment: environment)
        let key = AccountKey(provider: arguments[2], account: arguments[3])
        let iterations = Int(arguments[4]) ?? 1
        do {
            for _ in 0..<iterations {
                try store.withAccountLock(key) {
                    // Re-read inside the lock: another process may have written meanwhile.
                    let current = try store.loadIfPresent(key)
                    try store.save(AccountSecrets(refreshToken: StoredRefreshToken("rt-\(counter(current) + 1)")), for: key)
                }
            }
            emit(["done": iterations, "derivations": store.derivations])
        } catch {
            emit(["error": caseName(error)])
            return 1
        }
    case "vault-list-tty" where arguments.count == 2:
        // Unlocks with a passphrase typed on the controlling terminal (echo off).
        // The real prompt (`fromEnvironment` with no file or fd): three tries.
        let store = VaultSecretStore(path: arguments[1], passphrase: PassphraseSource.fromEnvironment([:]), newVaultLimits: .minimum)
        do { emit(["accounts": try store.listAccounts().map(\.description)]) } catch { emit(["error": caseName(error)]) }
    case "vault-create-tty" where arguments.count == 2:
        // A new vault with the real prompt (`fromEnvironment` with no file or fd).
        let store = VaultSecretStore(path: arguments[1], passphrase: PassphraseSource.fromEnvironment([:]), newVaultLimits: .minimum)
        do {
            try store.save(fixture("n"), for: AccountKey(provider: "corp", account: "alice"))
            emit(["created": true])
        } catch {
            emit(["error": caseName(error)])
        }
    case "bench" where arguments.count == 2:
        return benchmark(directory: arguments[1])
    default:
        FileHandle.standardError.write(Data("usage: see the header of Tests/CredentialStoreProbe/main.swift\n".utf8))
        return 2
    }
    return 0
}

/// Finds the Secret Service daemon's PID through the bus, stops it, makes a call that must time
/// out, then resumes the daemon.
func stopDaemonAndCall(timeoutMilliseconds: Int) -> Int32 {
    let store = SecretServiceStore(lockDirectory: lockDirectory, timeout: .milliseconds(timeoutMilliseconds))
    let key = AccountKey(provider: "corp", account: "timeout")
    do { try store.save(fixture("t"), for: key) } catch {
        emit(["error": caseName(error), "step": "warm-up"])
        return 1
    }
    let lookup = Process()
    lookup.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
    lookup.arguments = ["--session", "--print-reply=literal", "--dest=org.freedesktop.DBus", "/",
                        "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:org.freedesktop.secrets"]
    let output = Pipe()
    lookup.standardOutput = output
    guard (try? lookup.run()) != nil else { return 1 }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    lookup.waitUntilExit()
    guard let pid = text.split(separator: " ").last.flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), pid > 1 else {
        emit(["error": "no daemon pid"])
        return 1
    }
    kill(pid, SIGSTOP)
    defer { kill(pid, SIGCONT) }
    let start = ContinuousClock.now
    do {
        _ = try store.load(key)
        emit(["result": "answered"])
    } catch {
        let elapsed = ContinuousClock.now - start
        emit(["error": caseName(error), "elapsedMs": Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)])
    }
    return 0
}

func elapsedMilliseconds(since start: ContinuousClock.Instant) -> Int {
    let elapsed = ContinuousClock.now - start
    return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Prints the unlock cost (Argon2id MODERATE) and the time of `load` of one account among 1,000.
func benchmark(directory: String) -> Int32 {
    let clock = ContinuousClock()
    let path = "\(directory)/bench.vault"
    let passphrase = PassphraseSource.value(VaultPassphrase("benchmark passphrase"))
    let cacheDirectory = "\(directory)/runtime"
    let cache = RuntimeFileVaultKeyCache(directory: cacheDirectory)
    do {
        // Create the vault (one MODERATE derivation) and fill it with 1,000 accounts in one write.
        let writer = VaultSecretStore(path: path, passphrase: passphrase, newVaultLimits: .moderate, keyCache: cache)
        var t = clock.now
        try writer.save(fixture("0"), for: AccountKey(provider: "bench", account: "account-0000"))
        emit(["measure": "create vault (MODERATE derivation + first write)", "ms": milliseconds(clock.now - t)])
        var more: [AccountKey: AccountSecrets] = [:]
        for i in 1..<1000 { more[AccountKey(provider: "bench", account: String(format: "account-%04d", i))] = fixture("\(i)") }
        try writer.saveAll(more)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        emit(["measure": "vault file with 1000 accounts", "bytes": size, "derivations": writer.derivations])

        // Unlock from the passphrase (a fresh process with no cached key).
        var unlocks: [Double] = []
        for _ in 0..<3 {
            let cold = VaultSecretStore(path: path, passphrase: passphrase)
            t = clock.now
            try cold.unlock()
            unlocks.append(milliseconds(clock.now - t))
        }
        emit(["measure": "unlock from passphrase (Argon2id MODERATE + decrypt 1000 accounts)", "ms": unlocks])

        // Unlock cost alone: a one-account MODERATE vault.
        let onePath = "\(directory)/one.vault"
        try VaultSecretStore(path: onePath, passphrase: passphrase, newVaultLimits: .moderate).save(fixture("x"), for: AccountKey(provider: "bench", account: "one"))
        var oneUnlocks: [Double] = []
        for _ in 0..<3 {
            let cold = VaultSecretStore(path: onePath, passphrase: passphrase)
            t = clock.now
            try cold.unlock()
            oneUnlocks.append(milliseconds(clock.now - t))
        }
        emit(["measure": "unlock from passphrase, 1-account vault (Argon2id MODERATE alone)", "ms": oneUnlocks])

        // A new process with the key in the cache: load one account.
        var cachedLoads: [Double] = []
        for i in 0..<5 {
            let fresh = VaultSecretStore(path: path, passphrase: .file(path: "/nonexistent"), keyCache: cache)
            t = clock.now
            _ = try fresh.load(AccountKey(provider: "bench", account: String(format: "account-%04d", i * 137)))
            cachedLoads.append(milliseconds(clock.now - t))
        }
        emit(["measure": "load 1 of 1000, new instance, key from the runtime-file cache", "ms": cachedLoads])

        if KernelKeyringVaultKeyCache.isAvailable() {
            let kernel = KernelKeyringVaultKeyCache()
            try VaultSecretStore(path: path, passphrase: passphrase, keyCache: kernel).unlock()
            var kernelLoads: [Double] = []
            for i in 0..<5 {
                let fresh = VaultSecretStore(path: path, passphrase: .file(path: "/nonexistent"), keyCache: kernel)
                t = clock.now
                _ = try fresh.load(AccountKey(provider: "bench", account: String(format: "account-%04d", i * 137)))
                kernelLoads.append(milliseconds(clock.now - t))
            }
            emit(["measure": "load 1 of 1000, new instance, key from the kernel keyring", "ms": kernelLoads])
            VaultSecretStore(path: path, passphrase: .file(path: "/nonexistent"), keyCache: kernel).forgetKey()
        }

        // Small vaults, the common case: load 1 of 10.
        let smallPath = "\(directory)/small.vault"
        let small = VaultSecretStore(path: smallPath, passphrase: passphrase, newVaultLimits: .minimum)
        for i in 0..<10 { try small.save(fixture("\(i)"), for: AccountKey(provider: "bench", account: "a\(i)")) }
        var smallLoads: [Double] = []
        var smallSaves: [Double] = []
        for i in 0..<5 {
            t = clock.now
            _ = try small.load(AccountKey(provider: "bench", account: "a\(i)"))
            smallLoads.append(milliseconds(clock.now - t))
            t = clock.now
            try small.save(fixture("r\(i)"), for: AccountKey(provider: "bench", account: "a\(i)"))
            smallSaves.append(milliseconds(clock.now - t))
        }
        emit(["measure": "load 1 of 10, key in memory", "ms": smallLoads])
        emit(["measure": "save (rotate) 1 of 10, key in memory, incl. fsyncs", "ms": smallSaves])

        // The same instance (key in memory): load and save (rotation) costs.
        var warmLoads: [Double] = []
        var saves: [Double] = []
        for i in 0..<5 {
            t = clock.now
            _ = try writer.load(AccountKey(provider: "bench", account: String(format: "account-%04d", i * 199)))
            warmLoads.append(milliseconds(clock.now - t))
            t = clock.now
            try writer.save(fixture("rotated-\(i)"), for: AccountKey(provider: "bench", account: "account-0500"))
            saves.append(milliseconds(clock.now - t))
        }
        emit(["measure": "load 1 of 1000, key in memory", "ms": warmLoads])
        emit(["measure": "save (rotate one account) among 1000, key in memory", "ms": saves, "derivations": writer.derivations])
        writer.forgetKey()
        return 0
    } catch {
        emit(["error": caseName(error), "detail": "\(error)"])
        return 1
    }
}

exit(run())
