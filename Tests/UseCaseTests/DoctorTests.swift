import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// A ``StubWorld`` whose files can be damaged: a damaged metadata file throws the damage (as
/// the live JSON files do) until it is moved aside; a damaged secrets store throws on every
/// read; cache files are a list of paths with their damage.
final class DamageableWorld: Sendable {
    let world: StubWorld
    let damaged = Mutex<[MetadataFileKind: String]>([:])
    let secretsDamage = Mutex<String?>(nil)
    let cacheFiles = Mutex<[String: String?]>([:])
    /// What was moved aside or dropped, in order ("accounts.json", "secrets", a cache path).
    let changes = Mutex<[String]>([])
    /// Writes of `active.json` (a damaged one must never be written over).
    let activeWrites = Mutex<[AccountID?]>([])

    init(world: StubWorld = StubWorld()) { self.world = world }

    func path(_ kind: MetadataFileKind) -> String { "/home/u/.local/state/authdeck/\(kind.rawValue)" }
    static let secretsPath = "/home/u/.local/share/authdeck/secrets.vault"

    private func damage(_ kind: MetadataFileKind) -> AppError? {
        damaged.withLock { $0[kind] }.map { FileDamage(file: path(kind), damage: $0).appError }
    }

    func environment() -> AppEnvironment {
        var env = world.environment()
        let base = env.files
        let store = world.secrets
        env.files.providers = { [self] () throws(AppError) in
            if let error = damage(.providers) { throw error }
            return try base.providers()
        }
        env.files.accounts = { [self] () throws(AppError) in
            if let error = damage(.accounts) { throw error }
            return try base.accounts()
        }
        env.files.saveAccount = { [self] record throws(AppError) in
            if let error = damage(.accounts) { throw error }  // read-modify-write: the read fails
            try base.saveAccount(record)
        }
        env.files.activeAccount = { [self] () throws(AppError) in
            if let error = damage(.active) { throw error }
            return try base.activeAccount()
        }
        env.files.saveActiveAccount = { [self] id throws(AppError) in
            activeWrites.withLock { $0.append(id) }
            if damage(.active) != nil { Issue.record("a damaged active.json was written over") }
            try base.saveActiveAccount(id)
        }
        env.files.check = { [self] kind in
            let kindOfFile: FileHealth.Kind = switch kind {
            case .providers: .providers
            case .storeChoice: .storeChoice
            case .accounts: .accounts
            case .active: .active
            }
            if let text = damaged.withLock({ $0[kind] }) { return FileHealth(kind: kindOfFile, path: path(kind), condition: .damaged(text)) }
            return FileHealth(kind: kindOfFile, path: path(kind), condition: kind == .storeChoice ? .missing : .ok)
        }
        env.files.moveAside = { [self] kind, _ throws(AppError) -> String? in
            changes.withLock { $0.append(kind.rawValue) }
            damaged.withLock { $0[kind] = nil }
            world.files.withLock { files in
                switch kind {
                case .providers: files.providers = []
                case .accounts: files.accounts = []
                case .active: files.active = nil
                case .storeChoice: break
                }
            }
            return "\(path(kind)).damaged-20260101T000000Z"
        }
        env.credentials.store = { [self] () throws(AppError) -> any SecretStore in
            if let text = secretsDamage.withLock({ $0 }) { return DamagedStore(reason: text) }
            return store
        }
        env.credentials.check = { [self] in
            if let text = secretsDamage.withLock({ $0 }) { return FileHealth(kind: .secrets, path: Self.secretsPath, condition: .damaged(text)) }
            return FileHealth(kind: .secrets, path: Self.secretsPath, condition: .ok)
        }
        env.credentials.moveAside = { [self] (_: Date) throws(AppError) -> String? in
            changes.withLock { $0.append("secrets") }
            secretsDamage.withLock { $0 = nil }
            for key in (try? store.listAccounts()) ?? [] { try? store.delete(key) }
            return "\(Self.secretsPath).damaged-20260101T000000Z"
        }
        env.cache.check = { [self] in
            cacheFiles.withLock { $0 }.sorted { $0.key < $1.key }.map { path, damage in
                FileHealth(kind: .cache, path: path, condition: damage.map { .damaged($0) } ?? .ok)
            }
        }
        env.cache.drop = { [self] path in
            changes.withLock { $0.append(path) }
            cacheFiles.withLock { $0[path] = nil }
        }
        return env
    }
}

