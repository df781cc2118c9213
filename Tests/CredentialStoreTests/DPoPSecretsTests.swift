import CredentialStore
import Foundation
import Testing

@Suite("DPoP key in AccountSecrets (RFC 9449)")
struct DPoPSecretsTests {
    @Test("DPoP: a secret set stored before DPoP (no dpopKey) still decodes; a key round-trips and stays redacted")
    func oldJSONDecodes() throws {
        let old = Data(#"{"secrets":{"defaultAccessToken":{"token":"at-1","tokenType":"Bearer"},"refreshToken":"rt-1","resourceAccessTokens":{}},"version":1}"#.utf8)
        let decoded = try AccountSecretsEncoding.decode(old, file: nil)
        #expect(decoded.refreshToken == StoredRefreshToken("rt-1") && decoded.dpopKey == nil)
        var secrets = decoded
        secrets.dpopKey = StoredDPoPKey(#"{"alg":"ES256","d":"secret-d"}"#)
        let again = try AccountSecretsEncoding.decode(AccountSecretsEncoding.encode(secrets), file: nil)
        #expect(again == secrets)
        #expect(!String(describing: secrets).contains("secret-d"))
    }
}
