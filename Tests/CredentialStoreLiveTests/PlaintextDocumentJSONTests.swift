@testable import CredentialStoreLive
import CredentialStore
import Foundation
import Testing

/// The plaintext file exactly as the earlier Codable encoder wrote it (generated with that code).
private let codablePlaintextDocument = #"{"accounts":[{"account":"alice","provider":"corp","secrets":{"clientSecret":"cs-1","defaultAccessToken":{"expiresAt":1800000000.25,"scope":["openid","profile"],"token":"at-1\/x","tokenType":"DPoP"},"dpopKey":"{\"alg\":\"ES256\",\"crv\":\"P-256\",\"d\":\"dd\",\"kty\":\"EC\",\"x\":\"xx\",\"y\":\"yy\"}","idToken":"eyJ.id.sig","refreshToken":"rt-1","resourceAccessTokens":{"https:\/\/api.example.test\/v1":{"expiresAt":1800000600,"scope":["read"],"token":"at-r","tokenType":"Bearer"}}}},{"account":"","provider":"corp","secrets":{"clientSecret":"cs-p","resourceAccessTokens":{}}}],"version":1}"#
private let codableEmptyDocument = #"{"accounts":[],"version":1}"#

@Suite("The plaintext secrets file as JSON without Codable")
struct PlaintextDocumentJSONTests {
    let alice = AccountKey(provider: "corp", account: "alice")

    @Test("A plaintext file the Codable encoder wrote (every field; an empty one) reads back to the same values")
    func codableReads() throws {
        let document = try AccountsDocument.decode(Array(codablePlaintextDocument.utf8), path: "p")
        #expect(document.keys == [AccountKey.providerClient("corp"), alice])
        #expect(document[alice] == AccountSecrets(
            defaultAccessToken: StoredAccessTokenEntry(token: StoredAccessToken("at-1/x"), expiresAt: Date(timeIntervalSince1970: 1_800_000_000.25),
                                                       tokenType: "DPoP", scope: ["openid", "profile"]),
            resourceAccessTokens: ["https://api.example.test/v1": StoredAccessTokenEntry(
                token: StoredAccessToken("at-r"), expiresAt: Date(timeIntervalSince1970: 1_800_000_600), tokenType: "Bearer", scope: ["read"])],
            refreshToken: StoredRefreshToken("rt-1"), idToken: StoredIDToken("eyJ.id.sig"), clientSecret: StoredClientSecret("cs-1"),
            dpopKey: StoredDPoPKey(#"{"alg":"ES256","crv":"P-256","d":"dd","kty":"EC","x":"xx","y":"yy"}"#)))
        #expect(document[.providerClient("corp")] == AccountSecrets(clientSecret: StoredClientSecret("cs-p")))
        #expect(try AccountsDocument.decode(Array(codableEmptyDocument.utf8), path: "p").keys.isEmpty)
    }

    @Test("The new writer reads back to the same document; compact with sorted member names")
    func roundTrip() throws {
        let document = try AccountsDocument.decode(Array(codablePlaintextDocument.utf8), path: "p")
        let again = try AccountsDocument.decode(document.encoded(), path: "p")
        #expect(again.keys == document.keys && again[alice] == document[alice] && again[.providerClient("corp")] == document[.providerClient("corp")])
        #expect(String(decoding: AccountsDocument().encoded(), as: UTF8.self) == codableEmptyDocument)
    }

    @Test("A record that does not read names its position and field, never a value; a newer version is refused")
    func damagedRecord() {
        let text = #"{"accounts":[{"account":"a","provider":"p","secrets":{"resourceAccessTokens":{}}},{"account":"b","provider":"p","secrets":{"idToken":42,"resourceAccessTokens":{}}}],"version":1}"#
        #expect(throws: SecretStoreError.corrupt(file: "p", reason: .undecodableRecord(index: 1, field: "secrets.idToken"))) {
            try AccountsDocument.decode(Array(text.utf8), path: "p")
        }
        #expect(throws: SecretStoreError.corrupt(file: "p", reason: .unsupportedVersion(2))) {
            try AccountsDocument.decode(Array(#"{"accounts":[{"nope":1}],"version":2}"#.utf8), path: "p")
        }
        #expect(throws: SecretStoreError.corrupt(file: "p", reason: .multipleJSONDocuments)) {
            try AccountsDocument.decode(Array((codableEmptyDocument + "\n" + codableEmptyDocument).utf8), path: "p")
        }
        #expect(throws: SecretStoreError.corrupt(file: "p", reason: .empty)) { try AccountsDocument.decode(Array(" \n".utf8), path: "p") }
    }
}
