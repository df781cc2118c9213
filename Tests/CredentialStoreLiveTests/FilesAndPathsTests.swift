@testable import CredentialStoreLive
import CredentialStore
import Foundation
import QuickToken
import StrictJSON
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("XDG paths, metadata JSON, atomic writes, locks")
struct FilesAndPathsTests {
    @Test("XDG directories come from the environment, with the spec's defaults under HOME")
    func xdgPaths() {
        let set = XDGPaths(environment: [
            "HOME": "/home/u", "XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s", "XDG_DATA_HOME": "/d",
            "XDG_RUNTIME_DIR": "/run/user/1000",
        ])
        #expect(set == XDGPaths(configDirectory: "/c/authdeck", stateDirectory: "/s/authdeck", dataDirectory: "/d/authdeck",
                                cacheDirectory: "/home/u/.cache/authdeck", runtimeDirectory: "/run/user/1000/authdeck"))
        #expect(set.vaultFile == "/d/authdeck/secrets.vault")
        #expect(set.lockDirectory == "/run/user/1000/authdeck/locks")
        let defaults = XDGPaths(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "relative/ignored"])
        #expect(defaults == XDGPaths(configDirectory: "/home/u/.config/authdeck", stateDirectory: "/home/u/.local/state/authdeck",
                                     dataDirectory: "/home/u/.local/share/authdeck", cacheDirectory: "/home/u/.cache/authdeck", runtimeDirectory: nil))
        #expect(defaults.lockDirectory == "/home/u/.local/state/authdeck/locks")
    }

    struct Metadata: Sendable, Equatable {
        var activeAccount: String
        var updatedAt: Date
        init(activeAccount: String, updatedAt: Date) {
            self.activeAccount = activeAccount
            self.updatedAt = updatedAt
        }
        init(json: JSONValue) throws(JSONShapeError) {
            let reader = try JSONReader(json)
            try self.init(activeAccount: reader.string("activeAccount"), updatedAt: reader.date("updatedAt", .iso8601))
        }
        var json: JSONValue { .object(["activeAccount": .string(activeAccount), "updatedAt": .date(updatedAt, .iso8601)]) }
    }

    @Test("Metadata JSON is written atomically, 0600, in a 0700 directory created on demand, and read back")
    func metadataFile() throws {
        let dir = TemporaryDirectory()
        let paths = XDGPaths(environment: ["HOME": dir.path, "XDG_CONFIG_HOME": dir.file("config")])
        let file = MetadataFile.config("accounts.json", paths: paths, read: { (json) throws(JSONShapeError) in try Metadata(json: json) }, write: { $0.json })
        #expect(try file.read() == nil)
        let value = Metadata(activeAccount: "corp/alice", updatedAt: Date(timeIntervalSince1970: 1_900_000_000))
        try file.write(value)
        #expect(try file.read() == value)
        #expect(mode(of: file.path) == 0o600)
        #expect(mode(of: paths.configDirectory) == 0o700)
        try file.update { $0?.activeAccount = "corp/bob" }
        #expect(try file.read()?.activeAccount == "corp/bob")
        writeBytes(Array("{".utf8), file.path)
        #expect(storeError { _ = try file.read() }?.caseName == "corrupt")
    }

    @Test("An atomic write replaces the file and leaves no temp file; it never follows into a half-written state")
    func atomicWrite() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("f")
        try PrivateFiles.writeAtomically(Data("old".utf8), to: path)
        try PrivateFiles.writeAtomically(Data("new".utf8), to: path)
        #expect(String(decoding: readBytes(path), as: UTF8.self) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["f"])
    }

    @Test("An atomic write marks the file with its bytes' BLAKE2b (WrittenMark): a rewrite moves the mark, an edit in place breaks it")
    func atomicWriteMarksTheFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("f")
        try PrivateFiles.writeAtomically(Data("old".utf8), to: path)
        #expect(WrittenMark.readUnchanged(path) == Array("old".utf8))
        try PrivateFiles.writeAtomically(Data("newer".utf8), to: path)
        #expect(WrittenMark.readUnchanged(path) == Array("newer".utf8))
        try Data("edits".utf8).write(to: URL(fileURLWithPath: path))
        #expect(WrittenMark.readUnchanged(path) == nil)
    }

    @Test("An atomic write into a missing directory fails with .io naming the file and leaves nothing")
    func atomicWriteFailure() {
        let dir = TemporaryDirectory()
        let error = storeError { try PrivateFiles.writeAtomically(Data("x".utf8), to: dir.file("missing/f")) }
        #expect(error?.caseName == "io")
        #expect(error?.file == dir.file("missing/f"))
    }

    @Test("A per-account flock excludes another descriptor (another thread or process) until released")
    func fileLock() throws {
        let dir = TemporaryDirectory()
        let locks = AccountLockDirectory(directory: dir.file("locks"))
        let held = try #require(try locks.tryLock(alice))
        #expect(try locks.tryLock(alice) == nil)
        #expect(try locks.tryLock(bob) != nil)
        held.release()
        // Waits briefly: a child forked by a concurrent test shares the descriptor until its exec.
        #expect(storeError { _ = try FileLock.lock(locks.path(for: alice), timeout: .seconds(2)) } == nil)
        #expect(locks.path(for: alice) != locks.path(for: bob))
        #expect(locks.path(for: AccountKey(provider: "a/../b", account: "x\u{0}y")).hasPrefix(dir.file("locks/account-")))
    }

    @Test("CLibSecret shim prototypes match <libsecret/secret.h>")
    func shimMatchesHeaders() throws {
        let problems = try ShimHeaders.problems(module: "CLibSecret", header: "libsecret/secret.h", pkgConfig: "libsecret-1")
        #expect(problems == nil, "\(problems ?? "")")
    }
}

