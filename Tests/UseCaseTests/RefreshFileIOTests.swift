import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing
import TestSupport

/// A refresh reads and writes `accounts.json` as few times as its rules
/// allow. The counts model the live file: `accounts` is one read of the whole file; `saveAccount`
/// is a read-modify-write (one read, one write); ``MetadataFiles/updateAccount`` is one read and
/// at most one write (none when the record is unchanged), as the live one under the file's lock.
@Suite("Refresh file I/O: accounts.json read and written once per step (use case, stub environment)")
struct RefreshFileIOTests {
    /// Reads and writes of the metadata files, counted as the live files would see them.
    final class FileCounts: Sendable {
        let accountReads = Mutex(0)
        let accountWrites = Mutex(0)
        let providerReads = Mutex(0)
        var reads: Int { accountReads.withLock { $0 } }
        var writes: Int { accountWrites.withLock { $0 } }
        var providers: Int { providerReads.withLock { $0 } }
        func reset() {
            accountReads.withLock { $0 = 0 }
            accountWrites.withLock { $0 = 0 }
            providerReads.withLock { $0 = 0 }
        }
    }

    /// `env` with its metadata files counted.
    func counted(_ env: AppEnvironment, _ counts: FileCounts) -> AppEnvironment {
        var env = env
        let files = env.files
        env.files = MetadataFiles(
            providers: { () throws(AppError) in
                counts.providerReads.withLock { $0 += 1 }
                return try files.providers()
            },
            saveProvider: files.saveProvider, removeProvider: files.removeProvider,
            accounts: { () throws(AppError) in
                counts.accountReads.withLock { $0 += 1 }
                return try files.accounts()
            },
            saveAccount: { record throws(AppError) in
                counts.accountReads.withLock { $0 += 1 }
                counts.accountWrites.withLock { $0 += 1 }
                try files.saveAccount(record)
            },
            updateAccount: { id, change throws(AppError) in
                counts.accountReads.withLock { $0 += 1 }
                guard let read = try files.accounts().first(where: { $0.id == id }) else { return nil }
                var record = read
                try change(&record)
                if record != read {
                    counts.accountWrites.withLock { $0 += 1 }
                    try files.saveAccount(record)
                }
                return record
            },
            removeAccount: files.removeAccount, activeAccount: files.activeAccount, saveActiveAccount: files.saveActiveAccount,
            check: files.check, moveAside: files.moveAside)
        return env
    }

