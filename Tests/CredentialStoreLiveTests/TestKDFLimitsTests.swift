// The test-only seam for cheap vaults made by the binary (AUTHDECK_TEST_MINIMUM_KDF_PASSPHRASE_FILE):
// it takes both variables naming the same file, or nothing changes.
import CredentialStore
import CredentialStoreLive
import QuickToken
import Testing

@Suite("Minimum Argon2id limits for test vaults: only with both variables naming one file")
struct TestKDFLimitsTests {
    static let variable = "AUTHDECK_TEST_MINIMUM_KDF_PASSPHRASE_FILE"

    @Test("The variable's name (README) says test and passphrase (so the browser's environment drops it)")
    func name() throws {
        #expect(LiveSecretStores.testMinimumKDFVariable == Self.variable)
    }

    @Test("Both variables naming the same passphrase file: a new vault gets libsodium's minimum limits")
    func bothNameTheFile() throws {
        let environment = ["AUTHDECK_PASSPHRASE_FILE": "/t/passphrase", Self.variable: "/t/passphrase"]
        #expect(LiveSecretStores.newVaultLimits(environment: environment, otherwise: .moderate) == .minimum)
        let store = try LiveSecretStores.make(.vault, paths: XDGPaths(environment: ["HOME": "/home/u"]), environment: environment)
        #expect((store as? VaultSecretStore)?.newVaultLimits == .minimum)
    }

    @Test("Anything else keeps the limits asked for: one variable alone, another file, the passphrase from a descriptor, an empty value, a Unicode-equivalent path",
          arguments: [
              ["AUTHDECK_PASSPHRASE_FILE": "/t/passphrase"],
              [TestKDFLimitsTests.variable: "/t/passphrase"],
              ["AUTHDECK_PASSPHRASE_FILE": "/t/passphrase", TestKDFLimitsTests.variable: "/t/other"],
              ["AUTHDECK_PASSPHRASE_FILE": "/t/passphrase", TestKDFLimitsTests.variable: "/t/passphrase/"],
              ["AUTHDECK_PASSPHRASE_FD": "3", TestKDFLimitsTests.variable: "/t/passphrase"],
              ["AUTHDECK_PASSPHRASE_FILE": "", TestKDFLimitsTests.variable: ""],
              ["AUTHDECK_PASSPHRASE_FILE": "/t/caf\u{E9}", TestKDFLimitsTests.variable: "/t/cafe\u{301}"],
          ])
    func otherwiseUnchanged(_ environment: [String: String]) throws {
        #expect(LiveSecretStores.newVaultLimits(environment: environment, otherwise: .moderate) == .moderate)
        #expect(LiveSecretStores.newVaultLimits(environment: environment, otherwise: .interactive) == .interactive)
        let store = try LiveSecretStores.make(.vault, paths: XDGPaths(environment: ["HOME": "/home/u"]), environment: environment)
        #expect((store as? VaultSecretStore)?.newVaultLimits == .moderate)
    }
}
