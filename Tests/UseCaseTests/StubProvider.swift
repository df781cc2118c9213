import AppCore
import AuthEngine
import Foundation
import Synchronization

/// A scriptable OpenID provider at `https://op.test`, answering the HTTP edge in process:
/// discovery, JWKS, authorization code / refresh / device code grants (refresh tokens rotate,
/// a replayed one is `invalid_grant`), device authorization, revocation, userinfo,
/// introspection. Every request is recorded so stories can count round trips.
final class StubProvider: Sendable {
    let issuer: String
    let clientID = "rp-native"

    init(issuer: String = "https://op.test") { self.issuer = issuer }

    struct Script: Sendable {
        /// Seconds in `expires_in`.
        var accessTokenLifetime = 3600
        /// Status of the discovery and JWKS documents (e.g. 503 for an outage).
        var discoveryStatus = 200
        var jwksStatus = 200
        var discoveryCacheControl: String?
        /// The `kid` of the signing key in the JWKS and in new ID tokens.
        var publishedKeyIDs = ["k1"]
        var signingKeyID = "k1"
        /// Whether a refresh answer carries a new ID token.
        var idTokenOnRefresh = true
        /// An error for the next token request (`invalid_grant`, or an HTTP 503).
        var nextTokenError: (status: Int, body: [String: String], headers: [String: String])?
        /// Device polling answers before success (`authorization_pending`, `slow_down`, `expired_token`).
        var devicePolls: [String] = []
        var deviceInterval = 5
        /// Leave `token_type` out of token responses (a provider that forgets it).
        var omitTokenType = false
        /// Issue no refresh token.
        var omitRefreshToken = false
        /// `auth_time` in ID tokens (seconds since the epoch), when set.
        var authTime: Int?
        /// More ID-token claims, as a JSON object text (Apple's string booleans); merged last.
        var extraClaimsJSON: String?
        /// The `scope` answered to a refresh (default: as at sign-in).
        var refreshScope: String?
        /// When set, access tokens are JWTs with these claims (a JSON object).
        var accessTokenClaimsJSON: String?
        /// ID tokens without `name` and `preferred_username` (Apple after the first sign-in).
        var omitProfileClaims = false
        /// `verification_uri_complete` in device authorization responses.
        var verificationURIComplete: String?
        /// `verification_uri` in device authorization responses (default `ISSUER/activate`).
        var verificationURI: String?
        /// UserInfo as a signed JWT (`application/jwt`, OIDC Core §5.3.2) with these claims merged over
        /// `iss`, `aud`, `sub` and `email`; nil: JSON.
        var signedUserInfo: [String: any Sendable]?
        /// The introspection answer (default `{"active": true, "scope": "openid"}`).
        var introspection: [String: any Sendable]?
        /// RFC 9126: advertise `pushed_authorization_request_endpoint` (`/par`), and require it.
        var pushedAuthorization = false
        /// Endpoint path → a status answered with an empty body (no RFC 6749 §5.2 error), as a gateway or a terse provider does.
        var bareAnswers: [String: Int] = [:]
        /// More discovery members (`revocation_endpoint_auth_methods_supported`, …).
        var metadataLists: [String: [String]] = [:]
        var requirePushedAuthorization = false
        /// The next answer of `/par` instead of a 201 with `request_uri` and `expires_in`.
        var nextPARResponse: (status: Int, body: [String: String], headers: [String: String])?
        /// RFC 9449: `dpop_signing_alg_values_supported`; DPoP tokens are issued to requests with a proof.
        var dpopAlgorithms: [String]?
        /// A nonce the token endpoint (`/token`) or the resource (`/api`) requires (§8, §9).
        var tokenEndpointNonce: String?
        var resourceNonce: String?
        /// Answer `token_type: DPoP` even to a request without a proof (a broken provider).
        var dpopWithoutProof = false
    }

    /// A DPoP proof as the stub read it: the header's `jwk` (canonical JSON), `typ` and the claims.
    struct Proof: Sendable {
        var jwk: String
        var type: String?
        var claims: [String: String]
    }
    /// Every proof received, in order, with the request path.
    let proofs = Mutex<[(path: String, proof: Proof)]>([])

    static func readProof(_ request: HTTPRequest) -> Proof? {
        guard let header = request.headers.first(where: { $0.name.lowercased() == "dpop" }),
              let jws = try? CompactJWS(parsing: header.value),
              let jwk = jws.header.members["jwk"],
              let jwkJSON = try? { () throws -> Data in let e = JSONEncoder(); e.outputFormatting = [.sortedKeys]; return try e.encode(jwk) }(),
              let object = try? JSONSerialization.jsonObject(with: jws.payload) as? [String: Any] else { return nil }
        var claims: [String: String] = [:]
        for (name, value) in object { claims[name] = "\(value)" }
        return Proof(jwk: String(decoding: jwkJSON, as: UTF8.self), type: jws.header.type, claims: claims)
    }

