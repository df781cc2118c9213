@testable import CredentialStoreLive
import CredentialStore
import Foundation
import StrictJSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Damaged JSON files: what is wrong, and moving them aside")
struct DamageTests {
    struct Record: Sendable, Equatable {
        var id: String
        var subject: String

        init(json: JSONValue, path: [JSONPathComponent]) throws(JSONShapeError) {
            let reader = try JSONReader(json, path: path)
            id = try reader.string("id")
            subject = try reader.string("subject")
        }
    }

    /// A file of `[Record]` (written only by the tests' own bytes).
    static func records(_ path: String) -> JSONFileStore<[Record]> {
        JSONFileStore(path: path, read: { (json) throws(JSONShapeError) in
            try JSONReader.array(json) { (element, path) throws(JSONShapeError) in try Record(json: element, path: path) }
        }, write: { _ in .array([]) })
    }

    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-damage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var bytes: String
        var reason: SecretStoreError.CorruptionReason
        var description: String { name }
    }

    static let good = #"[{"id": "p/a", "subject": "a"}, {"id": "p/b", "subject": "b"}]"#
    static let cases: [Case] = [
        Case(name: "empty", bytes: "", reason: .empty),
        Case(name: "white space only", bytes: " \n", reason: .empty),
        Case(name: "truncated", bytes: String(good.prefix(25)), reason: .truncatedJSON),
        Case(name: "doubled (two documents concatenated)", bytes: good + "\n" + good + "\n", reason: .multipleJSONDocuments),
        Case(name: "doubled without white space", bytes: good + good, reason: .multipleJSONDocuments),
        Case(name: "not JSON", bytes: "hello", reason: .notJSON("invalid at line 1, column 5")),
        Case(name: "doubled three times", bytes: good + "\n" + good + "\n" + good, reason: .multipleJSONDocuments),
        Case(name: "a document and then garbage", bytes: good + "\n{oops", reason: .notJSON("more text after the JSON value, line 2, column 1")),
        Case(name: "a member twice (RFC 8259 §4), named", bytes: #"[{"id": "p/a", "id": "p/b", "subject": "a"}]"#,
             reason: .notJSON("member \"id\" appears twice, line 1, column 19")),
        Case(name: "wrong shape (an object where a list belongs)", bytes: #"{"id": "p/a"}"#, reason: .wrongShape("expected a list")),
        Case(name: "a record that does not decode", bytes: #"[{"id": "p/a", "subject": "a"}, {"id": "p/b"}]"#,
             reason: .undecodableRecord(index: 1, field: "subject")),
        Case(name: "a record's field of the wrong type", bytes: #"[{"id": "p/a", "subject": 7}]"#,
             reason: .undecodableRecord(index: 0, field: "subject")),
    ]

    @Test("JSONFileStore.read names the file and the damage", arguments: cases)
    func classify(_ testCase: Case) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/accounts.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(testCase.bytes.utf8), attributes: [.posixPermissions: 0o600]))
        #expect(throws: SecretStoreError.corrupt(file: path, reason: testCase.reason)) { try Self.records(path).read() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(testCase.bytes.utf8), "reading changes nothing")
    }

    @Test("A provider's deepest document embedded in a file authdeck writes (claims in accounts.json, a document in its cache) reads back; a file nested past the stored depth is damage, named")
    func deepDocumentsInFiles() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var deepest: JSONValue = .number(1)
        for _ in 1..<maximumJSONDepth { deepest = .object(["x": deepest]) }
        #expect(try parseJSON(deepest.serialized()).get() == deepest, "the deepest document accepted from outside")
        let store = JSONFileStore<JSONValue>(path: "\(directory)/accounts.json", read: { $0 }, write: { $0 })
        let embedded: JSONValue = .array([.object(["idToken": .object(["claims": deepest])])])
        try store.write(embedded)
        #expect(try store.read() == embedded)
        var tooDeep: JSONValue = .number(1)
        for _ in 0..<maximumStoredJSONDepth { tooDeep = .array([tooDeep]) }
        try store.write(tooDeep)
        #expect(throws: SecretStoreError.corrupt(file: store.path, reason: .notJSON("invalid at byte 0"))) { try store.read() }
    }

    @Test("Moving a damaged file aside keeps its bytes under a timestamped name, mode 0600, and never replaces an earlier one")
    func moveAside() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/accounts.json"
        let damaged = Data("[{\"id\": \"p/a\"".utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: damaged, attributes: [.posixPermissions: 0o644]))
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let moved = try #require(try Self.records(path).moveAside(now: now))
        #expect(moved == "\(path).damaged-20300317T174640Z")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved)) == damaged)
        var st = stat()
        #expect(stat(moved, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(FileManager.default.createFile(atPath: path, contents: Data("again".utf8), attributes: [.posixPermissions: 0o600]))
        let second = try #require(try Self.records(path).moveAside(now: now))
        #expect(second == "\(moved)-2")
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved)) == damaged, "the first one is kept")
        #expect(try Self.records(path).moveAside(now: now) == nil, "nothing to move")
    }

    @Test("A damaged plaintext secrets file reports its damage, not a generic decoding error")
    func plaintextDamage() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/secrets.insecure.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(#"{"accounts": ["#.utf8), attributes: [.posixPermissions: 0o600]))
        #expect(throws: SecretStoreError.corrupt(file: path, reason: .truncatedJSON)) { try PlaintextFileSecretStore(path: path).listAccounts() }
    }
}
