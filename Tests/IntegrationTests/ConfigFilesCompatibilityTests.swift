// The metadata and cache files through ConfigFiles and the live cache (no Codable):
// files exactly as the earlier JSONEncoder code wrote them (commit a2688cc) read back; what is
// written now reads back too, 0600, and a damaged record is named by index and field.
import AppCore
@testable import AppCoreLive
import AuthEngine
import CredentialStore
import CredentialStoreLive
import Foundation
import Testing
import QuickToken

@Suite("ConfigFiles: providers.json, accounts.json, active.json, store.json and the cache as written before")
struct ConfigFilesCompatibilityTests {
    static let providers = "[\n  {\n    \"clientAuthentication\" : \"none\",\n    \"clientID\" : \"authdeck\",\n    \"displayName\" : \"local\",\n    \"endpoints\" : {\n\n    },\n    \"extraAuthorizationParameters\" : {\n\n    },\n    \"extraHeaders\" : {\n\n    },\n    \"id\" : \"local\",\n    \"issuer\" : \"http:\\/\\/127.0.0.1:8080\",\n    \"resources\" : [\n\n    ],\n    \"scopes\" : [\n\n    ]\n  }\n]\n"
    static let accounts = "[\n  {\n    \"accessTokens\" : [\n\n    ],\n    \"displayName\" : \"a\",\n    \"grantedScopes\" : [\n\n    ],\n    \"hasRefreshToken\" : false,\n    \"id\" : \"local\\/a\",\n    \"providerID\" : \"local\",\n    \"requestedScopes\" : [\n\n    ],\n    \"signedInAt\" : \"2030-03-17T17:46:40Z\",\n    \"storage\" : \"memory\",\n    \"subject\" : \"a\"\n  }\n]\n"
    static let activeNamed = "{\n  \"account\" : \"work\\/sub-1\"\n}\n"
    static let activeNone = "{\n\n}\n"
    static let store = "{\n  \"kind\" : \"vault\",\n  \"reason\" : \"environment\"\n}\n"
    static let jwksCache = "{\n  \"body\" : \"\",\n  \"fetchedAt\" : \"2030-03-17T17:46:40Z\",\n  \"kind\" : \"jwks\",\n  \"maxAgeSeconds\" : 300,\n  \"url\" : \"http:\\/\\/127.0.0.1:8080\\/jwks\"\n}\n"

    struct Home {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-records-\(UUID().uuidString)").path
        var files: ConfigFiles { ConfigFiles(paths: XDGPaths(environment: ["HOME": root, "XDG_CONFIG_HOME": "\(root)/config", "XDG_STATE_HOME": "\(root)/state"])) }

        func put(_ text: String, _ kind: MetadataFileKind) throws {
            let path = files.path(kind)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
        }

        func text(_ kind: MetadataFileKind) throws -> String { try String(contentsOfFile: files.path(kind), encoding: .utf8) }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    @Test("Files JSONEncoder wrote read through ConfigFiles; active.json '{}' is no active account; doctor's check says ok")
    func readsWhatCodableWrote() throws {
        let home = Home()
        defer { home.remove() }
        try home.put(Self.providers, .providers)
        try home.put(Self.accounts, .accounts)
        try home.put(Self.activeNamed, .active)
        try home.put(Self.store, .storeChoice)
        let files = home.files
        #expect(try files.providers() == [ProviderConfig(id: "local", issuer: URL(string: "http://127.0.0.1:8080")!, clientID: "authdeck", scopes: [])])
        #expect(try files.accounts().map(\.id) == ["local/a"])
        #expect(try files.accounts().first?.signedInAt == Date(timeIntervalSince1970: 1_900_000_000))
        #expect(try files.activeAccount() == "work/sub-1")
        #expect(files.recordedStore() == StoreSelection(kind: .vault, reason: .environment))
        for kind in [MetadataFileKind.providers, .accounts, .active, .storeChoice] { #expect(files.check(kind).condition == .ok, "\(kind)") }
        try home.put(Self.activeNone, .active)
        #expect(try files.activeAccount() == nil)
    }

    @Test("What is written now: pretty jansson JSON and a newline, 0600, read back to the same values")
    func writesReadBack() throws {
        let home = Home()
        defer { home.remove() }
        try home.put(Self.accounts, .accounts)
        let files = home.files
        var record = try #require(try files.accounts().first)
        record.refreshSentAt = Date(timeIntervalSince1970: 1_900_000_050)
        try files.saveAccount(record)
        #expect(try files.accounts() == [record])
        #expect(try home.text(.accounts).contains("\"refreshSentAt\": \"2030-03-17T17:47:30Z\""))
        #expect(try home.text(.accounts).hasSuffix("]\n"))
        try files.saveActiveAccount("local/a")
        #expect(try home.text(.active) == "{\n  \"account\": \"local/a\"\n}\n")
        try files.saveActiveAccount(nil)
        #expect(try home.text(.active) == "{}\n")
        #expect(try files.activeAccount() == nil)
        try files.recordStore(StoreSelection(kind: .plaintext, reason: .configuration))
        #expect(files.recordedStore() == StoreSelection(kind: .plaintext, reason: .configuration))
        var info = stat()
        #expect(stat(files.path(.accounts), &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test("A damaged record is named by its index and field; a duplicated member by its name; nothing is overwritten")
    func damageNamed() throws {
        let home = Home()
        defer { home.remove() }
        let broken = Self.accounts.replacingOccurrences(of: "\"subject\" : \"a\"", with: "\"subject\" : 7")
        try home.put(broken, .accounts)
        #expect(home.files.check(.accounts).condition == .damaged("record 1 does not decode (field 'subject')"))
        try home.put(Self.store.replacingOccurrences(of: "\"reason\"", with: "\"kind\""), .storeChoice)
        guard case .damaged(let text) = home.files.check(.storeChoice).condition else { Issue.record("not damaged"); return }
        #expect(text.contains("member \"kind\" appears twice"), "\(text)")
        try home.files.recordStore(StoreSelection(kind: .vault, reason: .environment))
        #expect(try home.text(.storeChoice).contains("\"kind\" : \"vault\",\n  \"kind\""), "a damaged store.json is left for doctor")
        #expect(try home.text(.accounts) == broken)
    }

    @Test("A cache file JSONEncoder wrote is used; one written now reads back")
    func cacheFiles() throws {
        let home = Home()
        defer { home.remove() }
        let directory = "\(home.root)/cache"
        try FileManager.default.createDirectory(atPath: "\(directory)/local", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(FileManager.default.createFile(atPath: "\(directory)/local/jwks.json", contents: Data(Self.jwksCache.utf8), attributes: [.posixPermissions: 0o600]))
        let cache = ProviderDocumentCache.live(directory: directory)
        let expected = CachedDocument(kind: .jwks, url: "http://127.0.0.1:8080/jwks", body: "", fetchedAt: Date(timeIntervalSince1970: 1_900_000_000), maxAgeSeconds: 300)
        #expect(cache.load("local", .jwks) == expected)
        let discovery = CachedDocument(kind: .discovery, url: "http://127.0.0.1:8080/.well-known/openid-configuration", body: "{\"issuer\": \"x\"}",
                                       fetchedAt: Date(timeIntervalSince1970: 1_900_000_001), maxAgeSeconds: 86400)
        cache.save("local", discovery)
        #expect(cache.load("local", .discovery) == discovery)
        #expect(cache.check().map(\.condition) == [.ok, .ok])
    }
}
