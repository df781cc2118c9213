@testable import CredentialStoreLive
import CredentialStore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A vault directory, a 0600 passphrase file for the probes (AUTHDECK_PASSPHRASE_FILE), and an
/// in-test reader that shares one derived key (no derivation per check).
final class ProbeVault: Sendable {
    let directory = TemporaryDirectory("authdeck-vault")
    let cache = MemoryKeyCache()

    init() {
        writeBytes(Array(testPassphrase.exposedValue.utf8), directory.file("passphrase"))
    }

    var path: String { directory.file("secrets.vault") }

    var environment: [String: String] {
        ChildProcess.environment(["HOME": directory.path, "AUTHDECK_PASSPHRASE_FILE": directory.file("passphrase")])
    }

    func reader() -> VaultSecretStore {
        VaultSecretStore(path: path, passphrase: .value(testPassphrase), newVaultLimits: .minimum, keyCache: cache)
    }

    func probe(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(ChildProcess.probePath, arguments, environment: environment, outputDirectory: directory.path)
    }
}

func counterValue(_ secrets: AccountSecrets?) -> Int {
    secrets?.refreshToken.flatMap { Int($0.exposedValue.dropFirst(3)) } ?? 0
}

@Suite("Vault under crashes and concurrent processes", .serialized)
struct CrashAndConcurrencyTests {
    init() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ChildProcess.probePath), "build with swift build --build-tests")
    }

    @Test("SIGKILL at random moments while writing, 100 times: the vault always opens and holds the last committed value or the one in flight")
    func sigkillWhileWriting() throws {
        let vault = ProbeVault()
        let key = AccountKey(provider: "crash", account: "alice")
        var previous = 0
        var progressed = 0
        var generator = SystemRandomNumberGenerator()
        for round in 1...100 {
            let child = try vault.probe(["vault-write-loop", vault.path, "alice"])
            usleep(UInt32.random(in: 2_000...60_000, using: &generator))
            child.stop()
            let committed = child.jsonLines.compactMap { $0["committed"] as? Int }.last
            #expect(child.jsonLines.allSatisfy { $0["error"] == nil }, "round \(round): \(child.stdout)")
            guard FileManager.default.fileExists(atPath: vault.path) else {
                #expect(committed == nil, "round \(round): committed but no file")
                continue
            }
            let value: Int
            do {
                value = counterValue(try vault.reader().load(key))
            } catch {
                Issue.record("round \(round): vault does not open: \(error)")
                return
            }
            // The file holds the old or the new content: at least what was committed, at most one more.
            if let committed {
                #expect(value == committed || value == committed + 1, "round \(round): file \(value), committed \(committed)")
            }
            #expect(value >= previous, "round \(round): went back from \(previous) to \(value)")
            if value > previous { progressed += 1 }
            previous = value
        }
        #expect(progressed > 10, "the writer rarely got to write; kills came too early")
        // Temp files of killed writers are swept by the next writer; at most the last one's remains.
        let temps = try FileManager.default.contentsOfDirectory(atPath: vault.directory.path).filter { $0.contains(".tmp-") }
        #expect(temps.count <= 1)
    }

    @Test("8 processes updating 8 different accounts of one vault at once: no update lost")
    func eightProcessesDifferentAccounts() throws {
        let vault = ProbeVault()
        let iterations = 15
        try vault.reader().save(AccountSecrets(refreshToken: StoredRefreshToken("rt-0")), for: AccountKey(provider: "seed", account: "seed"))
        let children = try (0..<8).map { try vault.probe(["locked-rmw", vault.path, "corp", "account-\($0)", "\(iterations)"]) }
        for child in children {
            #expect(child.wait(timeout: .seconds(120)) == 0, "\(child.stdout) \(child.stderr)")
            #expect(child.jsonLines.last?["done"] as? Int == iterations)
            // Each process unlocks once and then reuses the key for every write.
            #expect(child.jsonLines.last?["derivations"] as? Int == 1)
        }
        let reader = vault.reader()
        for index in 0..<8 {
            #expect(counterValue(try reader.load(AccountKey(provider: "corp", account: "account-\(index)"))) == iterations)
        }
        #expect(try reader.listAccounts().count == 9)
    }

    @Test("8 processes doing locked read-modify-write on the SAME account: every increment survives (the refresh hook)")
    func eightProcessesSameAccount() throws {
        let vault = ProbeVault()
        let iterations = 10
        let children = try (0..<8).map { _ in try vault.probe(["locked-rmw", vault.path, "corp", "shared", "\(iterations)"]) }
        for child in children {
            #expect(child.wait(timeout: .seconds(120)) == 0, "\(child.stdout) \(child.stderr)")
        }
        #expect(counterValue(try vault.reader().load(AccountKey(provider: "corp", account: "shared"))) == 8 * iterations)
    }
}