/// A secret store whose file is damaged: every read fails with the damage (as a vault whose
/// authentication tag fails does).
final class DamagedStore: SecretStore {
    let reason: String
    init(reason: String) { self.reason = reason }
    var kind: SecretStoreKind { .vault }
    private var error: SecretStoreError { .corrupt(file: DamageableWorld.secretsPath, reason: .invalidHeader(reason)) }
    func load(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets { throw error }
    func save(_ secrets: AccountSecrets, for key: AccountKey) throws(SecretStoreError) { throw error }
    func delete(_ key: AccountKey) throws(SecretStoreError) { throw error }
    func listAccounts() throws(SecretStoreError) -> [AccountKey] { throw error }
    func tryLockAccount(_ key: AccountKey) throws(SecretStoreError) -> (any AccountLockHandle)? { NoLock() }
    final class NoLock: AccountLockHandle { func release() {} }
}

/// A store in which one item does not decode (a damaged Secret Service item).
final class OneDamagedItemStore: SecretStore {
    let base: InMemorySecretStore
    let damaged: AccountKey
    let deleted = Mutex(false)
    init(base: InMemorySecretStore, damaged: AccountKey) {
        self.base = base
        self.damaged = damaged
    }
    var kind: SecretStoreKind { .secretService }
    func load(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets {
        if key == damaged, !deleted.withLock({ $0 }) { throw .corrupt(file: nil, reason: .malformedRecord("DecodingError")) }
        return try base.load(key)
    }
    func save(_ secrets: AccountSecrets, for key: AccountKey) throws(SecretStoreError) { try base.save(secrets, for: key) }
    func delete(_ key: AccountKey) throws(SecretStoreError) {
        if key == damaged { deleted.withLock { $0 = true } }
        try base.delete(key)
    }
    func listAccounts() throws(SecretStoreError) -> [AccountKey] { try base.listAccounts() }
    func tryLockAccount(_ key: AccountKey) throws(SecretStoreError) -> (any AccountLockHandle)? { try base.tryLockAccount(key) }
}

final class StepLog: Sendable {
    let steps = Mutex<[RepairStep]>([])
    func append(_ step: RepairStep) { steps.withLock { $0.append(step) } }
    var all: [RepairStep] { steps.withLock { $0 } }
    func done(_ action: String) -> [String] {
        all.filter { if case .done = $0.outcome { $0.action == action } else { false } }.map(\.subject)
    }
}

@Suite("Doctor and damaged files (use case, stub environment)")
struct DoctorUseCaseTests {
    @Test("A store error for a damaged file maps to .fileDamaged naming the file, the damage and 'authdeck doctor'")
    func damageMapsToStoreDamaged() {
        let error = ErrorMapping.appError(SecretStoreError.corrupt(file: "/s/accounts.json", reason: .truncatedJSON))
        #expect(error.disposition == .fileDamaged(file: "/s/accounts.json"))
        #expect(error.damage == FileDamage(file: "/s/accounts.json", damage: SecretStoreError.CorruptionReason.truncatedJSON.description))
        #expect(error.description.contains("/s/accounts.json") && error.description.contains("truncated") && error.description.contains("authdeck doctor"))
        let vault = ErrorMapping.appError(SecretStoreError.truncated(file: "/d/secrets.vault", expectedBytes: 200, actualBytes: 90))
        #expect(vault.disposition == .fileDamaged(file: "/d/secrets.vault"))
        #expect(ErrorMapping.appError(SecretStoreError.wrongPassphrase(file: "/d/secrets.vault")).disposition == .storeLocked)
    }