@Suite("Live store wiring")
struct LiveStoreWiringTests {
    @Test("AUTHDECK_VAULT_CACHE_SECONDS that is not 0 or more whole seconds (abc, -5, 1.5): invalidConfiguration naming it (it was ignored: 900 s)",
          arguments: ["abc", "-5", "1.5"])
    func cacheSecondsNotANumber(value: String) {
        let paths = XDGPaths(environment: ["HOME": "/home/u"])
        #expect {
            _ = try LiveSecretStores.make(.vault, paths: paths, environment: ["AUTHDECK_VAULT_CACHE_SECONDS": value])
        } throws: { error in
            guard case SecretStoreError.invalidConfiguration(let cause) = error else { return false }
            return "\(cause)".contains("AUTHDECK_VAULT_CACHE_SECONDS")
        }
        // Only the vault reads it.
        #expect(throws: Never.self) { _ = try LiveSecretStores.make(.plaintext, paths: paths, environment: ["AUTHDECK_VAULT_CACHE_SECONDS": value]) }
    }

    @Test("make builds each backend at its XDG location; only plaintext is insecure", arguments: SecretStoreKind.allCases)
    func make(kind: SecretStoreKind) throws {
        let paths = XDGPaths(environment: ["HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1"])
        let store = try LiveSecretStores.make(kind, paths: paths, environment: ["AUTHDECK_VAULT_CACHE_SECONDS": "60"])
        #expect(store.kind == kind)
        #expect(store.isInsecure == (kind == .plaintext))
        switch store {
        case let vault as VaultSecretStore:
            #expect(vault.path == "/home/u/.local/share/authdeck/secrets.vault")
            #expect(vault.keyCacheTTL == .seconds(60))
            #expect(vault.newVaultLimits == .moderate)
        case let plaintext as PlaintextFileSecretStore:
            #expect(plaintext.path == "/home/u/.local/share/authdeck/secrets.insecure.json")
        case let secretService as SecretServiceStore:
            #expect(secretService.locks.directory == "/run/user/1/authdeck/locks")
            #expect(secretService.timeout == .seconds(3))
        default:
            #expect(kind == .memory)
        }
    }

    @Test("The selection is recorded as JSON for config and status")
    func selectionRecorded() throws {
        let dir = TemporaryDirectory()
        let file = MetadataFile.config("store.json", paths: XDGPaths(environment: ["HOME": dir.path]),
                                       read: { (json) throws(JSONShapeError) in try StoreSelection(json: json) }, write: { $0.json })
        let selection = try LiveSecretStores.select(environment: ["AUTHDECK_STORE": "vault"])
        try file.write(selection)
        #expect(try file.read() == StoreSelection(kind: .vault, reason: .environment))
    }
}
