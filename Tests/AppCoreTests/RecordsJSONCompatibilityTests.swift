// The metadata files without Codable: files written by the earlier JSONEncoder code
// (AccountsFixtures, ProvidersFixtures) read to the same values through the StrictJSON mappings;
// the new writer writes the same members (so the value read back is the same); damaged records
// are named by index and field.
import AuthEngine
import CredentialStore
import Foundation
import Testing
@testable import AppCore

@Suite("Metadata files: the JSON mappings read what Codable wrote, and round trip")
struct RecordsJSONCompatibilityTests {
    static func d(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    static func parse(_ text: String) throws -> JSONValue { try parseJSON(Data(text.utf8)).get() }

    /// The values the fixtures were written from (the same code as their generator).
    static var fullProviders: [ProviderConfig] {
        var work = ProviderConfig(
            id: "work", displayName: "Work IdP", issuer: URL(string: "https://id.example.com/realms/a%20b/")!, clientID: "cli-é/1",
            clientAuthentication: .clientSecretPost, scopes: ["openid", "email"], audience: "https://api.example.com/",
            resources: ["https://r1.example/", "urn:x:y"], extraHeaders: ["Accept": "application/json", "X-Two": "2"],
            extraAuthorizationParameters: ["access_type": "offline", "prompt": "consent"],
            endpoints: EndpointOverrides(
                authorization: URL(string: "https://id.example.com/auth?x=1")!, token: URL(string: "https://id.example.com/token")!,
                deviceAuthorization: URL(string: "https://id.example.com/device")!, revocation: URL(string: "https://id.example.com/revoke")!,
                introspection: URL(string: "https://id.example.com/introspect")!, userinfo: URL(string: "https://id.example.com/userinfo")!,
                endSession: URL(string: "https://id.example.com/logout")!, jwks: URL(string: "https://id.example.com/jwks")!),
            caBundlePath: "/etc/ssl/ca.pem", preset: "keycloak", par: .always, dpop: .never)
        work.booleanStringClaims = ["email_verified", "is_private_email"]
        work.claimTimeUnits = ["created_at": .ms, "auth_time": .s]
        work.additionalTrustedAudiences = ["https://api.example.com", "other"]
        work.multiTenantEntra = true
        work.revocationStyle = .githubApplicationToken
        work.logoutStyle = .endSessionOrAuth0V2Logout
        work.appleClientSecret = AppleClientSecretSource(keyPath: "/home/u/AuthKey_ABC.p8", teamID: "TEAM123456", keyID: "KEY1234567", days: 90)
        return [ProviderConfig(id: "github", issuer: nil, clientID: "gh"), work]
    }

    static let minimalProviders = [ProviderConfig(id: "local", issuer: URL(string: "http://127.0.0.1:8080")!, clientID: "authdeck", scopes: [])]

    static let claims: JSONValue = .object([
        "iss": .string("https://id.example.com/"), "exp": .number(1_900_000_600), "frac": .number(1.5), "ok": .bool(true), "nothing": .null,
        "aud": .array([.string("a"), .string("b")]), "nested": .object(["x": .number(-3)]),
    ])

    static var fullAccounts: [AccountRecord] {
        var jwt = AccessTokenInfo(expiresAt: d(1_900_000_600), issuedAt: d(1_900_000_000), tokenType: "DPoP", scopes: ["openid", "email"], informationalClaims: claims)
        jwt.format = .jwt
        var opaque = AccessTokenInfo(resource: "https://r1.example/", expiresAt: nil, issuedAt: d(1_900_000_001), scopes: [])
        opaque.format = .opaque
        var encrypted = AccessTokenInfo(resource: "urn:logto:organization:o1", expiresAt: d(1_900_000_300), issuedAt: d(1_900_000_002), scopes: ["x"])
        encrypted.format = .encrypted
        var work = AccountRecord(
            id: "work/sub-1", providerID: "work", issuer: "https://id.example.com/realms/a%20b/", subject: "sub-1", displayName: "Alice Ä",
            username: "alice", email: "alice@example.com", alias: "me", requestedScopes: ["openid", "email", "offline_access"],
            grantedScopes: ["openid", "email"], previousGrantedScopes: ["openid"], accessTokens: [jwt, opaque, encrypted], hasRefreshToken: true,
            refreshTokenExpiresAt: d(1_900_086_400),
            idToken: IDTokenInfo(header: .object(["alg": .string("RS256"), "kid": .string("k1")]), claims: claims,
                                 signature: .verified(algorithm: "RS256", keyID: "k1"), expiresAt: d(1_900_000_600), issuedAt: d(1_900_000_000)),
            signedInAt: d(1_899_999_000), lastRefreshAt: d(1_900_000_000), storage: .secretService)
        work.emailVerified = true
        work.isPrivateEmail = false
        work.tokenWarnings = ["token_type missing", "expires_in \"3600\" is a string"]
        work.idTokenProblem = "iss mismatch"
        work.needsSignInSince = d(1_900_000_100)
        work.refreshSentAt = d(1_900_000_050)
        work.dpopThumbprint = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        let github = AccountRecord(
            id: "github/42", providerID: "github", issuer: nil, subject: "42", displayName: "octo", requestedScopes: [], grantedScopes: [],
            accessTokens: [AccessTokenInfo(expiresAt: nil, issuedAt: d(1_900_000_000), scopes: [])], hasRefreshToken: false,
            idToken: IDTokenInfo(header: .object([:]), claims: .object([:]), signature: .notVerified(reason: "no JWKS \"here\""), expiresAt: nil, issuedAt: nil),
            signedInAt: d(1_900_000_000), storage: .vault)
        var noKeyID = AccountRecord(
            id: "x/y", providerID: "x", issuer: "https://x/", subject: "y", displayName: "y", requestedScopes: ["openid"], grantedScopes: ["openid"],
            accessTokens: [], hasRefreshToken: true,
            idToken: IDTokenInfo(header: .object(["alg": .string("ES256")]), claims: .object(["sub": .string("y")]),
                                 signature: .verified(algorithm: "ES256", keyID: nil), expiresAt: nil, issuedAt: nil),
            signedInAt: d(1_900_000_000), storage: .plaintext)
        noKeyID.emailVerified = false
        return [github, work, noKeyID]
    }

    static let minimalAccounts = [AccountRecord(
        id: "local/a", providerID: "local", issuer: nil, subject: "a", displayName: "a", requestedScopes: [], grantedScopes: [],
        accessTokens: [], hasRefreshToken: false, signedInAt: d(1_900_000_000), storage: .memory)]

    @Test("providers.json as JSONEncoder wrote it (every member, and the minimum) reads to the same providers; the new writer writes the same document",
          arguments: [("full", ProvidersFixtures.full), ("minimal", ProvidersFixtures.minimal)])
    func providersCompatibility(variant: String, text: String) throws {
        let expected = variant == "full" ? Self.fullProviders : Self.minimalProviders
        let document = try Self.parse(text)
        #expect(try ProviderConfig.list(json: document) == expected)
        #expect(ProviderConfig.json(expected) == document, "the same members, names and values as the Codable writer")
        let written = ProviderConfig.json(expected).serialized(pretty: true)
        #expect(try ProviderConfig.list(json: parseJSON(written).get()) == expected)
    }

    @Test("accounts.json as JSONEncoder wrote it (every member, SignatureStatus both cases, keyID absent, and the minimum) reads to the same records; the new writer writes the same document",
          arguments: [("full", AccountsFixtures.full), ("minimal", AccountsFixtures.minimal)])
    func accountsCompatibility(variant: String, text: String) throws {
        let expected = variant == "full" ? Self.fullAccounts : Self.minimalAccounts
        let document = try Self.parse(text)
        #expect(try AccountRecord.list(json: document) == expected)
        #expect(AccountRecord.json(expected) == document, "the same members, names and values as the Codable writer")
        let written = AccountRecord.json(expected).serialized(pretty: true)
        #expect(try AccountRecord.list(json: parseJSON(written).get()) == expected)
    }

    @Test("Claims as deep as a provider's document may be (the deepest StrictJSON reads) stored in a record: accounts.json reads back at the depth authdeck reads its files with (a hostile provider cannot make it unreadable)")
    func deepestClaimsReadBack() throws {
        var deepest: JSONValue = .number(1)
        for _ in 1..<maximumJSONDepth { deepest = .object(["x": deepest]) }
        let text = deepest.serialized()
        let claims = try parseJSON(text).get()
        #expect(claims == deepest, "the deepest document a provider may send")
        var record = Self.fullAccounts[0]
        record.idToken?.claims = claims
        record.accessTokens[0].informationalClaims = claims
        let written = AccountRecord.json([record]).serialized(pretty: true)
        let read = parseJSON(written, maximumDepth: maximumStoredJSONDepth)
        #expect(try AccountRecord.list(json: read.get()) == [record], "\(read)")
    }

    @Test("A cache file (discovery, JWKS) as JSONEncoder wrote it reads to the same document; the new writer writes the same members")
    func cacheCompatibility() throws {
        let discovery = CachedDocument(kind: .discovery, url: "https://id.example.com/.well-known/openid-configuration",
                                       body: "{\"issuer\":\"https://id.example.com/\",\n \"x\": \"\\u00e9/\"}", fetchedAt: Self.d(1_900_000_000), maxAgeSeconds: 86400)
        let jwks = CachedDocument(kind: .jwks, url: "http://127.0.0.1:8080/jwks", body: "", fetchedAt: Self.d(1_900_000_000), maxAgeSeconds: 300)
        for (text, expected) in [(ProvidersFixtures.discoveryCache, discovery), (ProvidersFixtures.jwksCache, jwks)] {
            let document = try Self.parse(text)
            #expect(try CachedDocument(json: document) == expected)
            #expect(expected.json == document)
            #expect(try CachedDocument(json: parseJSON(expected.json.serialized(pretty: true)).get()) == expected)
        }
    }

    @Test("A JWKS fetched by a key lookup says so in its cache file (forKeyLookup, only when true), so the cool-down holds across processes")
    func cacheForKeyLookup() throws {
        let looked = CachedDocument(kind: .jwks, url: "https://id.example.com/jwks", body: "{}", fetchedAt: Self.d(1_900_000_000), maxAgeSeconds: 300, forKeyLookup: true)
        guard case .object(let members) = looked.json else { Issue.record("not an object"); return }
        #expect(members["forKeyLookup"] == .bool(true))
        #expect(try CachedDocument(json: parseJSON(looked.json.serialized(pretty: false)).get()) == looked)
        var plain = looked
        plain.forKeyLookup = false
        guard case .object(let plainMembers) = plain.json else { Issue.record("not an object"); return }
        #expect(plainMembers["forKeyLookup"] == nil)
    }

    @Test("Members added after a record was written are optional (an old record without emailVerified, tokenWarnings, refreshSentAt, dpopThumbprint, format reads)")
    func laterMembersOptional() throws {
        guard case .array(var records) = try Self.parse(AccountsFixtures.full), case .object(var work) = records[1],
              case .array(var tokens) = work["accessTokens"], case .object(var token) = tokens[0] else { Issue.record("shape"); return }
        for name in ["emailVerified", "isPrivateEmail", "tokenWarnings", "idTokenProblem", "needsSignInSince", "refreshSentAt", "dpopThumbprint"] {
            work[name] = nil
        }
        token["format"] = nil
        tokens[0] = .object(token)
        work["accessTokens"] = .array(tokens)
        records[1] = .object(work)
        let record = try AccountRecord.list(json: .array(records))[1]
        #expect(record.emailVerified == nil && record.tokenWarnings == nil && record.refreshSentAt == nil && record.dpopThumbprint == nil)
        #expect(record.accessTokens[0].format == nil)
        #expect(record.subject == "sub-1")
    }

    @Test("A record at fault is named by its index and the field's path, never by its value", arguments: [
        (#"[{"id": 1}]"#, [JSONPathComponent.index(0), .member("id")], "a string"),
        (#"{"id": "secret-looking value"}"#, [], "a list"),
    ])
    func recordErrorsNamed(text: String, path: [JSONPathComponent], expected: String) throws {
        #expect(throws: JSONShapeError(path: path, expected: expected)) { try AccountRecord.list(json: Self.parse(text)) }
    }

    @Test("A date that is not ISO 8601, an unknown storage and a signature with two cases are refused with their paths")
    func badMembers() throws {
        guard case .array(let records) = try Self.parse(AccountsFixtures.full), case .object(let work) = records[1] else { Issue.record("shape"); return }
        func refused(_ name: String, _ value: JSONValue) -> JSONShapeError? {
            var changed = work
            changed[name] = value
            do { _ = try AccountRecord(json: .object(changed), path: [.index(1)]); return nil } catch { return error }
        }
        #expect(refused("signedInAt", .string("2030-03-17 17:46"))?.path == [.index(1), .member("signedInAt")])
        #expect(refused("storage", .string("keychain"))?.path == [.index(1), .member("storage")])
        let twoCases: JSONValue = .object(["idToken": .object(["header": .object([:]), "claims": .object([:]),
            "signature": .object(["verified": .object(["algorithm": .string("RS256")]), "notVerified": .object(["reason": .string("r")])])])])
        #expect(refused("idToken", twoCases["idToken"] ?? .null)?.path == [.index(1), .member("idToken"), .member("signature")])
    }
}

private extension JSONValue {
    subscript(name: String) -> JSONValue? { objectValue?[name] }
}
