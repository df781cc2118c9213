// store.json without Codable: what JSONEncoder wrote reads to the same selection, and
// the mapping round trips.
import CredentialStore
import Foundation
import StrictJSON
import Testing

@Suite("store.json: the StoreSelection mapping reads what Codable wrote")
struct StoreSelectionJSONTests {
    /// Exactly as the Codable code (JSONEncoder, pretty, sorted keys) wrote it (commit a2688cc).
    static let written: [(String, StoreSelection)] = [
        ("{\n  \"kind\" : \"secret-service\",\n  \"reason\" : \"secretServiceReachable\"\n}\n", StoreSelection(kind: .secretService, reason: .secretServiceReachable)),
        ("{\n  \"kind\" : \"vault\",\n  \"reason\" : \"environment\"\n}\n", StoreSelection(kind: .vault, reason: .environment)),
    ]

    @Test("store.json as JSONEncoder wrote it reads to the same selection; the new writer writes the same members")
    func compatibility() throws {
        for (text, expected) in Self.written {
            let document = try parseJSON(Data(text.utf8)).get()
            #expect(try StoreSelection(json: document) == expected)
            #expect(expected.json == document)
            #expect(try StoreSelection(json: parseJSON(expected.json.serialized(pretty: true)).get()) == expected)
        }
    }

    @Test("Every kind and reason round trips; an unknown kind is refused naming the member")
    func everyCase() throws {
        for kind in SecretStoreKind.allCases {
            for reason in [StoreSelection.Reason.environment, .configuration, .secretServiceReachable, .secretServiceUnreachable] {
                let selection = StoreSelection(kind: kind, reason: reason)
                #expect(try StoreSelection(json: selection.json) == selection)
            }
        }
        #expect(throws: JSONShapeError(path: [.member("kind")], expected: "one of the known values")) {
            try StoreSelection(json: .object(["kind": .string("keychain"), "reason": .string("environment")]))
        }
    }
}
