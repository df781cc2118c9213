import CredentialStore
import Foundation
import Testing
import TestSupport

let secretAccess = "at-SECRET-1f0e"
let secretResourceAccess = "at-RESOURCE-SECRET-77"
let secretRefresh = "rt-SECRET-9a9b"
let secretID = "eyJ.SECRET-ID.sig"
let secretClient = "cs-SECRET-c1c2"
let allSecrets = [secretAccess, secretResourceAccess, secretRefresh, secretID, secretClient]

func sampleSecrets() -> AccountSecrets {
    AccountSecrets(
        defaultAccessToken: StoredAccessTokenEntry(
            token: StoredAccessToken(secretAccess), expiresAt: Date(timeIntervalSince1970: 1_800_000_000),
            tokenType: "Bearer", scope: ["openid", "profile"]),
        resourceAccessTokens: [
            "https://api.example.test": StoredAccessTokenEntry(
                token: StoredAccessToken(secretResourceAccess), expiresAt: Date(timeIntervalSince1970: 1_800_000_600))
        ],
        refreshToken: StoredRefreshToken(secretRefresh),
        idToken: StoredIDToken(secretID),
        clientSecret: StoredClientSecret(secretClient)
    )
}

@Suite("Records and encoding")
struct RecordTests {
    @Test("A secret set round-trips through its serialized form, per-resource tokens and expiries included")
    func roundTrip() throws {
        let secrets = sampleSecrets()
        let data = AccountSecretsEncoding.encode(secrets)
        #expect(try AccountSecretsEncoding.decode(data, file: nil) == secrets)
        #expect(secrets.accessToken(for: nil)?.token.exposedValue == secretAccess)
        #expect(secrets.accessToken(for: "https://api.example.test")?.token.exposedValue == secretResourceAccess)
        #expect(secrets.accessToken(for: "https://other.example.test") == nil)
    }

    @Test("setAccessToken(nil resource) replaces the default; a resource entry is separate")
    func setAccessToken() {
        var secrets = AccountSecrets()
        secrets.setAccessToken(StoredAccessTokenEntry(token: StoredAccessToken("a")), for: nil)
        secrets.setAccessToken(StoredAccessTokenEntry(token: StoredAccessToken("b")), for: "r")
        #expect(secrets.defaultAccessToken?.token.exposedValue == "a")
        #expect(secrets.resourceAccessTokens["r"]?.token.exposedValue == "b")
        secrets.setAccessToken(nil, for: "r")
        #expect(secrets.resourceAccessTokens.isEmpty)
    }

    @Test("Bytes that are not a secret set decode to .corrupt(.malformedRecord)")
    func garbage() {
        #expect {
            try AccountSecretsEncoding.decode(Data("{\"nope\":1}".utf8), file: "item")
        } throws: { error in
            guard case .corrupt(file: "item", reason: .malformedRecord) = error as? SecretStoreError else { return false }
            return true
        }
    }

    @Test("A record from a newer format version is refused as .unsupportedVersion, not misread")
    func newerVersion() {
        let data = Data(#"{"version":99,"secrets":{"resourceAccessTokens":{}}}"#.utf8)
        #expect(throws: SecretStoreError.corrupt(file: nil, reason: .unsupportedVersion(99))) {
            try AccountSecretsEncoding.decode(data, file: nil)
        }
    }

    @Test("The provider-wide client secret lives under a reserved key")
    func providerClientKey() {
        let key = AccountKey.providerClient("corp")
        #expect(key.isProviderClient)
        #expect(key != AccountKey(provider: "corp", account: "alice"))
        #expect(!AccountKey(provider: "corp", account: "alice").isProviderClient)
    }
}

@Suite("Redaction")
struct RedactionTests {
    static func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped]
    }

    @Test("description, debugDescription and dump of a secret set never contain a secret")
    func secretSetNeverShowsSecrets() {
        let secrets = sampleSecrets()
        let values: [Any] = [
            secrets, secrets.defaultAccessToken!, secrets.refreshToken!, secrets.idToken!, secrets.clientSecret!,
            [AccountKey(provider: "p", account: "a"): secrets], Optional(secrets) as Any, VaultPassphrase("pass-SECRET"),
        ]
        for value in values {
            for text in Self.renderings(value) {
                for secret in allSecrets + ["pass-SECRET"] {
                    #expect(!text.contains(secret), "leaked in: \(type(of: value))")
                }
            }
        }
    }

    @Test("A redacted description still says what it is and how long")
    func redactedDescriptionIsUseful() {
        #expect(String(describing: StoredRefreshToken("12345")) == "RefreshToken(redacted, 5 bytes)")
    }

    @Test("Errors never carry a secret: notFound names the account only")
    func errorsNameKeysOnly() {
        let error = SecretStoreError.notFound(AccountKey(provider: "corp", account: "alice"))
        #expect(String(describing: error) == "no stored secrets for corp/alice")
    }
}

@Suite("In-memory store")
struct InMemoryStoreTests {
    let alice = AccountKey(provider: "corp", account: "alice")
    let bob = AccountKey(provider: "corp", account: "bob")

    @Test("save then load returns the same secret set; list is sorted; delete removes")
    func roundTrip() throws {
        let store = InMemorySecretStore()
        #expect(store.kind == .memory)
        #expect(!store.isInsecure)
        try store.save(sampleSecrets(), for: bob)
        try store.save(AccountSecrets(refreshToken: StoredRefreshToken("r")), for: alice)
        #expect(try store.load(bob) == sampleSecrets())
        #expect(try store.listAccounts() == [alice, bob])
        try store.delete(bob)
        #expect(try store.listAccounts() == [alice])
        #expect(try store.loadIfPresent(bob) == nil)
    }

