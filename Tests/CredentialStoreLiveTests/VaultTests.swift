@testable import CredentialStoreLive
import CredentialStore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Encrypted file vault")
struct VaultTests {
    func makeVault(_ dir: TemporaryDirectory, passphrase: PassphraseSource = .value(testPassphrase),
                   cache: any VaultKeyCache = NoVaultKeyCache(), name: String = "secrets.vault") -> VaultSecretStore {
        VaultSecretStore(path: dir.file(name), passphrase: passphrase, newVaultLimits: .minimum, keyCache: cache)
    }

    @Test("Round trip: saved secret sets load back, in this and in a fresh instance; file and dir are private")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        let vault = makeVault(dir)
        #expect(vault.kind == .vault && !vault.isInsecure)
        try vault.save(secrets("r-alice"), for: alice)
        try vault.save(secrets("r-bob"), for: bob)
        #expect(try vault.load(alice) == secrets("r-alice"))
        #expect(try makeVault(dir).load(bob) == secrets("r-bob"))
        #expect(try vault.listAccounts() == [alice, bob])
        try vault.delete(alice)
        #expect(throws: SecretStoreError.notFound(alice)) { try vault.load(alice) }
        #expect(mode(of: vault.path) == 0o600)
        #expect(!String(decoding: readBytes(vault.path), as: UTF8.self).contains("r-bob"))
    }

    @Test("One Argon2id derivation per unlock: later writes reuse the key with a fresh nonce")
    func deriveOncePerUnlock() throws {
        let dir = TemporaryDirectory()
        let vault = makeVault(dir)
        try vault.save(secrets("r0"), for: alice)
        var nonces: Set<[UInt8]> = []
        for i in 1...5 {
            try vault.save(secrets("r\(i)"), for: alice)
            nonces.insert(Array(readBytes(vault.path)[76..<100]))
        }
        #expect(vault.derivations == 1)
        #expect(nonces.count == 5)
        let header = try VaultHeader.decode(readBytes(vault.path), path: vault.path)
        #expect(header.opsLimit == VaultSecretStore.KDFLimits.minimum.opsLimit)
    }

    @Test("Production vaults use Argon2id MODERATE")
    func moderateByDefault() {
        let vault = VaultSecretStore(path: "/nonexistent/v", passphrase: .value(testPassphrase))
        #expect(vault.newVaultLimits == .moderate)
        #expect(VaultSecretStore.KDFLimits.moderate.memLimit == 256 << 20)
    }

    @Test("Wrong passphrase is .wrongPassphrase naming the file, not .corrupt")
    func wrongPassphrase() throws {
        let dir = TemporaryDirectory()
        try makeVault(dir).save(secrets("r"), for: alice)
        let other = makeVault(dir, passphrase: .value(VaultPassphrase("not it")))
        #expect(throws: SecretStoreError.wrongPassphrase(file: dir.file("secrets.vault"))) { try other.load(alice) }
    }

    @Test("A flipped bit at every byte position of the file is .corrupt naming the file — never a crash, never wrong passphrase")
    func everyByteCorrupt() throws {
        let dir = TemporaryDirectory()
        let cache = MemoryKeyCache()
        let vault = makeVault(dir, cache: cache)
        try vault.save(AccountSecrets(refreshToken: StoredRefreshToken("r")), for: alice)
        let original = readBytes(vault.path)
        #expect(original.count > VaultHeader.length)
        let damagedPath = dir.file("damaged.vault")
        var seen: [String: Int] = [:]
        for position in original.indices {
            for mask: UInt8 in [0x01, 0x80] {
                var bytes = original
                bytes[position] ^= mask
                writeBytes(bytes, damagedPath)
                // Each copy shares the cached key: no derivation in this loop.
                let copy = VaultSecretStore(path: damagedPath, passphrase: .file(path: "/nonexistent"), newVaultLimits: .minimum, keyCache: cache)
                let error = storeError { _ = try copy.load(alice) }
                guard case .corrupt(let file, let reason)? = error else {
                    Issue.record("byte \(position) mask \(mask): \(String(describing: error))")
                    continue
                }
                #expect(file == damagedPath)
                seen["\(reason)", default: 0] += 1
                #expect(copy.derivations == 0)
            }
        }
        // The header checksum and the AEAD tag share the work.
        #expect(seen["header checksum mismatch"] != nil || seen["not an authdeck file (bad magic)"] != nil)
        #expect(seen["authentication failed (modified ciphertext or header)"] != nil)
    }

    @Test("A truncated file is .truncated with the expected and actual sizes", arguments: [0, 1, 8, 107, 139, 140, -1, -16])
    func truncated(keep: Int) throws {
        let dir = TemporaryDirectory()
        let cache = MemoryKeyCache()
        let vault = makeVault(dir, cache: cache)
        try vault.save(secrets("r"), for: alice)
        let full = readBytes(vault.path)
        let length = keep >= 0 ? keep : full.count + keep
        writeBytes(Array(full.prefix(length)), vault.path)
        let error = storeError { _ = try makeVault(dir, cache: cache).load(alice) }
        let expected = length < VaultHeader.length ? VaultHeader.length : full.count
        #expect(error == .truncated(file: vault.path, expectedBytes: expected, actualBytes: length))
    }

    @Test("Bytes after the end of the ciphertext are .corrupt(.trailingData)")
    func trailingData() throws {
        let dir = TemporaryDirectory()
        let cache = MemoryKeyCache()
        let vault = makeVault(dir, cache: cache)
        try vault.save(secrets("r"), for: alice)
        writeBytes(readBytes(vault.path) + [0], vault.path)
        #expect(throws: SecretStoreError.corrupt(file: vault.path, reason: .trailingData)) {
            try makeVault(dir, cache: cache).load(alice)
        }
    }

    @Test("A file that is not a vault is .corrupt(.badMagic)")
    func notAVault() {
        let dir = TemporaryDirectory()
        writeBytes(Array(repeating: UInt8(ascii: "x"), count: 400), dir.file("secrets.vault"))
        #expect(throws: SecretStoreError.corrupt(file: dir.file("secrets.vault"), reason: .badMagic)) {
            try makeVault(dir).load(alice)
        }
    }

    @Test("Runtime-file key cache: a second process-like instance unlocks without the passphrase until the TTL passes")
    func runtimeFileCacheExpires() throws {
        let dir = TemporaryDirectory()
        let clock = TestClock()
        let cache = RuntimeFileVaultKeyCache(directory: dir.file("runtime"), now: clock.read)
        let first = VaultSecretStore(path: dir.file("v"), passphrase: .value(testPassphrase), newVaultLimits: .minimum,
                                     keyCache: cache, keyCacheTTL: .seconds(60))
        try first.save(secrets("r"), for: alice)
        let cacheFiles = try FileManager.default.contentsOfDirectory(atPath: dir.file("runtime"))
        #expect(cacheFiles.count == 1)
        #expect(mode(of: dir.file("runtime/\(cacheFiles[0])")) == 0o600)

        let noPassphrase = PassphraseSource.file(path: dir.file("absent"))
        let second = VaultSecretStore(path: dir.file("v"), passphrase: noPassphrase, keyCache: cache)
        #expect(try second.load(alice) == secrets("r"))
        #expect(second.derivations == 0)

        clock.advance(by: 61)
        let third = VaultSecretStore(path: dir.file("v"), passphrase: noPassphrase, keyCache: cache)
        #expect(storeError { _ = try third.load(alice) }?.caseName == "passphraseUnavailable")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("runtime")).isEmpty)
    }

    @Test("Kernel keyring key cache (@u, keyctl timeout): found by another instance, gone after the timeout")
    func kernelKeyringCacheExpires() async throws {
        try #require(KernelKeyringVaultKeyCache.isAvailable(), "add_key is refused on this machine")
        let dir = TemporaryDirectory()
        let cache = KernelKeyringVaultKeyCache()
        let first = VaultSecretStore(path: dir.file("v"), passphrase: .value(testPassphrase), newVaultLimits: .minimum,
                                     keyCache: cache, keyCacheTTL: .seconds(1))
        try first.save(secrets("r"), for: alice)
        let noPassphrase = PassphraseSource.file(path: dir.file("absent"))
        let second = VaultSecretStore(path: dir.file("v"), passphrase: noPassphrase, keyCache: cache)
        #expect(try second.load(alice) == secrets("r"))
        try await Task.sleep(for: .milliseconds(2100))
        let third = VaultSecretStore(path: dir.file("v"), passphrase: noPassphrase, keyCache: cache)
        #expect(storeError { _ = try third.load(alice) }?.caseName == "passphraseUnavailable")
        first.forgetKey()
    }

    @Test("forgetKey removes the cached key: the next instance needs the passphrase")
    func forgetKey() throws {
        let dir = TemporaryDirectory()
        let cache = MemoryKeyCache()
        let vault = makeVault(dir, cache: cache)
        try vault.save(secrets("r"), for: alice)
        #expect(cache.count == 1)
        vault.forgetKey()
        #expect(cache.count == 0)
        #expect(storeError { _ = try makeVault(dir, passphrase: .file(path: dir.file("absent")), cache: cache).load(alice) }?.caseName == "passphraseUnavailable")
    }

    @Test("Changing the passphrase re-encrypts every account under a new salt; the old one stops working")
    func changePassphrase() throws {
        let dir = TemporaryDirectory()
        let cache = MemoryKeyCache()
        let vault = makeVault(dir, cache: cache)
        try vault.save(secrets("ra"), for: alice)
        try vault.save(secrets("rb"), for: bob)
        let oldSalt = try VaultHeader.decode(readBytes(vault.path), path: vault.path).salt
        let newPassphrase = VaultPassphrase("a new passphrase")
        try vault.changePassphrase(to: .value(newPassphrase))
        let header = try VaultHeader.decode(readBytes(vault.path), path: vault.path)
        #expect(header.salt != oldSalt)
        #expect(cache.count == 1)
        #expect(try vault.load(alice) == secrets("ra"))
        #expect(throws: SecretStoreError.wrongPassphrase(file: vault.path)) { try makeVault(dir).load(alice) }
        #expect(try makeVault(dir, passphrase: .value(newPassphrase)).listAccounts() == [alice, bob])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test("A vault file readable by others (0644) is refused with .permissionDenied naming it")
    func refuseGroupReadableFile() throws {
        let dir = TemporaryDirectory()
        let vault = makeVault(dir)
        try vault.save(secrets("r"), for: alice)
        chmod(vault.path, 0o644)
        #expect(storeError { _ = try makeVault(dir).load(alice) }?.file == vault.path)
        #expect(storeError { _ = try makeVault(dir).load(alice) }?.caseName == "permissionDenied")
        #expect(storeError { try vault.save(secrets("x"), for: bob) }?.caseName == "permissionDenied")
    }

    @Test("A vault directory others can enter or write (0755, 0777) is refused", arguments: [mode_t(0o755), 0o777, 0o750])
    func refuseOpenDirectory(dirMode: mode_t) throws {
        let dir = TemporaryDirectory()
        let vault = makeVault(dir)
        try vault.save(secrets("r"), for: alice)
        chmod(dir.path, dirMode)
        defer { chmod(dir.path, 0o700) }
        #expect(storeError { _ = try makeVault(dir).load(alice) } == .permissionDenied(
            file: dir.path, cause: .init("mode \(String(dirMode, radix: 8)) lets group or others read or write it (need 600/700)")))
    }

    @Test("A symlinked vault file is refused")
    func refuseSymlink() throws {
        let dir = TemporaryDirectory()
        try makeVault(dir, name: "real.vault").save(secrets("r"), for: alice)
        symlink(dir.file("real.vault"), dir.file("link.vault"))
        #expect(storeError { _ = try makeVault(dir, name: "link.vault").load(alice) }?.caseName == "permissionDenied")
    }

    @Test("The passphrase file is used only when it is 0600 (AUTHDECK_PASSPHRASE_FILE)")
    func passphraseFile() throws {
        let dir = TemporaryDirectory()
        let passFile = dir.file("pass")
        writeBytes(Array("\(testPassphrase.exposedValue)\n".utf8), passFile, mode: 0o600)
        let source = PassphraseSource.fromEnvironment(["AUTHDECK_PASSPHRASE_FILE": passFile])
        #expect(try source.read() == testPassphrase)
        try makeVault(dir).save(secrets("r"), for: alice)
        #expect(try makeVault(dir, passphrase: source).load(alice) == secrets("r"))
        chmod(passFile, 0o644)
        // Refused like a missing file (the store stays locked: exit 4), naming the file and the fix.
        let refused = storeError { _ = try source.read() }
        #expect(refused?.caseName == "passphraseUnavailable")
        #expect("\(refused.map(String.init(describing:)) ?? "")".contains("refusing to use \(passFile): mode 644 lets group or others read or write it"))
        #expect("\(refused.map(String.init(describing:)) ?? "")".contains("(AUTHDECK_PASSPHRASE_FILE)"), "names the variable; the front end says what to do")
        #expect(PassphraseSource.fileRequirement(path: passFile).hasSuffix("(chmod 600 \(passFile))"))
    }

    @Test("A refused passphrase file (symbolic link, directory, FIFO, 0640) is .passphraseUnavailable like a missing one",
          arguments: ["symlink", "directory", "fifo", "0640"])
    func refusedPassphraseFile(_ kind: String) throws {
        let dir = TemporaryDirectory()
        let real = dir.file("real")
        writeBytes(Array("\(testPassphrase.exposedValue)\n".utf8), real, mode: 0o600)
        let path = dir.file("pass")
        switch kind {
        case "symlink": symlink(real, path)
        case "directory": mkdir(path, 0o700)
        case "fifo": mkfifo(path, 0o600)
        default: writeBytes(Array("\(testPassphrase.exposedValue)\n".utf8), path, mode: 0o640)
        }
        let refused = storeError { _ = try PassphraseSource.file(path: path).read() }
        #expect(refused?.caseName == "passphraseUnavailable", "\(String(describing: refused))")
        let text = refused.map { "\($0)" } ?? ""
        #expect(text.contains(path) && text.contains("(AUTHDECK_PASSPHRASE_FILE)"), "the file and the variable; the front end says what to do: \(text)")
        #expect(!text.contains(testPassphrase.exposedValue))
    }

    @Test("A CRLF-terminated passphrase file gives the passphrase without \\r (LF, CRLF, no newline, one line of several)",
          arguments: ["\n", "\r\n", "", "\r\nsecond line\r\n"])
    func passphraseFileLineEndings(_ ending: String) throws {
        let dir = TemporaryDirectory()
        let passFile = dir.file("pass")
        writeBytes(Array("\(testPassphrase.exposedValue)\(ending)".utf8), passFile, mode: 0o600)
        #expect(try PassphraseSource.file(path: passFile).read() == testPassphrase)
        try makeVault(dir).save(secrets("r"), for: alice)
        #expect(try makeVault(dir, passphrase: .file(path: passFile), cache: MemoryKeyCache()).load(alice) == secrets("r"))
    }

    @Test("The passphrase from a file descriptor (AUTHDECK_PASSPHRASE_FD)")
    func passphraseFD() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        _ = "from-fd\n".withCString { write(fds[1], $0, 8) }
        close(fds[1])
        defer { close(fds[0]) }
        let source = PassphraseSource.fromEnvironment(["AUTHDECK_PASSPHRASE_FD": "\(fds[0])"])
        #expect(try source.read() == VaultPassphrase("from-fd"))
    }

    @Test("AUTHDECK_PASSPHRASE_FD that is not a descriptor number (abc, -1, 3x): unavailable, naming the variable and what to give (it was ignored, and the terminal asked)",
          arguments: ["abc", "-1", "3x", " 3"])
    func passphraseFDNotANumber(value: String) throws {
        let source = PassphraseSource.fromEnvironment(["AUTHDECK_PASSPHRASE_FD": value])
        guard case .unavailable(let reason) = source else {
            Issue.record("\(value): \(source)")
            return
        }
        #expect(reason.contains("AUTHDECK_PASSPHRASE_FD") && reason.contains("AUTHDECK_PASSPHRASE_FILE"), "\(reason)")
        #expect(throws: SecretStoreError.self) { try source.read() }
    }

    @Test("Without a controlling terminal, file or fd, the passphrase is .passphraseUnavailable, not a hang")
    func noTerminal() throws {
        let vault = ProbeVault()
        try vault.reader().save(secrets("r"), for: alice)
        let child = try ChildProcess("/usr/bin/setsid", ["--wait", ChildProcess.probePath, "vault-list-tty", vault.path],
                                     environment: ChildProcess.environment(["HOME": vault.directory.path]),
                                     outputDirectory: vault.directory.path)
        #expect(child.wait(timeout: .seconds(30)) == 0)
        #expect(child.jsonLines.first?["error"] as? String == "passphraseUnavailable")
    }

    @Test("The passphrase typed on the terminal unlocks the vault and is not echoed")
    func terminalPrompt() throws {
        let vault = ProbeVault()
        try vault.reader().save(secrets("r"), for: alice)
        // script(1) gives the probe a pseudo-terminal and flushes its typescript (-f); the passphrase
        // is typed once the prompt shows in the typescript.
        let typed = """
            (while ! grep -q 'Vault passphrase' "$TYPESCRIPT" 2>/dev/null; do sleep 0.05; done
             cat "$PASSPHRASE_FILE"; printf '\\n') | script -qfec "$PROBE vault-list-tty $VAULT" "$TYPESCRIPT"
            """
        let child = try ChildProcess("/bin/sh", ["-c", typed], environment: ChildProcess.environment([
            "HOME": vault.directory.path, "PROBE": ChildProcess.probePath, "VAULT": vault.path,
            "PASSPHRASE_FILE": vault.directory.file("passphrase"), "TYPESCRIPT": vault.directory.file("typescript"),
        ]), outputDirectory: vault.directory.path)
        #expect(child.wait(timeout: .seconds(30)) == 0)
        let transcript = child.stdout
        #expect(transcript.contains("Vault passphrase (3 tries):"))
        #expect(transcript.contains(#"{"accounts":["corp\/alice"]}"#))
        #expect(!transcript.contains(testPassphrase.exposedValue))
    }

    @Test("A new vault: the terminal says an encrypted vault is created, where, that a lost passphrase cannot be recovered, and asks twice (no count of tries)",
          arguments: [true, false])
    func newVaultPrompt(sameTwice: Bool) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("vault.bin")
        let typed = """
            (while ! grep -q 'New vault passphrase' "$TYPESCRIPT" 2>/dev/null; do sleep 0.05; done
             printf 'a new passphrase\n'
             while ! grep -q 'Repeat the new passphrase' "$TYPESCRIPT" 2>/dev/null; do sleep 0.05; done
             printf '%s\n' "$SECOND") | script -qfec "$PROBE vault-create-tty $VAULT" "$TYPESCRIPT"
            """
        let child = try ChildProcess("/bin/sh", ["-c", typed], environment: ChildProcess.environment([
            "HOME": dir.path, "PROBE": ChildProcess.probePath, "VAULT": path, "SECOND": sameTwice ? "a new passphrase" : "another one",
            "TYPESCRIPT": dir.file("typescript"),
        ]), outputDirectory: dir.path)
        #expect(child.wait(timeout: .seconds(30)) == 0)
        let transcript = child.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(transcript.contains("""
            authdeck keeps your tokens in an encrypted vault; creating it now at
              \(path)
            Choose its passphrase. It cannot be recovered: if it is lost, the vault cannot be opened and
            its accounts must sign in again (AUTHDECK_PASSPHRASE_FILE can give it to authdeck instead).
            New vault passphrase:
            """), "\(transcript)")
        #expect(transcript.contains("Repeat the new passphrase:"), "\(transcript)")
        #expect(!transcript.contains("tries"), "a new vault has no tries to count: \(transcript)")
        #expect(!transcript.contains("a new passphrase\n"), "not echoed")
        if sameTwice {
            #expect(transcript.contains(#"{"created":true}"#), "\(transcript)")
            #expect(FileManager.default.fileExists(atPath: path))
        } else {
            #expect(transcript.contains(#"{"error":"passphraseUnavailable"}"#), "\(transcript)")
            #expect(!FileManager.default.fileExists(atPath: path), "no vault was created")
        }
    }

    @Test("The terminal prompt allows three tries and says how many are left; a third wrong one is .wrongPassphrase",
          arguments: [3, 4])
    func terminalPromptThreeTries(goodAnswer: Int) throws {
        let vault = ProbeVault()
        try vault.reader().save(secrets("r"), for: alice)
        // Answer n waits for the n-th prompt; answers before `GOOD` are wrong (GOOD 4: all three).
        let typed = """
            last=$GOOD; [ "$last" -gt 3 ] && last=3
            (i=1; while [ $i -le $last ]; do
               while [ "$(grep -o 'Vault passphrase' "$TYPESCRIPT" 2>/dev/null | wc -l)" -lt $i ]; do sleep 0.05; done
               if [ $i -lt $GOOD ]; then printf 'not-the-passphrase-%s\n' $i; else cat "$PASSPHRASE_FILE"; printf '\n'; fi
               i=$((i + 1))
             done) | script -qfec "$PROBE vault-list-tty $VAULT" "$TYPESCRIPT"
            """
        let child = try ChildProcess("/bin/sh", ["-c", typed], environment: ChildProcess.environment([
            "HOME": vault.directory.path, "PROBE": ChildProcess.probePath, "VAULT": vault.path, "GOOD": "\(goodAnswer)",
            "PASSPHRASE_FILE": vault.directory.file("passphrase"), "TYPESCRIPT": vault.directory.file("typescript"),
        ]), outputDirectory: vault.directory.path)
        #expect(child.wait(timeout: .seconds(60)) == 0)
        let transcript = child.stdout
        #expect(transcript.contains("Vault passphrase (3 tries):"), "the prompt says how many tries")
        #expect(transcript.contains("Wrong passphrase; 2 tries left."), "\(transcript)")
        #expect(transcript.contains("Wrong passphrase; 1 try left."), "\(transcript)")
        // Each prompt after a wrong try says what is left (it said "3 tries" every time).
        #expect(transcript.components(separatedBy: "Vault passphrase (3 tries):").count - 1 == 1)
        #expect(transcript.contains("Vault passphrase (2 tries left):") && transcript.contains("Vault passphrase (1 try left):"), "\(transcript)")
        if goodAnswer <= 3 {
            #expect(transcript.contains(#"{"accounts":["corp\/alice"]}"#), "\(transcript)")
        } else {
            #expect(transcript.contains(#"{"error":"wrongPassphrase"}"#), "\(transcript)")
            #expect(!transcript.contains("0 tries left"))
        }
        #expect(!transcript.contains(testPassphrase.exposedValue))
        #expect(!transcript.contains("not-the-passphrase"), "typed answers are not echoed")
    }

    @Test("A passphrase file that is wrong is tried once (it would give the same answer again)")
    func wrongPassphraseFileOnce() throws {
        let dir = TemporaryDirectory()
        try makeVault(dir).save(secrets("r"), for: alice)
        let passFile = dir.file("pass")
        writeBytes(Array("not the passphrase\n".utf8), passFile, mode: 0o600)
        let vault = makeVault(dir, passphrase: .file(path: passFile))
        #expect(storeError { _ = try vault.load(alice) }?.caseName == "wrongPassphrase")
        #expect(vault.derivations == 1)
    }

    @Test("Saving one account leaves the others as they were; stale temp files of killed writers are removed")
    func otherAccountsUntouched() throws {
        let dir = TemporaryDirectory()
        let vault = makeVault(dir)
        try vault.save(secrets("ra"), for: alice)
        try vault.save(secrets("rb"), for: bob)
        writeBytes([1, 2, 3], dir.file(".secrets.vault.tmp-abc123"))
        try vault.save(secrets("rb2"), for: bob)
        #expect(try vault.load(alice) == secrets("ra"))
        #expect(!FileManager.default.fileExists(atPath: dir.file(".secrets.vault.tmp-abc123")))
    }
}