    @Test("diagnose names each damaged file and changes nothing")
    func diagnoseNamesDamageAndChangesNothing() async throws {
        let damageable = DamageableWorld()
        _ = try await signedIn(damageable.world)
        damageable.damaged.withLock { $0[.accounts] = "truncated: the JSON stops before it is complete" }
        damageable.cacheFiles.withLock { $0 = ["/c/op/jwks.json": "not JSON (Invalid value around character 0.)", "/c/op/discovery.json": nil] }
        let report = Doctor(damageable.environment()).diagnose()
        let accounts = try #require(report.files.first { $0.kind == .accounts })
        #expect(accounts.path == damageable.path(.accounts))
        #expect(accounts.condition == .damaged("truncated: the JSON stops before it is complete"))
        #expect(report.damaged.map(\.path) == [damageable.path(.accounts), "/c/op/jwks.json"])
        #expect(report.orphanedSecrets == nil, "orphans cannot be decided while accounts.json is damaged")
        #expect(report.accountsWithoutSecrets == nil)
        #expect(report.notes.contains { $0.contains("accounts.json") })
        #expect(!report.isHealthy)
        #expect(damageable.changes.withLock { $0 }.isEmpty)
        #expect(damageable.activeWrites.withLock { $0 }.isEmpty)
        #expect(damageable.world.storedSecrets() != nil)
    }

    @Test("diagnose lists orphaned secrets (a vanished account, a removed provider's client secret) but not a configured provider's")
    func diagnoseFindsOrphans() async throws {
        let damageable = DamageableWorld()
        let world = damageable.world
        _ = try await signedIn(world)
        try world.secrets.save(AccountSecrets(refreshToken: StoredRefreshToken("rt-bob")), for: AccountKey(provider: "op", account: "bob"))
        try world.secrets.save(AccountSecrets(clientSecret: StoredClientSecret("cs-op")), for: .providerClient("op"))
        try world.secrets.save(AccountSecrets(clientSecret: StoredClientSecret("cs-gone")), for: .providerClient("gone"))
        let report = Doctor(damageable.environment()).diagnose()
        #expect(report.orphanedSecrets == [.providerClient("gone"), AccountKey(provider: "op", account: "bob")])
        #expect(report.accountsWithoutSecrets == [])
        #expect(!report.isHealthy)
    }

    @Test("diagnose lists accounts whose secrets are missing")
    func diagnoseFindsAccountsWithoutSecrets() async throws {
        let damageable = DamageableWorld()
        let alice = try await signedIn(damageable.world)
        try damageable.world.secrets.delete(storeKey(alice.record))
        let report = Doctor(damageable.environment()).diagnose()
        #expect(report.accountsWithoutSecrets == [alice.record.id])
        #expect(report.orphanedSecrets == [])
    }

    @Test("repair deletes orphaned secrets and keeps the configured provider's client secret and every owned secret")
    func repairDeletesOrphans() async throws {
        let damageable = DamageableWorld()
        let world = damageable.world
        _ = try await signedIn(world)
        try world.secrets.save(AccountSecrets(refreshToken: StoredRefreshToken("rt-bob")), for: AccountKey(provider: "op", account: "bob"))
        try world.secrets.save(AccountSecrets(clientSecret: StoredClientSecret("cs-op")), for: .providerClient("op"))
        try world.secrets.save(AccountSecrets(clientSecret: StoredClientSecret("cs-gone")), for: .providerClient("gone"))
        let log = StepLog()
        let after = Doctor(damageable.environment()).repair { log.append($0) }
        #expect(log.done("delete orphaned secret") == ["gone (client secret)", "op/bob"])
        #expect(try world.secrets.listAccounts() == [.providerClient("op"), AccountKey(provider: "op", account: "alice")])
        #expect(after.isHealthy)
    }

