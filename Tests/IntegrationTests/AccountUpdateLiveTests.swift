// MetadataFiles.updateAccount on the live accounts.json (AppCoreLive): one read-modify-write under
// the file's lock that writes nothing when the record is unchanged (a refresh's I/O).
import AppCore
import AppCoreLive
import Foundation
import Testing

@Suite("accounts.json read-modify-write (live files)")
struct AccountUpdateLiveTests {
    /// A throw-away XDG home's metadata files and the path of its accounts.json.
    func files() throws -> (MetadataFiles, path: String, root: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-update-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = ["HOME": root.path, "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
                           "XDG_STATE_HOME": root.appendingPathComponent("state").path,
                           "XDG_DATA_HOME": root.appendingPathComponent("data").path]
        return (MetadataFiles.live(processEnvironment: environment), root.appendingPathComponent("state/authdeck/accounts.json").path, root)
    }

    func record(_ subject: String) -> AccountRecord {
        AccountRecord(id: AccountID(provider: "local", subject: subject), providerID: "local", issuer: "http://127.0.0.1:1", subject: subject,
                      displayName: subject, requestedScopes: ["openid"], grantedScopes: ["openid"], accessTokens: [],
                      hasRefreshToken: true, signedInAt: Date(timeIntervalSince1970: 1_900_000_000), storage: .vault)
    }

    /// The file's inode: an atomic rewrite (temp file + rename) gives it a new one.
    func inode(_ path: String) -> UInt64 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : 0
    }

    @Test("An update that changes nothing writes nothing; one that changes the record rewrites the file once and keeps the others")
    func unchangedIsNotWritten() throws {
        let (files, path, root) = try files()
        defer { try? FileManager.default.removeItem(at: root) }
        try files.saveAccount(record("1"))
        try files.saveAccount(record("2"))
        let first = inode(path)
        let same = try files.updateAccount(AccountID(provider: "local", subject: "1")) { _ in }
        #expect(same == record("1"))
        #expect(inode(path) == first, "not rewritten")
        let changed = try files.updateAccount(AccountID(provider: "local", subject: "1")) { $0.alias = "work" }
        #expect(changed?.alias == "work")
        #expect(inode(path) != first, "rewritten (atomically)")
        let stored = try files.accounts()
        #expect(stored.map(\.id) == [AccountID(provider: "local", subject: "1"), AccountID(provider: "local", subject: "2")])
        #expect(stored.first?.alias == "work")
    }

    @Test("An update that throws writes nothing; an unknown account is nil")
    func refusedAndUnknown() throws {
        let (files, path, root) = try files()
        defer { try? FileManager.default.removeItem(at: root) }
        try files.saveAccount(record("1"))
        let first = inode(path)
        #expect(throws: AppError(title: "refused", detail: "")) {
            try files.updateAccount(AccountID(provider: "local", subject: "1")) { (record: inout AccountRecord) throws(AppError) in
                record.alias = "lost"
                throw AppError(title: "refused", detail: "")
            }
        }
        #expect(inode(path) == first)
        #expect(try files.accounts().first?.alias == nil)
        #expect(try files.updateAccount(AccountID(provider: "local", subject: "9")) { $0.alias = "x" } == nil)
        #expect(inode(path) == first)
    }
}
