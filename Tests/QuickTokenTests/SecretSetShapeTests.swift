// The launcher's check of a secret set from a Secret Service item (which any program of the
// session can write) against the full program's decoder: whatever the full program calls damaged,
// the launcher hands over, so the two never answer differently.
import CredentialStore
import Foundation
@testable import QuickToken
import Testing

@Suite("SecretSetShape: a secret set the launcher reads is one the full program reads")
struct SecretSetShapeTests {
    static let entry = #"{"token":"t","expiresAt":1900000000,"tokenType":"Bearer","scope":["openid"]}"#

    static func envelope(_ secrets: String, version: String = "1") -> String { #"{"secrets":"# + secrets + #","version":"# + version + "}" }

    static func nested(_ levels: Int) -> String { String(repeating: "[", count: levels) + "1" + String(repeating: "]", count: levels) }

    /// Secret sets both read.
    static let readable: [String] = [
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{}}"#),
        envelope(#"{"defaultAccessToken":{"token":"t"},"resourceAccessTokens":{"https://r.example/":"# + entry + "}}"),
        envelope(#"{"defaultAccessToken":null,"resourceAccessTokens":{},"refreshToken":null,"idToken":"i","clientSecret":"c","dpopKey":"{}","registrationAccessToken":"r"}"#),
        envelope(#"{"defaultAccessToken":{"token":"t","expiresAt":null,"tokenType":null,"scope":null},"resourceAccessTokens":{},"later":{"a":[1,2]}}"#),
        envelope(#"{"resourceAccessTokens":{},"deep":"# + nested(120) + "}"),
        envelope(#"{"resourceAccessTokens":{},"later":{"caf\u00e9":1,"cafe":2}}"#),
        String(decoding: AccountSecretsEncoding.encode(AccountSecrets(
            defaultAccessToken: StoredAccessTokenEntry(token: StoredAccessToken("t"), expiresAt: Date(timeIntervalSince1970: 1_900_000_000.5),
                                                       tokenType: "Bearer", scope: ["openid", "email"]),
            resourceAccessTokens: ["urn:x": StoredAccessTokenEntry(token: StoredAccessToken("u"))],
            refreshToken: StoredRefreshToken("r"), idToken: StoredIDToken("i"), clientSecret: nil, dpopKey: nil)), as: UTF8.self),
    ]

    /// Secret sets the full program calls damaged: a member of the wrong type anywhere, not only in
    /// the default access token, nesting past the stored depth, names equal as strings (KELVIN
    /// SIGN K is the full program's K: `dpop\u{212A}ey` is its `dpopKey`).
    static let damaged: [String] = [
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{},"refreshToken":5}"#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{},"idToken":{}}"#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{},"clientSecret":[]}"#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{},"dpopKey":true}"#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{},"registrationAccessToken":1}"#),
        envelope(#"{"defaultAccessToken":"# + entry + "}"),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":null}"#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":[]}"#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{"r":5}}"#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{"r":{"token":1}}}"#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{"r":{}}}"#),
        envelope(#"{"defaultAccessToken":"x","resourceAccessTokens":{}}"#),
        envelope(#"{"defaultAccessToken":{"token":null},"resourceAccessTokens":{}}"#),
        envelope(#"{"defaultAccessToken":{"token":"t","expiresAt":"soon"},"resourceAccessTokens":{}}"#),
        envelope(#"{"defaultAccessToken":{"token":"t","tokenType":1},"resourceAccessTokens":{}}"#),
        envelope(#"{"defaultAccessToken":{"token":"t","scope":"openid"},"resourceAccessTokens":{}}"#),
        envelope(#"{"defaultAccessToken":{"token":"t","scope":["openid",1]},"resourceAccessTokens":{}}"#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{},"deep":"# + nested(130) + "}"),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{},"caf\u00e9":1,"cafe\u0301":2}"#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{},"dpop\u212Aey":5}"#),
        envelope("null"),
        envelope("[]"),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{}}"#, version: #""1""#),
        envelope(#"{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{}}"#, version: "1.5"),
        #"{"secrets":{"defaultAccessToken":"# + entry + #","resourceAccessTokens":{}}}"#,
    ]

    static func launcherReads(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { bytes in Document(parsing: bytes).map { SecretSetShape.isReadable($0.root) } ?? false }
    }

    static func fullProgramReads(_ text: String) -> Bool {
        (try? AccountSecretsEncoding.decode(Data(text.utf8), file: nil)) != nil
    }

    @Test("Secret sets the full program reads are read by the launcher too", arguments: readable)
    func readableByBoth(_ text: String) {
        #expect(Self.fullProgramReads(text), "the case is one the full program reads")
        #expect(Self.launcherReads(text))
    }

    @Test("Secret sets the full program calls damaged are handed over", arguments: damaged)
    func damagedHandedOver(_ text: String) {
        #expect(!Self.fullProgramReads(text), "the case is one the full program refuses")
        #expect(!Self.launcherReads(text))
    }

    @Test("An older version, which the full program reads, is handed over (the launcher reads this format only)")
    func olderVersionHandedOver() {
        let text = Self.envelope(#"{"defaultAccessToken":"# + Self.entry + #","resourceAccessTokens":{}}"#, version: "0")
        #expect(Self.fullProgramReads(text))
        #expect(!Self.launcherReads(text))
    }
}