    @Test("repair moves a damaged accounts.json aside, rebuilds records from stored ID tokens, and deletes nothing in that run")
    func repairRebuildsAccounts() async throws {
        let damageable = DamageableWorld()
        let world = damageable.world
        let alice = try await signedIn(world)
        // bob: secrets without an ID token (nothing honest to rebuild from).
        try world.secrets.save(AccountSecrets(refreshToken: StoredRefreshToken("rt-bob")), for: AccountKey(provider: "op", account: "bob"))
        // mallory: an ID token whose `sub` is not the stored account.
        let wrong = world.provider.idToken(subject: "someone-else", nonce: nil, now: world.now)
        try world.secrets.save(AccountSecrets(idToken: StoredIDToken(wrong)), for: AccountKey(provider: "op", account: "mallory"))
        damageable.damaged.withLock { $0[.accounts] = "two JSON documents one after the other (written twice)" }
        let log = StepLog()
        let env = damageable.environment()
        let after = Doctor(env).repair { log.append($0) }
        #expect(log.done("move aside") == [damageable.path(.accounts)])
        #expect(damageable.changes.withLock { $0 } == ["accounts.json"])
        #expect(log.done("rebuild account") == ["op/alice"])
        let rebuilt = try #require(world.accounts.first)
        #expect(world.accounts.count == 1)
        #expect(rebuilt.id == alice.record.id && rebuilt.subject == "alice" && rebuilt.issuer == world.provider.issuer)
        #expect(rebuilt.displayName == "Alice" && rebuilt.hasRefreshToken)
        guard case .notVerified? = rebuilt.idToken?.signature else {
            Issue.record("a rebuilt record must not claim a verified ID token")
            return
        }
        #expect(log.all.contains { $0.action == "delete orphaned secrets" && { if case .skipped = $0.outcome { true } else { false } }($0) })
        #expect(try world.secrets.listAccounts().contains(AccountKey(provider: "op", account: "bob")), "nothing deleted right after a move aside")
        #expect(after.orphanedSecrets == [AccountKey(provider: "op", account: "bob"), AccountKey(provider: "op", account: "mallory")])
        // A second repair, with the files intact, deletes them.
        let second = StepLog()
        let final = Doctor(env).repair { second.append($0) }
        #expect(second.done("delete orphaned secret") == ["op/bob", "op/mallory"])
        #expect(final.isHealthy)
    }

    @Test("diagnose reads every secret set: an item that does not decode is damaged on its own; repair deletes only that item")
    func damagedSecretItem() async throws {
        let damageable = DamageableWorld()
        let world = damageable.world
        let alice = try await signedIn(world)
        _ = try await signedIn(world, as: "bob")
        let bob = AccountKey(provider: "op", account: "bob")
        let store = OneDamagedItemStore(base: world.secrets, damaged: bob)
        var env = damageable.environment()
        env.credentials.store = { store }
        let report = Doctor(env).diagnose()
        #expect(report.damagedSecrets == [bob])
        #expect(report.damaged.map(\.path) == ["op/bob"])
        let log = StepLog()
        let after = Doctor(env).repair { log.append($0) }
        #expect(log.done("delete damaged secret") == ["op/bob"])
        #expect(damageable.changes.withLock { $0 }.isEmpty, "the store itself is not moved aside")
        #expect(try world.secrets.listAccounts() == [storeKey(alice.record)])
        #expect(after.accountsWithoutSecrets == [AccountID("op/bob")])
    }

    @Test("repair moves a damaged active.json aside and resets it (the only account becomes active), never writing over it")
    func repairResetsActive() async throws {
        let damageable = DamageableWorld()
        let alice = try await signedIn(damageable.world)
        damageable.damaged.withLock { $0[.active] = "not JSON (Invalid value around character 0.)" }
        let log = StepLog()
        _ = Doctor(damageable.environment()).repair { log.append($0) }
        #expect(damageable.changes.withLock { $0 } == ["active.json"])
        #expect(log.done("reset active account") == ["active.json"])
        #expect(damageable.world.active == alice.record.id)
    }

    @Test("repair moves a damaged vault aside and drops a damaged cache file; the records stay")
    func repairMovesVaultAndDropsCache() async throws {
        let damageable = DamageableWorld()
        _ = try await signedIn(damageable.world)
        damageable.secretsDamage.withLock { $0 = "authentication failed (modified ciphertext or header)" }
        damageable.cacheFiles.withLock { $0 = ["/c/op/jwks.json": "empty (a write was cut short)"] }
        let log = StepLog()
        let after = Doctor(damageable.environment()).repair { log.append($0) }
        #expect(damageable.changes.withLock { $0 } == ["secrets", "/c/op/jwks.json"])
        #expect(log.done("move aside") == [DamageableWorld.secretsPath])
        #expect(log.done("drop cache file") == ["/c/op/jwks.json"])
        #expect(damageable.world.accounts.count == 1)
        #expect(after.accountsWithoutSecrets == [damageable.world.accounts[0].id])
    }

