import Foundation
import Testing
@testable import AuthEngine

@Suite("PKCE (RFC 7636)")
struct PKCETests {
    @Test("RFC 7636 Appendix B: 32 octets → verifier; known SHA-256 → challenge (real hash in AuthEngineLiveTests)")
    func appendixB() {
        let crypto = TestCrypto(digests: [(.sha256, Data(RFC7636AppendixB.verifier.utf8), RFC7636AppendixB.sha256OfVerifier)],
                                random: [RFC7636AppendixB.octets])
        let verifier = PKCE.makeCodeVerifier(crypto: crypto.provider)
        #expect(verifier.exposedValue == RFC7636AppendixB.verifier)
        let challenge = PKCE.makeCodeChallenge(for: verifier, crypto: crypto.provider)
        #expect(challenge == CodeChallenge(value: RFC7636AppendixB.challenge, method: .s256))
    }

    @Test("AREQ-05, RFC 7636 §4.1: verifier is 43 unreserved characters from 256 bits, no padding")
    func verifierShape() {
        let crypto = TestCrypto(random: [Data((0..<32).map { UInt8(255 - $0) })])
        let verifier = PKCE.makeCodeVerifier(crypto: crypto.provider).exposedValue
        #expect(verifier.count == 43)
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        #expect(verifier.allSatisfy(allowed.contains))
    }

    @Test("RFC 7515 Appendix C: base64url without padding round-trips", arguments: [
        (Data([3, 236, 255, 224, 193]), "A-z_4ME"),
        (Data(), ""),
        (Data([0]), "AA"),
        (Data([0, 0]), "AAA"),
    ])
    func base64url(_ data: Data, _ text: String) {
        #expect(Base64URL.encode(data) == text)
        #expect(Base64URL.decode(text) == data)
    }

    @Test("base64url decoding refuses padding, standard alphabet and bad lengths", arguments: ["AA==", "A+z/4ME", "A", "A!B"])
    func base64urlRefuses(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
