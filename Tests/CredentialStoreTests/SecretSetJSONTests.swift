import CredentialStore
import Foundation
import StrictJSON
import Testing

/// Texts exactly as the earlier Codable encoder (`JSONEncoder`, sorted keys, dates
/// `.secondsSince1970`, `/` escaped) wrote them, generated with that code before it was replaced.
enum CodableSecretSetFixtures {
    static let full = #"{"secrets":{"clientSecret":"cs-1","defaultAccessToken":{"expiresAt":1800000000.25,"scope":["openid","profile"],"token":"at-1\/x","tokenType":"DPoP"},"dpopKey":"{\"alg\":\"ES256\",\"crv\":\"P-256\",\"d\":\"dd\",\"kty\":\"EC\",\"x\":\"xx\",\"y\":\"yy\"}","idToken":"eyJ.id.sig","refreshToken":"rt-1","resourceAccessTokens":{"https:\/\/api.example.test\/v1":{"expiresAt":1800000600,"scope":["read"],"token":"at-r","tokenType":"Bearer"}}},"version":1}"#
    static let minimum = #"{"secrets":{"resourceAccessTokens":{}},"version":1}"#
    static let minimumEntry = #"{"secrets":{"defaultAccessToken":{"token":"at-2"},"resourceAccessTokens":{}},"version":1}"#

    static let fullValue = AccountSecrets(
        defaultAccessToken: StoredAccessTokenEntry(token: StoredAccessToken("at-1/x"), expiresAt: Date(timeIntervalSince1970: 1_800_000_000.25),
                                                   tokenType: "DPoP", scope: ["openid", "profile"]),
        resourceAccessTokens: ["https://api.example.test/v1": StoredAccessTokenEntry(
            token: StoredAccessToken("at-r"), expiresAt: Date(timeIntervalSince1970: 1_800_000_600), tokenType: "Bearer", scope: ["read"])],
        refreshToken: StoredRefreshToken("rt-1"), idToken: StoredIDToken("eyJ.id.sig"), clientSecret: StoredClientSecret("cs-1"),
        dpopKey: StoredDPoPKey(#"{"alg":"ES256","crv":"P-256","d":"dd","kty":"EC","x":"xx","y":"yy"}"#))
}

@Suite("Secret sets as JSON without Codable (StrictJSON)")
struct SecretSetJSONTests {
    typealias F = CodableSecretSetFixtures

    func decode(_ text: String) throws -> AccountSecrets { try AccountSecretsEncoding.decode(Data(text.utf8), file: "item") }

    @Test("A secret set the Codable encoder wrote, every field populated, reads back to the same value")
    func codableFullReads() throws {
        #expect(try decode(F.full) == F.fullValue)
    }

    @Test("The minimum secret sets the Codable encoder wrote (no tokens; a token without expiry, type or scope) read back")
    func codableMinimumReads() throws {
        #expect(try decode(F.minimum) == AccountSecrets())
        #expect(try decode(F.minimumEntry) == AccountSecrets(defaultAccessToken: StoredAccessTokenEntry(token: StoredAccessToken("at-2"))))
    }

    @Test("The new writer: compact, sorted member names, dates as numbers, nil omitted; reads back to the same value")
    func writerRoundTrip() throws {
        for value in [F.fullValue, AccountSecrets(), AccountSecrets(defaultAccessToken: StoredAccessTokenEntry(token: StoredAccessToken("at-2")))] {
            #expect(try AccountSecretsEncoding.decode(AccountSecretsEncoding.encode(value), file: nil) == value)
        }
        #expect(String(decoding: AccountSecretsEncoding.encode(AccountSecrets(defaultAccessToken: StoredAccessTokenEntry(token: StoredAccessToken("at-2")))), as: UTF8.self)
                == F.minimumEntry)
        let written = String(decoding: AccountSecretsEncoding.encode(F.fullValue), as: UTF8.self)
        #expect(written.contains(#""expiresAt":1800000600,"#) && written.contains(#""expiresAt":1800000000.25,"#))
    }

    @Test("A member of the wrong type is .malformedRecord naming its path, never the value")
    func wrongFieldNamed() throws {
        let text = #"{"secrets":{"defaultAccessToken":{"token":"at-SECRET","expiresAt":"soon"},"refreshToken":"rt-SECRET","resourceAccessTokens":{}},"version":1}"#
        #expect(throws: SecretStoreError.corrupt(file: "item", reason: .malformedRecord("expected a number of seconds at 'secrets.defaultAccessToken.expiresAt'"))) {
            try decode(text)
        }
        let resource = #"{"secrets":{"resourceAccessTokens":{"https://api":{"token":7}}},"version":1}"#
        #expect(throws: SecretStoreError.corrupt(file: "item", reason: .malformedRecord("expected a string at 'secrets.resourceAccessTokens.https://api.token'"))) {
            try decode(resource)
        }
        do { _ = try decode(text) } catch { #expect(!String(describing: error).contains("SECRET") && !String(describing: error).contains("soon")) }
    }

    @Test("Not JSON, a member named twice, or a missing version are .malformedRecord; the text is never quoted")
    func syntaxNamed() throws {
        #expect(throws: SecretStoreError.corrupt(file: "item", reason: .malformedRecord("expected a whole number at 'version'"))) {
            try decode(#"{"secrets":{"resourceAccessTokens":{}}}"#)
        }
        do {
            _ = try decode(#"{"secrets":{"refreshToken":"rt-SECRET","refreshToken":"rt-OTHER","resourceAccessTokens":{}},"version":1}"#)
            Issue.record("a duplicate member was accepted")
        } catch {
            let text = String(describing: error)
            #expect(text.contains("refreshToken") && text.contains("twice") && !text.contains("SECRET") && !text.contains("OTHER"))
        }
        do {
            _ = try decode(#"{"secrets":{"refreshToken":"rt-SECRET""#)
            Issue.record("a cut-short text was accepted")
        } catch {
            guard case .corrupt(file: "item", reason: .malformedRecord(let what)) = error as? SecretStoreError else { Issue.record("\(error)"); return }
            #expect(!what.contains("SECRET"))
        }
    }
}