    @Test("A damaged active.json blocks nothing: no active account and a warning naming it")
    func damagedActiveIsAWarning() async throws {
        let damageable = DamageableWorld()
        _ = try await signedIn(damageable.world)
        damageable.damaged.withLock { $0[.active] = "truncated: the JSON stops before it is complete" }
        let snapshot = try LoadAccounts(damageable.environment()).run()
        #expect(snapshot.activeAccountID == nil)
        #expect(snapshot.accounts.count == 1)
        #expect(snapshot.warnings.count == 1 && snapshot.warnings[0].contains(damageable.path(.active)))
    }

    @Test("switch over a damaged active.json moves it aside first, then writes the choice")
    func switchMovesDamagedActiveAside() async throws {
        let damageable = DamageableWorld()
        let alice = try await signedIn(damageable.world)
        damageable.damaged.withLock { $0[.active] = "truncated: the JSON stops before it is complete" }
        _ = try SwitchAccount(damageable.environment()).run(alice.record.id)
        #expect(damageable.changes.withLock { $0 } == ["active.json"])
        #expect(damageable.world.active == alice.record.id)
    }

    @Test("A sign-in over a damaged active.json succeeds and becomes active")
    func signInOverDamagedActive() async throws {
        let damageable = DamageableWorld()
        damageable.damaged.withLock { $0[.active] = "not JSON (Invalid value around character 0.)" }
        let outcome = try await signedIn(damageable.world, env: damageable.environment())
        #expect(outcome.becameActive)
        #expect(damageable.changes.withLock { $0 } == ["active.json"])
    }

    @Test("A damaged accounts.json: commands fail with .fileDamaged; the overview reports it instead of 'no accounts'")
    func damagedAccountsFile() async throws {
        let damageable = DamageableWorld()
        _ = try await signedIn(damageable.world)
        damageable.damaged.withLock { $0[.accounts] = "record 1 does not decode (field 'subject')" }
        let env = damageable.environment()
        do {
            _ = try LoadAccounts(env).run()
            Issue.record("a damaged accounts.json must not load as no accounts")
        } catch {
            #expect(error.disposition == .fileDamaged(file: damageable.path(.accounts)))
        }
        let overview = try LoadAccounts(env).overview()
        #expect(overview.damage == [FileDamage(file: damageable.path(.accounts), damage: "record 1 does not decode (field 'subject')")])
        #expect(overview.providers.count == 1)
    }

    @Test("logout --local-only removes the record of an account whose secrets cannot be read")
    func localOnlyLogoutOverDamagedStore() async throws {
        let damageable = DamageableWorld()
        let alice = try await signedIn(damageable.world)
        damageable.secretsDamage.withLock { $0 = "authentication failed" }
        let env = damageable.environment()
        let options = SignOutOptions(localOnly: true, endSession: false)
        try SignOut(env).prepare(options)
        let steps = Mutex<[SignOutStepResult]>([])
        let outcome = await SignOut(env).run(alice.record.id, options: options) { step in steps.withLock { $0.append(step) } }
        #expect(outcome.removed)
        #expect(damageable.world.accounts.isEmpty)
        guard case .done(let text)? = steps.withLock({ $0 }).last?.outcome else {
            Issue.record("the local step did not finish")
            return
        }
        #expect(text.contains("doctor --repair"))
        // Without --local-only the damage stops it (and says what to do).
        do {
            try SignOut(env).prepare(SignOutOptions())
            Issue.record("a full sign-out over a damaged store must stop")
        } catch {
            #expect(error.disposition == .fileDamaged(file: DamageableWorld.secretsPath))
        }
    }
}

/// The store key of a record (as the use cases compute it).
func storeKey(_ record: AccountRecord) -> AccountKey { AccountKey(provider: record.providerID.rawValue, account: record.subject) }
