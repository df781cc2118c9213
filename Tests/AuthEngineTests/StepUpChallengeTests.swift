import Foundation
import Testing
@testable import AuthEngine

@Suite("Step-up challenges and acr (RFC 9470 §3-§4, OIDC Core §3.1.2.1)")
struct StepUpChallengeTests {
    func answer(_ status: Int, _ field: String) -> HTTPResponse { HTTPResponse(status: status, headers: ["www-authenticate": field]) }

    @Test("RFC 9470 §3: insufficient_user_authentication with acr_values and max_age; insufficient_scope with its scope")
    func parsesBothKinds() throws {
        let stepUp = try StepUpChallenge.from(answer(401, #"Bearer error="insufficient_user_authentication", "#
            + #"error_description="A different authentication level is required", acr_values="myACR gold", max_age=5"#))
        #expect(stepUp == StepUpChallenge(kind: .insufficientUserAuthentication, acrValues: ["myACR", "gold"], maxAge: 5))
        let scope = try StepUpChallenge.from(answer(403, #"Bearer error="insufficient_scope", scope="mcp:read mcp:admin mcp:read""#))
        #expect(scope == StepUpChallenge(kind: .insufficientScope, scope: ["mcp:read", "mcp:admin"]))
        // A DPoP challenge first, then the Bearer one with the error: the first with a step-up error counts.
        let second = try StepUpChallenge.from(answer(401, #"DPoP algs="ES256", Bearer error="insufficient_user_authentication", max_age=0"#))
        #expect(second?.maxAge == 0 && second?.acrValues == [])
    }

    @Test("Not a step-up: another status, another error, the error's case changed (exact code units), a field that does not parse")
    func notStepUps() throws {
        #expect(try StepUpChallenge.from(answer(400, #"Bearer error="insufficient_user_authentication", max_age=5"#)) == nil)
        #expect(try StepUpChallenge.from(answer(401, #"Bearer error="invalid_token""#)) == nil)
        #expect(try StepUpChallenge.from(answer(401, #"Bearer error="Insufficient_User_Authentication", max_age=5"#)) == nil)
        #expect(try StepUpChallenge.from(answer(401, #"Bearer error="insufficient_user_authentication", max_age=5, max_age=6"#)) == nil)
        #expect(try StepUpChallenge.from(answer(401, #"Bearer realm="error=\"insufficient_scope\"""#)) == nil)
        #expect(try StepUpChallenge.from(HTTPResponse(status: 401)) == nil)
    }

    @Test("Hostile values refused by name: max_age not 1*DIGIT or too large, acr_values outside NQCHAR, too many, nothing asked",
          arguments: [
              (#"max_age=-1"#, "max_age"), (#"max_age="1e3""#, "max_age"), (#"max_age=99999999999"#, "max_age"),
              (#"max_age=" 5""#, "max_age"), (#"max_age=315360001"#, "max_age"), (#"max_age="""#, "max_age"),
              (#"acr_values="gold\"x""#, "acr_values"), ("acr_values=\"gold\u{7F}\"", "acr_values"),
              ("acr_values=\"g\u{00F6}ld\"", "acr_values"), ("acr_values=\"a\tb\"", "acr_values"),
              ("acr_values=\"" + (1...33).map { "a\($0)" }.joined(separator: " ") + "\"", "acr_values"),
              (#"error_description="x""#, "acr_values"),
          ])
    func hostileValues(parameter: String, named: String) {
        let field = #"Bearer error="insufficient_user_authentication", "# + parameter
        #expect(throws: StepUpChallenge.Invalid.self) { try StepUpChallenge.from(answer(401, field)) }
        do {
            _ = try StepUpChallenge.from(answer(401, field))
        } catch {
            #expect(error.parameter == named)
        }
    }

    @Test("OIDC Core §3.1.2.1: acr_values and max_age go in the authorization request; the pending request keeps both")
    func authorizationRequestCarriesThem() throws {
        var request = AuthorizationRequest(scopes: ["openid", "mcp:admin"], redirectURI: OP.redirectURI, maxAge: 60)
        request.acrValues = ["gold", "silver"]
        let crypto = TestCrypto(digests: [(.sha256, Data(RFC7636AppendixB.verifier.utf8), RFC7636AppendixB.sha256OfVerifier)],
                                random: [Data(repeating: 0xA1, count: 32), Data(repeating: 0xB2, count: 32), RFC7636AppendixB.octets])
        let pending = try makeAuthorizationRequest(metadata: OP.metadata(), client: OP.client, request: request, crypto: crypto.provider)
        let query = URLComponents(url: pending.authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "acr_values" }?.value == "gold+silver", "form-encoded: `+` is the space")
        #expect(query.first { $0.name == "max_age" }?.value == "60")
        #expect(pending.acrValues == ["gold", "silver"] && pending.maxAge == 60)
    }

    @Test("acr_values asked: acr absent, lower, or differing in case is refused by name; one of them passes")
    func acrChecked() throws {
        var options = OP.options()
        options.acr = .oneOf(["gold", "platinum"])
        let now = testNow.timeIntervalSince1970
        func check(_ acr: String?) throws {
            var claims = OP.claims(["at_hash": OP.atHash, "auth_time": now - 10])
            if let acr { claims["acr"] = acr }
            _ = try validateIDToken(OP.idToken(claims: claims), keys: OP.keys, options: options, crypto: OP.crypto().provider, now: testNow)
        }
        try check("platinum")
        #expect(throws: AuthError.protocolViolation(.acrNotSatisfied(requested: ["gold", "platinum"], actual: nil))) { try check(nil) }
        #expect(throws: AuthError.protocolViolation(.acrNotSatisfied(requested: ["gold", "platinum"], actual: "silver"))) { try check("silver") }
        #expect(throws: AuthError.protocolViolation(.acrNotSatisfied(requested: ["gold", "platinum"], actual: "Gold"))) { try check("Gold") }
    }
}