@Suite("Plaintext file store")
struct PlaintextTests {
    @Test("The plaintext backend round-trips, writes 0600, and always reports itself insecure")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        let store = PlaintextFileSecretStore(path: dir.file("secrets.insecure.json"))
        #expect(store.isInsecure && store.kind == .plaintext)
        try store.save(secrets("r"), for: alice)
        #expect(try PlaintextFileSecretStore(path: store.path).load(alice) == secrets("r"))
        #expect(mode(of: store.path) == 0o600)
        try store.delete(alice)
        #expect(try store.listAccounts().isEmpty)
    }

    @Test("A damaged plaintext file is .corrupt naming it")
    func corrupt() {
        let dir = TemporaryDirectory()
        writeBytes(Array("{not json".utf8), dir.file("p.json"))
        #expect(storeError { _ = try PlaintextFileSecretStore(path: dir.file("p.json")).load(alice) }?.file == dir.file("p.json"))
    }
}

@Suite("Vault batch save")
struct VaultBatchTests {
    @Test("saveAll writes several accounts in one replacement and keeps existing ones")
    func saveAll() throws {
        let dir = TemporaryDirectory()
        let vault = VaultSecretStore(path: dir.file("v"), passphrase: .value(testPassphrase), newVaultLimits: .minimum)
        try vault.save(secrets("keep"), for: AccountKey(provider: "p", account: "keep"))
        let batch = Dictionary(uniqueKeysWithValues: (0..<20).map { (AccountKey(provider: "p", account: "a\($0)"), secrets("r\($0)")) })
        try vault.saveAll(batch)
        #expect(try vault.listAccounts().count == 21)
        #expect(try vault.load(AccountKey(provider: "p", account: "a7")) == secrets("r7"))
        #expect(try vault.load(AccountKey(provider: "p", account: "keep")) == secrets("keep"))
        #expect(vault.derivations == 1)
    }
}

@Suite("Vault payload framing")
struct VaultRecordsTests {
    @Test("Records round-trip; only the requested account is decoded")
    func roundTrip() throws {
        var records = VaultRecords()
        records.set(secrets("a"), for: alice)
        records.set(secrets("b"), for: AccountKey(provider: "ü/\u{0}", account: ""))
        let decoded = try VaultRecords.decode(records.encoded(), path: "v")
        #expect(try decoded.secrets(for: alice, path: "v") == secrets("a"))
        #expect(try decoded.secrets(for: AccountKey(provider: "ü/\u{0}", account: ""), path: "v") == secrets("b"))
        #expect(try decoded.secrets(for: bob, path: "v") == nil)
        #expect(try VaultRecords.decode([], path: "v").records.isEmpty)
    }

    @Test("A frame whose length runs past the end is .corrupt(.malformedRecord), never a trap",
          arguments: [[0, 0, 0, 5, 97], [0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255], [0, 0, 0, 1, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]] as [[UInt8]])
    func badFrames(bytes: [UInt8]) {
        guard case .corrupt(file: "v", reason: .malformedRecord)? = storeError({ _ = try VaultRecords.decode(bytes, path: "v") }) else {
            Issue.record("not malformedRecord")
            return
        }
    }
}