    @Test("load of an absent account throws .notFound with its key")
    func notFound() {
        #expect(throws: SecretStoreError.notFound(alice)) { try InMemorySecretStore().load(alice) }
    }

    @Test("delete of an absent account is not an error")
    func deleteAbsent() throws {
        try InMemorySecretStore().delete(alice)
    }

    @Test("An account lock excludes a second holder of the same account only, until released")
    func accountLock() throws {
        let store = InMemorySecretStore()
        let held = try #require(try store.tryLockAccount(alice))
        #expect(try store.tryLockAccount(alice) == nil)
        let other = try #require(try store.tryLockAccount(bob))
        held.release()
        #expect(try store.tryLockAccount(alice) != nil)
        other.release()
    }

    @Test("withAccountLock times out with .timeout while another holder keeps the lock")
    func lockTimeout() throws {
        let store = InMemorySecretStore()
        let held = try #require(try store.tryLockAccount(alice))
        defer { held.release() }
        #expect {
            try store.withAccountLock(alice, timeout: .milliseconds(50)) {}
        } throws: { error in
            guard case .timeout = error as? SecretStoreError else { return false }
            return true
        }
    }

    @Test("withAccountLock (async) runs the body holding the lock and releases it after")
    func asyncLock() async throws {
        let store = InMemorySecretStore()
        let value = try await store.withAccountLock(alice) { () async throws -> Int in
            #expect(try store.tryLockAccount(alice) == nil)
            return 7
        }
        #expect(value == 7)
        #expect(try store.tryLockAccount(alice) != nil)
    }
}

@Suite("Backend selection")
struct StoreSelectionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var environment: [String: String]
        var configured: SecretStoreKind?
        var reachable: Bool
        var expected: StoreSelection
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "AUTHDECK_STORE=vault forces the vault even with a Secret Service", environment: ["AUTHDECK_STORE": "vault"],
             reachable: true, expected: .init(kind: .vault, reason: .environment)),
        Case(name: "AUTHDECK_STORE=plaintext is an explicit choice", environment: ["AUTHDECK_STORE": "plaintext"],
             reachable: true, expected: .init(kind: .plaintext, reason: .environment)),
        Case(name: "AUTHDECK_STORE=memory", environment: ["AUTHDECK_STORE": "memory"], reachable: false,
             expected: .init(kind: .memory, reason: .environment)),
        Case(name: "AUTHDECK_STORE=secret-service forces it even when the probe fails",
             environment: ["AUTHDECK_STORE": "secret-service"], reachable: false,
             expected: .init(kind: .secretService, reason: .environment)),
        Case(name: "the configured backend applies without the variable", environment: [:], configured: .plaintext,
             reachable: true, expected: .init(kind: .plaintext, reason: .configuration)),
        Case(name: "no choice + reachable Secret Service → Secret Service", environment: [:], reachable: true,
             expected: .init(kind: .secretService, reason: .secretServiceReachable)),
        Case(name: "no choice + no Secret Service → vault, never plaintext", environment: ["AUTHDECK_STORE": ""],
             reachable: false, expected: .init(kind: .vault, reason: .secretServiceUnreachable)),
    ]

    @Test("Selection: environment, then config, then probe; never plaintext silently", arguments: cases)
    func select(_ c: Case) throws {
        let selection = try StoreSelection.choose(environment: c.environment, configured: c.configured) { c.reachable ? .answered : .absent }
        #expect(selection == c.expected)
        #expect(selection.isRecorded == (c.expected.reason == .secretServiceReachable || c.expected.reason == .secretServiceUnreachable))
    }

    @Test("A probe that timed out chooses nothing (a hung bus is not 'no Secret Service'), and says so")
    func probeTimedOut() throws {
        #expect {
            try StoreSelection.choose(environment: [:]) { .timedOut(seconds: 3) }
        } throws: { error in
            guard case .timeout(let operation, 3) = error as? SecretStoreError else { return false }
            return operation.contains("no store chosen, nothing recorded")
        }
        // A recorded choice needs no probe: a hung bus then shows up as the store's own timeouts.
        #expect(try StoreSelection.choose(environment: [:], configured: .secretService) { .timedOut(seconds: 3) }
                == StoreSelection(kind: .secretService, reason: .configuration))
    }

    @Test("The probe is not run when the backend is forced")
    func probeNotRunWhenForced() throws {
        _ = try StoreSelection.choose(environment: ["AUTHDECK_STORE": "vault"]) {
            Issue.record("probe ran")
            return .answered
        }
    }

    @Test("An unknown AUTHDECK_STORE value is .invalidConfiguration")
    func unknown() {
        #expect {
            try StoreSelection.choose(environment: ["AUTHDECK_STORE": "keychain"]) { .answered }
        } throws: { error in
            guard case .invalidConfiguration = error as? SecretStoreError else { return false }
            return true
        }
    }
}

@Suite("Spy store")
struct SpyStoreTests {
    @Test("The spy records calls in order and fails on demand with the given case")
    func spy() throws {
        let key = AccountKey(provider: "p", account: "a")
        let spy = SpySecretStore(reportingKind: .plaintext)
        #expect(spy.isInsecure)
        try spy.save(sampleSecrets(), for: key)
        _ = try spy.load(key)
        spy.fail("load", with: .locked(cause: .init("test")))
        #expect(throws: SecretStoreError.locked(cause: .init("test"))) { try spy.load(key) }
        #expect(spy.calls == [.save(key), .load(key), .load(key)])
    }
}