    let script = Mutex(Script())
    let requests = Mutex<[HTTPRequest]>([])
    private let state = Mutex(State())

    private struct State {
        var counter = 0
        var codes: [String: (subject: String, nonce: String?)] = [:]
        /// Live refresh token → subject; rotated ones are removed (reuse → invalid_grant).
        var refreshTokens: [String: String] = [:]
        var revoked: [String] = []
        /// RFC 9449: the key (jwk JSON) each refresh token is bound to.
        var boundRefreshTokens: [String: String] = [:]
        /// RFC 9126: pushed parameters by `request_uri`.
        var pushed: [String: [String: String]] = [:]
    }

    /// The parameters pushed under `requestURI` (RFC 9126 §2.1), or nil.
    func pushedParameters(_ requestURI: String) -> [String: String]? { state.withLock { $0.pushed[requestURI] } }

    var config: ProviderConfig {
        ProviderConfig(id: "op", displayName: "Test OP", issuer: URL(string: issuer)!, clientID: clientID,
                       endpoints: EndpointOverrides(deviceAuthorization: URL(string: "\(issuer)/device")!))
    }

    /// Requests to `path` so far (e.g. `/token`).
    func count(_ path: String) -> Int { requests.withLock { $0.filter { $0.url.path == path }.count } }
    var total: Int { requests.withLock { $0.count } }
    func form(of request: HTTPRequest) -> [String: String] {
        let text = String(decoding: request.body ?? Data(), as: UTF8.self)
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if parts.count == 2 { result[parts[0]] = parts[1] }
        }
        return result
    }
    var tokenRequests: [[String: String]] { requests.withLock { $0.filter { $0.url.path == "/token" } }.map(form(of:)) }
    var revokedTokens: [String] { state.withLock { $0.revoked } }

    func issueCode(subject: String, nonce: String?) -> String {
        state.withLock { state in
            state.counter += 1
            // As long as real codes are (a pasted code alone is at least minimumCodeLength).
            let code = "code-\(state.counter)-SplxlOBeZQQYbYS6WxSbIA"
            state.codes[code] = (subject, nonce)
            return code
        }
    }

    /// A refresh token the provider knows, for accounts seeded without a sign-in.
    func issueRefreshToken(subject: String) -> String {
        state.withLock { state in
            state.counter += 1
            let token = "rt-\(state.counter)"
            state.refreshTokens[token] = subject
            return token
        }
    }

    func idToken(subject: String, nonce: String?, now: Date, keyID: String? = nil) -> String {
        var claims: [String: Any] = ["iss": issuer, "sub": subject, "aud": clientID, "iat": Int(now.timeIntervalSince1970),
                                     "exp": Int(now.timeIntervalSince1970) + 3600, "name": subject.capitalized, "preferred_username": subject]
        if let nonce { claims["nonce"] = nonce }
        if let authTime = script.withLock({ $0.authTime }) { claims["auth_time"] = authTime }
        if script.withLock({ $0.omitProfileClaims }) { claims["name"] = nil; claims["preferred_username"] = nil }
        if let extra = script.withLock({ $0.extraClaimsJSON }),
           let object = try? JSONSerialization.jsonObject(with: Data(extra.utf8)) as? [String: Any] {
            claims.merge(object, uniquingKeysWith: { $1 })
        }
        return makeJWT(header: ["alg": "RS256", "kid": keyID ?? script.withLock { $0.signingKeyID }], claims: claims)
    }

    func handle(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        requests.withLock { $0.append(request) }
        let script = self.script.withLock { $0 }
        let proof = Self.readProof(request)
        if let proof { proofs.withLock { $0.append((request.url.path, proof)) } }
        if let status = script.bareAnswers[request.url.path] { return HTTPResponse(status: status) }
        switch request.url.path {
        case "/.well-known/openid-configuration":
            guard script.discoveryStatus == 200 else { return HTTPResponse(status: script.discoveryStatus) }
            var headers: [String: String] = [:]
            if let cacheControl = script.discoveryCacheControl { headers["Cache-Control"] = cacheControl }
            return json([
                "issuer": issuer, "authorization_endpoint": "\(issuer)/authorize", "token_endpoint": "\(issuer)/token",
                "jwks_uri": "\(issuer)/jwks", "userinfo_endpoint": "\(issuer)/userinfo", "revocation_endpoint": "\(issuer)/revoke",
                "introspection_endpoint": "\(issuer)/introspect", "end_session_endpoint": "\(issuer)/logout",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
            ].merging(discoveryExtras(script), uniquingKeysWith: { $1 }), headers: headers)
        case "/par":
            if let answer = script.nextPARResponse {
                self.script.withLock { $0.nextPARResponse = nil }
                return json(answer.body, status: answer.status, headers: answer.headers)
            }
            let requestURI = state.withLock { state -> String in
                state.counter += 1
                let uri = "urn:ietf:params:oauth:request_uri:req-\(state.counter)"
                state.pushed[uri] = form(of: request)
                return uri
            }
            return json(["request_uri": requestURI, "expires_in": 60], status: 201)
        case "/jwks":
            guard script.jwksStatus == 200 else { return HTTPResponse(status: script.jwksStatus) }
            return json(["keys": script.publishedKeyIDs.map { ["kty": "RSA", "kid": $0, "use": "sig", "alg": "RS256", "n": Self.modulus, "e": "AQAB"] }])
        case "/token", "/alt/token":
            if let nonce = script.tokenEndpointNonce, let proof, proof.claims["nonce"] != nonce {
                return json(["error": "use_dpop_nonce"], status: 400, headers: ["DPoP-Nonce": nonce])
            }
            return token(form(of: request), script: script, now: now, proof: proof)
        case "/api":
            let authorization = request.headers.first { $0.name.lowercased() == "authorization" }?.value ?? ""
            guard authorization.hasPrefix("DPoP "), let proof else { return HTTPResponse(status: 401, headers: ["WWW-Authenticate": "DPoP"]) }
            if let nonce = script.resourceNonce, proof.claims["nonce"] != nonce {
                return HTTPResponse(status: 401, headers: ["WWW-Authenticate": #"DPoP error="use_dpop_nonce""#, "DPoP-Nonce": nonce])
            }
            let ath = Base64URL.encode(StubCrypto.provider.digest(.sha256, Data(authorization.dropFirst(5).utf8)))
            guard proof.claims["ath"] == ath else { return HTTPResponse(status: 401, headers: ["WWW-Authenticate": #"DPoP error="invalid_dpop_proof""#]) }
            return json(["ok": true])
        case "/device":
            var body: [String: Any] = ["device_code": "device-1", "user_code": "ABCD-EFGH", "verification_uri": script.verificationURI ?? "\(issuer)/activate",
                                       "expires_in": 600, "interval": script.deviceInterval]
            if let complete = script.verificationURIComplete { body["verification_uri_complete"] = complete }
            return json(body)
        case "/revoke":
            let token = form(of: request)["token"] ?? ""
            state.withLock { state in
                state.revoked.append(token)
                state.refreshTokens[token] = nil
            }
            return HTTPResponse(status: 200)
        case "/userinfo":
            let subject = state.withLock { $0.refreshTokens.values.first } ?? "alice"
            if let extra = script.signedUserInfo {
                let claims: [String: Any] = ["iss": issuer, "aud": clientID, "sub": subject, "email": "\(subject)@example.test"].merging(extra, uniquingKeysWith: { $1 })
                return HTTPResponse(status: 200, headers: ["Content-Type": "application/jwt"],
                                    body: Data(makeJWT(header: ["alg": "RS256", "kid": script.signingKeyID], claims: claims).utf8))
            }
            return json(["sub": subject, "email": "\(subject)@example.test"])
        case "/introspect":
            return json(script.introspection ?? ["active": true, "scope": "openid"])
        default:
            return HTTPResponse(status: 404)
        }
    }

    private func discoveryExtras(_ script: Script) -> [String: Any] {
        var extras: [String: Any] = [:]
        if script.pushedAuthorization { extras["pushed_authorization_request_endpoint"] = "\(issuer)/par" }
        if script.requirePushedAuthorization { extras["require_pushed_authorization_requests"] = true }
        if let algorithms = script.dpopAlgorithms { extras["dpop_signing_alg_values_supported"] = algorithms }
        for (name, values) in script.metadataLists { extras[name] = values }
        return extras
    }

    private func token(_ form: [String: String], script: Script, now: Date, proof: Proof?) -> HTTPResponse {
        if let error = script.nextTokenError {
            self.script.withLock { $0.nextTokenError = nil }
            return json(error.body, status: error.status, headers: error.headers)
        }
        switch form["grant_type"] {
        case "authorization_code":
            guard let grant = state.withLock({ $0.codes.removeValue(forKey: form["code"] ?? "") }) else {
                return json(["error": "invalid_grant"], status: 400)
            }
            return tokens(subject: grant.subject, nonce: grant.nonce, idToken: true, script: script, now: now, proof: proof)
        case "refresh_token":
            // RFC 9449 §5: a bound refresh token needs a proof from the same key.
            if let bound = state.withLock({ $0.boundRefreshTokens[form["refresh_token"] ?? ""] }), bound != proof?.jwk {
                return json(["error": "invalid_grant", "error_description": "DPoP key mismatch"], status: 400)
            }
            guard let subject = state.withLock({ $0.refreshTokens.removeValue(forKey: form["refresh_token"] ?? "") }) else {
                return json(["error": "invalid_grant", "error_description": "refresh token reused or revoked"], status: 400)
            }
            var answer = tokens(subject: subject, nonce: nil, idToken: script.idTokenOnRefresh, script: script, now: now, proof: proof)
            if let scope = script.refreshScope, var body = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any] {
                body["scope"] = scope
                answer = json(body)
            }
            return answer
        case "client_credentials":
            // RFC 6749 §4.4.3: an access token, no refresh token, no ID token.
            let access = state.withLock { state -> String in
                state.counter += 1
                return "cc-at-\(state.counter)"
            }
            return json(["access_token": access, "token_type": "Bearer", "expires_in": script.accessTokenLifetime])
        case "urn:ietf:params:oauth:grant-type:token-exchange":
            return exchange(form, script: script)
        case "urn:ietf:params:oauth:grant-type:device_code":
            let next: String? = self.script.withLock { script in script.devicePolls.isEmpty ? nil : script.devicePolls.removeFirst() }
            if let next { return json(["error": next], status: 400) }
            return tokens(subject: "bob", nonce: nil, idToken: false, script: script, now: now, proof: proof)
        default:
            return json(["error": "unsupported_grant_type"], status: 400)
        }
    }

    /// RFC 8693 §2: the subject an access token this provider issued (or an ID token); `invalid_target`
    /// for an audience or resource with `unknown` in it; an ID-JAG (`N_A`) when one is requested.
    /// Answers with a refresh token, which a client must not take for the account's.
    private func exchange(_ form: [String: String], script: Script) -> HTTPResponse {
        let subject = form["subject_token"] ?? ""
        switch form["subject_token_type"] {
        case TokenTypeIdentifier.accessToken? where subject.hasPrefix("at-") || subject.hasPrefix("cc-at-"): break
        case TokenTypeIdentifier.idToken? where subject.split(separator: ".").count == 3: break
        case TokenTypeIdentifier.accessToken?, TokenTypeIdentifier.idToken?:
            return json(["error": "invalid_request", "error_description": "invalid subject token"], status: 400)
        default:
            return json(["error": "invalid_request", "error_description": "unsupported subject_token_type"], status: 400)
        }
        if (form["audience"] ?? form["resource"] ?? "").contains("unknown") {
            return json(["error": "invalid_target", "error_description": "no such audience"], status: 400)
        }
        let jag = form["requested_token_type"] == TokenTypeIdentifier.idJAG
        let number = state.withLock { state -> Int in
            state.counter += 1
            return state.counter
        }
        return json(["access_token": "xt-\(number)", "issued_token_type": jag ? TokenTypeIdentifier.idJAG : TokenTypeIdentifier.accessToken,
                     "token_type": jag ? "N_A" : "Bearer", "expires_in": script.accessTokenLifetime, "refresh_token": "xt-rt-\(number)"])
    }

    private func tokens(subject: String, nonce: String?, idToken: Bool, script: Script, now: Date, proof: Proof? = nil) -> HTTPResponse {
        let dpop = (proof != nil && script.dpopAlgorithms != nil) || script.dpopWithoutProof
        let (access, refresh) = state.withLock { state -> (String, String) in
            state.counter += 1
            let refresh = "rt-\(state.counter)"
            state.refreshTokens[refresh] = subject
            if dpop, let proof { state.boundRefreshTokens[refresh] = proof.jwk }
            return ("at-\(state.counter)", refresh)
        }
        let claims = script.accessTokenClaimsJSON.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let accessToken = claims.map { makeJWT(header: ["alg": "RS256", "typ": "at+jwt"], claims: $0.merging(["jti": access], uniquingKeysWith: { $1 })) }
        var body: [String: Any] = ["access_token": accessToken ?? access, "token_type": "Bearer", "expires_in": script.accessTokenLifetime,
                                   "refresh_token": refresh, "scope": "openid profile offline_access"]
        if idToken { body["id_token"] = self.idToken(subject: subject, nonce: nonce, now: now) }
        if dpop { body["token_type"] = "DPoP" }
        if script.omitTokenType { body["token_type"] = nil }
        if script.omitRefreshToken { body["refresh_token"] = nil }
        return json(body)
    }

    private func json(_ object: Any, status: Int = 200, headers: [String: String] = [:]) -> HTTPResponse {
        var all = headers
        all["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: all, body: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// A 2048-bit-sized modulus (the stub verifier never uses it).
    static let modulus = Base64URL.encode(Data(repeating: 0xC5, count: 256))
}

/// A compact JWS from JSON objects, signed with the stub signature.
func makeJWT(header: [String: Any], claims: [String: Any]) -> String {
    func part(_ object: [String: Any]) -> String {
        Base64URL.encode(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
    return part(header) + "." + part(claims) + "." + Base64URL.encode(StubCrypto.validSignature)
}
