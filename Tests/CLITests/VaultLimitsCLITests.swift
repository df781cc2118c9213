// The Argon2id limits the shipped binary writes into a new vault: libsodium's moderate ones,
// unless AUTHDECK_TEST_MINIMUM_KDF_PASSPHRASE_FILE names the very file in
// AUTHDECK_PASSPHRASE_FILE (what CLIHome sets, so the suites do not pay 0.5 s per vault).
import Foundation
import Testing

@Suite("The binary's vault limits: moderate unless the test variable names the passphrase file")
struct VaultLimitsCLITests {
    /// Argon2id opslimit and memlimit (bytes) from a vault header: big-endian at offsets 12 and
    /// 20 (CredentialStoreLive's VaultFormat).
    static func limits(ofVaultIn home: CLIHome) throws -> (ops: UInt64, mem: UInt64) {
        let bytes = try [UInt8](Data(contentsOf: home.root.appendingPathComponent("data/authdeck/secrets.vault")))
        try #require(bytes.count >= 28, "a vault header")
        func number(_ offset: Int) -> UInt64 { bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        return (number(12), number(20))
    }

    /// A new vault, made by storing a client secret.
    static func makeVault(_ home: CLIHome, extra: [String: String]) async throws {
        let added = try await home.run(["provider", "add", "--no-probe", "p", "--issuer", "https://op.example.test", "--client-id", "cid",
                                        "--client-secret-stdin"], stdin: Data("test-client-secret\n".utf8), extra: extra)
        try #require(added.exitCode == 0, "provider add: \(added)")
    }

    @Test("Both variables naming the same file: 1 pass, 8 KiB (libsodium's minimum)")
    func minimumForTheTestFile() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        try await Self.makeVault(home, extra: [:])
        let (ops, mem) = try Self.limits(ofVaultIn: home)
        #expect(ops == 1 && mem == 8192, "\(ops) passes, \(mem) bytes")
    }

    @Test("Without it, or naming another file: 3 passes, 256 MiB (moderate), as for every real vault",
          arguments: ["", "other-passphrase"])
    func moderateOtherwise(_ named: String) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let value = named.isEmpty ? "" : home.root.appendingPathComponent(named).path
        try await Self.makeVault(home, extra: ["AUTHDECK_TEST_MINIMUM_KDF_PASSPHRASE_FILE": value])
        let (ops, mem) = try Self.limits(ofVaultIn: home)
        #expect(ops == 3 && mem == 256 << 20, "\(ops) passes, \(mem) bytes")
    }
}