    @Test("RFC 6749 §6 forced refresh with a new ID token: accounts.json read 3 times and written twice (marker, result); providers.json once")
    func forcedRefreshWritesMarkerAndResultOnce() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let counts = FileCounts()
        world.advance(10)
        let record = try await RefreshAccount(counted(world.environment(), counts)).run(alice.record.id, force: true)
        #expect(counts.writes == 2, "the refreshSentAt marker, then the result with the verified ID token (was 3)")
        #expect(counts.reads == 3, "the record before the lock, then once per update (was 5)")
        #expect(counts.providers == 1)
        #expect(record.refreshSentAt == nil)
        #expect(record.idTokenProblem == nil)
        #expect(world.accounts.first == record, "what is returned is what is stored")
    }

    @Test("RFC 6749 §6 forced refresh of a record the caller read (authdeck refresh, token): accounts.json read twice, written twice")
    func refreshOfAKnownRecordReadsOnlyUnderTheLock() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let counts = FileCounts()
        world.advance(10)
        _ = try await RefreshAccount(counted(world.environment(), counts)).run(alice.record, force: true)
        #expect((counts.reads, counts.writes) == (2, 2))
    }

    @Test("A refresh that finds the token still valid writes nothing")
    func freshTokenWritesNothing() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let counts = FileCounts()
        let record = try await RefreshAccount(counted(world.environment(), counts)).run(alice.record, force: false)
        #expect(counts.writes == 0)
        #expect(counts.reads == 1, "the record re-read under the lock")
        #expect(record == alice.record)
        #expect(world.provider.requests.withLock { $0 }.filter { $0.url.path == "/token" }.count == 1, "only the sign-in's code exchange")
    }

    @Test("RFC 6749 §5.2 invalid_grant: the marker is cleared and 'needs sign-in' recorded in one write")
    func invalidGrantSettledInOneWrite() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.nextTokenError = (400, ["error": "invalid_grant"], [:]) }
        let counts = FileCounts()
        world.advance(10)
        let error = await #expect(throws: AppError.self) { try await RefreshAccount(counted(world.environment(), counts)).run(alice.record, force: true) }
        #expect(error?.title == "The server refused the request" && error?.disposition == .needsSignIn, "\(String(describing: error))")
        #expect(counts.writes == 2, "the marker, then settled with needs sign-in (was 3)")
        #expect(world.accounts.first?.refreshSentAt == nil)
        #expect(world.accounts.first?.needsSignInSince == t0.addingTimeInterval(10))
    }

    @Test("OIDC Core §12.2 a refused refreshed ID token: the result and the reason are one write; the rotated tokens are kept")
    func refusedIDTokenIsOneWrite() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let signedInRefreshToken = world.storedSecrets()?.refreshToken?.exposedValue
        // A key the JWKS does not publish: the refreshed ID token cannot be verified.
        world.provider.script.withLock { $0.signingKeyID = "unpublished" }
        let counts = FileCounts()
        world.advance(10)
        let error = await #expect(throws: AppError.self) { try await RefreshAccount(counted(world.environment(), counts)).run(alice.record, force: true) }
        #expect(error?.title == "No matching key" && error?.disposition == .securityRelevant, "\(String(describing: error))")
        #expect(counts.writes == 2, "the marker, then the result with idTokenProblem (was 3)")
        let stored = try #require(world.accounts.first)
        #expect(stored.refreshSentAt == nil)
        #expect(stored.idTokenProblem != nil)
        #expect(stored.idToken == alice.record.idToken, "the previous verified ID token stays")
        #expect(world.storedSecrets()?.refreshToken?.exposedValue != signedInRefreshToken, "the rotated refresh token is stored")
    }

    @Test("The result is applied to the record as re-read, so a change another process made meanwhile (an alias) is kept")
    func resultKeepsAConcurrentAliasChange() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        var env = world.environment()
        env.http = { _ in
            HTTPClient { (request: HTTPRequest) async throws(TransportError) -> HTTPResponse in
                if request.url.path == "/token" {
                    // Another process edits the record while the request is out (a rename, say).
                    world.files.withLock { files in
                        for index in files.accounts.indices where files.accounts[index].id == alice.record.id { files.accounts[index].alias = "work" }
                    }
                }
                return world.provider.handle(request, now: world.now)
            }
        }
        world.advance(10)
        let record = try await RefreshAccount(env).run(alice.record.id, force: true)
        #expect(record.alias == "work")
        #expect(world.accounts.first?.alias == "work")
    }

    /// A world whose secret store records its calls.
    func spiedWorld() -> (StubWorld, SpySecretStore) {
        let spy = SpySecretStore()
        return (StubWorld(secrets: spy.backing), spy)
    }

    func saves(_ spy: SpySecretStore) -> Int { spy.calls.filter { if case .save = $0 { true } else { false } }.count }

    @Test("OIDC Core §12.2 a refreshed ID token verified with the cached JWKS: the rotated tokens and the ID token are one secrets write")
    func idTokenWithKnownKeyIsOneSecretsWrite() async throws {
        let (world, spy) = spiedWorld()
        let alice = try await signedIn(world)
        let signedInIDToken = world.storedSecrets()?.idToken?.exposedValue
        var env = world.environment()
        env.credentials.store = { spy }
        world.advance(10)
        let before = saves(spy)
        let record = try await RefreshAccount(env).run(alice.record.id, force: true)
        #expect(saves(spy) - before == 1, "was 2: the rotated tokens, then the verified ID token")
        #expect(record.idToken?.issuedAt == t0.addingTimeInterval(10), "the new ID token is the record's")
        #expect(world.storedSecrets()?.idToken?.exposedValue != signedInIDToken, "the new ID token is stored")
        #expect(world.provider.count("/jwks") == 1, "no fetch: the key was at hand")
    }

    @Test("OIDC Core §10.1.1 a refreshed ID token under a new kid: the rotated refresh token is stored before the JWKS request leaves")
    func rotatedTokensStoredBeforeAJWKSFetch() async throws {
        let (world, spy) = spiedWorld()
        let alice = try await signedIn(world)
        let signedInRefreshToken = world.storedSecrets()?.refreshToken?.exposedValue
        world.provider.script.withLock {
            $0.publishedKeyIDs = ["k1", "k2"]
            $0.signingKeyID = "k2"
        }
        let storedAtJWKSFetch = Mutex<[String?]>([])
        var env = world.environment()
        env.credentials.store = { spy }
        env.http = { _ in
            HTTPClient { (request: HTTPRequest) async throws(TransportError) -> HTTPResponse in
                if request.url.path == "/jwks" { storedAtJWKSFetch.withLock { $0.append(world.storedSecrets()?.refreshToken?.exposedValue) } }
                return world.provider.handle(request, now: world.now)
            }
        }
        world.advance(120)
        let before = saves(spy)
        let record = try await RefreshAccount(env).run(alice.record.id, force: true)
        let atFetch = storedAtJWKSFetch.withLock { $0 }
        #expect(atFetch.count == 1)
        #expect(atFetch.first != signedInRefreshToken, "a crash during the fetch keeps the rotated refresh token")
        #expect(saves(spy) - before == 2, "the rotated tokens, then the ID token verified with the fetched key")
        #expect(record.idTokenProblem == nil)
        #expect(record.idToken?.issuedAt == t0.addingTimeInterval(120))
    }
}
