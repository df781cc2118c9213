// Microsoft Entra multi-tenant authorities: `{tenantid}` in the discovery issuer is the
// token's `tid` only on Microsoft's login hosts or for a client marked multi-tenant Entra.
import AuthEngine
import Foundation
import Testing

@Suite("Entra: {tenantid} ← tid only for Microsoft login hosts or a marked authority; trusted audiences from the client")
struct EntraAuthorityTests {
    let tid = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// The options of a sign-in (authorization code) for `client` at `issuer`.
    func options(issuer: String, client: ClientConfiguration) -> IDTokenValidationOptions {
        var metadata = OP.metadata()
        metadata.issuer = issuer
        let tokens = TokenSet(response: TokenResponse(accessToken: OP.accessToken, tokenType: "Bearer"), requestedScopes: ["openid"], now: testNow)
        var options = IDTokenValidationOptions(metadata: metadata, client: client, pending: OP.pending(), tokens: tokens)
        options.accessTokenHash = .skipCheck
        return options
    }

    func validate(_ claims: [String: Any?], _ options: IDTokenValidationOptions) throws -> VerifiedIDToken {
        try validateIDToken(OP.idToken(claims: OP.claims(claims)), keys: OP.keys, options: options, crypto: OP.crypto().provider, now: testNow)
    }

    @Test("Entra: off Microsoft's hosts a {tenantid} issuer is compared as written (a provider cannot pick its own issuer by tid)")
    func entraTemplateNotReplacedOffMicrosoftHosts() {
        let template = "https://idp.example/{tenantid}/v2.0"
        let claims: [String: Any?] = ["iss": "https://idp.example/\(tid)/v2.0", "tid": tid]
        var client = ClientConfiguration(clientID: OP.clientID)
        client.multiTenantEntra = false
        #expect(authError { try validate(claims, options(issuer: template, client: client)) }
            == .protocolViolation(.idTokenIssuerMismatch(expected: template, actual: "https://idp.example/\(tid)/v2.0")))
    }

    @Test("Entra: a client marked multi-tenant Entra (an emulator on 127.0.0.1) gets the tid replacement")
    func entraMarkedMultiTenant() throws {
        let template = "http://127.0.0.1:8080/{tenantid}/v2.0"
        var client = ClientConfiguration(clientID: OP.clientID)
        client.multiTenantEntra = true
        _ = try validate(["iss": "http://127.0.0.1:8080/\(tid)/v2.0", "tid": tid], options(issuer: template, client: client))
        #expect(authError { try validate(["iss": "http://127.0.0.1:8080/\(tid)/v2.0", "tid": tid], options(issuer: template, client: OP.client)) }
            == .protocolViolation(.idTokenIssuerMismatch(expected: template, actual: "http://127.0.0.1:8080/\(tid)/v2.0")))
        #expect(EntraAuthority.isLoginHost("https://login.microsoftonline.com/{tenantid}/v2.0"))
        #expect(!EntraAuthority.isLoginHost("http://login.microsoftonline.com/{tenantid}/v2.0"))
        #expect(!EntraAuthority.isLoginHost("https://login.microsoftonline.com.evil.example/{tenantid}/v2.0"))
    }

    @Test("OIDC Core 3.1.3.7 step 3: the client's additional trusted audiences reach the options (Auth0 aud array)")
    func auth0TrustedAudiencesFromClient() throws {
        var client = ClientConfiguration(clientID: OP.clientID)
        let userinfo = "https://tenant.auth0.com/userinfo"
        let claims: [String: Any?] = ["aud": [OP.clientID, userinfo], "azp": OP.clientID]
        #expect(authError { try validate(claims, options(issuer: OP.issuer, client: client)) }
            == .protocolViolation(.audienceMismatch(expected: OP.clientID, actual: [OP.clientID, userinfo])))
        client.additionalTrustedAudiences = [userinfo]
        _ = try validate(claims, options(issuer: OP.issuer, client: client))
    }

    func discoveryDocument(issuer: String) -> HTTPResponse {
        let base = "https://login.microsoftonline.com/common/v2.0"
        let object: [String: Any] = [
            "issuer": issuer, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
            "jwks_uri": base + "/keys", "response_types_supported": ["code"], "subject_types_supported": ["pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"],
        ]
        let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: body)
    }

    @Test("Entra discovery: the common authority answers issuer {tenantid}: accepted on Microsoft's login host or when marked, refused elsewhere")
    func entraDiscoveryTemplateIssuer() throws {
        let common = "https://login.microsoftonline.com/common/v2.0"
        let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
        let metadata = try Discovery.processResponse(discoveryDocument(issuer: template), expectedIssuer: common)
        #expect(metadata.issuer == template)
        let elsewhere = "https://idp.example/common/v2.0"
        #expect(authError { try Discovery.processResponse(discoveryDocument(issuer: "https://idp.example/{tenantid}/v2.0"), expectedIssuer: elsewhere) }
            == .protocolViolation(.issuerMismatch(expected: elsewhere, actual: "https://idp.example/{tenantid}/v2.0")))
        _ = try Discovery.processResponse(discoveryDocument(issuer: "https://idp.example/{tenantid}/v2.0"), expectedIssuer: elsewhere, multiTenantEntra: true)
        #expect(authError { try Discovery.processResponse(discoveryDocument(issuer: "https://login.microsoftonline.com/other/v2.0"), expectedIssuer: common) }
            != nil)
    }
}
