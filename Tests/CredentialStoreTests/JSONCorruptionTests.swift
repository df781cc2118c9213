import CredentialStore
import Foundation
import StrictJSON
import Testing

@Suite("Damaged JSON is classified in bounded time (one classifier for every file)")
struct JSONCorruptionTests {
    private func reason(_ data: Data) throws -> SecretStoreError.CorruptionReason {
        guard case .failure(let error) = parseJSON(data) else { throw CancellationError() }
        return SecretStoreError.CorruptionReason(syntax: error, in: data)
    }

    @Test("Fuzz find (vault): a value, blank lines, then brackets and garbage — no runaway recursion, named as text after the value")
    func fuzzRegressionSeveralDocumentsRecursion() throws {
        let input = try #require(Data(base64Encoded: "AXsidmVyc291bnQiOiJhIiwic2UjcmV0cyI6e319CgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgpbCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCl19aW9uIk11dGFibGVDb2x0cyI6W3sicHJvdmxkW2VyIjoicCIsImFjY291iIsiOiJhIiwic2UjcmV0cyI6e319XX0="))
        guard case .notJSON(let text) = try reason(input) else { Issue.record("not classified as notJSON"); return }
        #expect(!text.contains("versount"), "the file's text is never quoted")
    }

    @Test("cat a a (and a a a): several whole documents")
    func severalDocuments() throws {
        #expect(try reason(Data("{\"a\":1}\n{\"a\":1}\n".utf8)) == .multipleJSONDocuments)
        #expect(try reason(Data("[1]\n[2]\n[3]".utf8)) == .multipleJSONDocuments)
        #expect(try reason(Data("{\"a\":1} garbage".utf8)) != .multipleJSONDocuments)
    }

    @Test("A record at fault is named by index and field; elsewhere the shape and path")
    func shapes() {
        let record = JSONShapeError(path: [.index(2), .member("accessTokens"), .index(0), .member("expiresAt")], expected: "an ISO 8601 date")
        #expect(SecretStoreError.CorruptionReason(shape: record) == .undecodableRecord(index: 2, field: "accessTokens[0].expiresAt"))
        let nested = JSONShapeError(path: [.member("accounts"), .index(1), .member("secrets")], expected: "an object")
        #expect(SecretStoreError.CorruptionReason(shape: nested, records: "accounts") == .undecodableRecord(index: 1, field: "secrets"))
        #expect(SecretStoreError.CorruptionReason(shape: JSONShapeError(path: [], expected: "a list")) == .wrongShape("expected a list"))
    }
}
