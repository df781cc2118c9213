import AuthEngine
import FoundationEssentials

// `providers.json` (a list of these) and the `provider` object of a preset: one mapping each way,
// with the member names of the Codable conformance it replaces (the Swift property names; nil
// members left out; enums by raw value; URLs as absolute strings), so files written before
// read unchanged (Tests/AppCoreTests/RecordsJSONCompatibilityTests).

extension ProviderConfig {
    /// Reads a provider from its JSON object (`id`, `displayName`, `clientID`,
    /// `clientAuthentication`, `scopes`, `resources`, `extraHeaders`,
    /// `extraAuthorizationParameters` and `endpoints` required; the rest optional).
    /// - Throws: ``JSONShapeError`` naming the member's path below `path`.
    public init(json: JSONValue, path: [JSONPathComponent] = []) throws(JSONShapeError) {
        let reader = try JSONReader(json, path: path)
        try self.init(id: ProviderID(reader.string("id")), displayName: reader.string("displayName"),
                  issuer: reader.optionalURL("issuer"), clientID: reader.string("clientID"),
                  clientAuthentication: reader.choice("clientAuthentication"), scopes: reader.strings("scopes"),
                  audience: reader.optionalString("audience"), resources: reader.strings("resources"),
                  extraHeaders: reader.stringMap("extraHeaders"),
                  extraAuthorizationParameters: reader.stringMap("extraAuthorizationParameters"),
                  endpoints: EndpointOverrides(json: reader.reader("endpoints")),
                  caBundlePath: reader.optionalString("caBundlePath"), preset: reader.optionalString("preset"),
                  par: reader.optionalChoice("par"), dpop: reader.optionalChoice("dpop"))
        booleanStringClaims = try reader.optionalStrings("booleanStringClaims")
        claimTimeUnits = try reader.optionalMap("claimTimeUnits") { (value, path) throws(JSONShapeError) -> ClaimTimeUnit in
            guard let text = value.stringValue, let unit = ClaimTimeUnit(rawValue: text) else {
                throw JSONShapeError(path: path, expected: JSONReader.oneOf(ClaimTimeUnit.self))
            }
            return unit
        }
        additionalTrustedAudiences = try reader.optionalStrings("additionalTrustedAudiences")
        multiTenantEntra = try reader.optionalBool("multiTenantEntra")
        revocationStyle = try reader.optionalChoice("revocationStyle")
        logoutStyle = try reader.optionalChoice("logoutStyle")
        revocableTokens = try reader.optionalStrings("revocableTokens")
        consentForOfflineAccess = try reader.optionalBool("consentForOfflineAccess")
        postsIDTokenHint = try reader.optionalBool("postsIDTokenHint")
        subjectClaim = try reader.optionalString("subjectClaim")
        // A GitHub provider stored before `subjectClaim` existed: its accounts were signed in with
        // `GET /user`'s `id` (then a fallback of sign-in's), so it keeps naming them that way.
        if subjectClaim == nil, let preset, preset.utf8.elementsEqual("github".utf8) { subjectClaim = "id" }
        gitHosts = try reader.optionalArray("gitHosts", CredentialHost.init(json:path:))
        containerRegistries = try reader.optionalArray("containerRegistries", CredentialHost.init(json:path:))
        appleClientSecret = try reader.optionalReader("appleClientSecret").map { (reader) throws(JSONShapeError) in
            try AppleClientSecretSource(json: reader)
        }
        redirectPort = try reader.optionalInt("redirectPort").map { (port) throws(JSONShapeError) -> UInt16 in
            guard let port = UInt16(exactly: port), port > 0 else { throw reader.shapeError("redirectPort", expected: "a port from 1 to 65535") }
            return port
        }
        protectedResource = try reader.optionalReader("protectedResource").map { (reader) throws(JSONShapeError) in
            try ProtectedResourceBinding(json: reader)
        }
        clientCredentials = try reader.optionalReader("clientCredentials").map { (reader) throws(JSONShapeError) in
            try ClientCredentialsSettings(json: reader)
        }
    }

    /// The JSON object ``init(json:path:)`` reads.
    public var json: JSONValue {
        .object(omittingNil: [
            "id": .string(id.rawValue),
            "displayName": .string(displayName),
            "issuer": issuer.map { .string($0.absoluteString) },
            "clientID": .string(clientID),
            "clientAuthentication": .string(clientAuthentication.rawValue),
            "scopes": .strings(scopes),
            "audience": audience.map(JSONValue.string),
            "resources": .strings(resources),
            "extraHeaders": .stringMap(extraHeaders),
            "extraAuthorizationParameters": .stringMap(extraAuthorizationParameters),
            "endpoints": endpoints.json,
            "caBundlePath": caBundlePath.map(JSONValue.string),
            "preset": preset.map(JSONValue.string),
            "booleanStringClaims": booleanStringClaims.map(JSONValue.strings),
            "claimTimeUnits": claimTimeUnits.map { .object($0.mapValues { .string($0.rawValue) }) },
            "additionalTrustedAudiences": additionalTrustedAudiences.map(JSONValue.strings),
            "multiTenantEntra": multiTenantEntra.map(JSONValue.bool),
            "revocationStyle": revocationStyle.map { .string($0.rawValue) },
            "logoutStyle": logoutStyle.map { .string($0.rawValue) },
            "revocableTokens": revocableTokens.map(JSONValue.strings),
            "consentForOfflineAccess": consentForOfflineAccess.map(JSONValue.bool),
            "postsIDTokenHint": postsIDTokenHint.map(JSONValue.bool),
            "subjectClaim": subjectClaim.map(JSONValue.string),
            "par": par.map { .string($0.rawValue) },
            "dpop": dpop.map { .string($0.rawValue) },
            "appleClientSecret": appleClientSecret?.json,
            "protectedResource": protectedResource?.json,
            "redirectPort": redirectPort.map { .number(Double($0)) },
            "gitHosts": gitHosts.map { .array($0.map(\.json)) },
            "containerRegistries": containerRegistries.map { .array($0.map(\.json)) },
            "clientCredentials": clientCredentials?.json,
        ])
    }

    /// `providers.json`: a list of providers.
    /// - Throws: ``JSONShapeError`` (`[2].endpoints.token`: the record's index first).
    public static func list(json: JSONValue) throws(JSONShapeError) -> [ProviderConfig] {
        try JSONReader.array(json) { (element, path) throws(JSONShapeError) in try ProviderConfig(json: element, path: path) }
    }

    public static func json(_ list: [ProviderConfig]) -> JSONValue { .array(list.map(\.json)) }
}

extension EndpointOverrides {
    /// Every member optional: `authorization`, `token`, `deviceAuthorization`, `revocation`,
    /// `introspection`, `userinfo`, `endSession`, `jwks` (absolute URLs).
    public init(json reader: JSONReader) throws(JSONShapeError) {
        try self.init(authorization: reader.optionalURL("authorization"), token: reader.optionalURL("token"),
                  deviceAuthorization: reader.optionalURL("deviceAuthorization"), revocation: reader.optionalURL("revocation"),
                  introspection: reader.optionalURL("introspection"), userinfo: reader.optionalURL("userinfo"),
                  endSession: reader.optionalURL("endSession"), jwks: reader.optionalURL("jwks"))
    }

    public var json: JSONValue {
        func url(_ url: URL?) -> JSONValue? { url.map { .string($0.absoluteString) } }
        return .object(omittingNil: [
            "authorization": url(authorization), "token": url(token), "deviceAuthorization": url(deviceAuthorization),
            "revocation": url(revocation), "introspection": url(introspection), "userinfo": url(userinfo),
            "endSession": url(endSession), "jwks": url(jwks),
        ])
    }
}

extension CredentialHost {
    /// `{"host": "github.com", "username": "x-access-token"}` (`username` optional).
    public init(json: JSONValue, path: [JSONPathComponent]) throws(JSONShapeError) {
        let reader = try JSONReader(json, path: path)
        try self.init(host: reader.string("host"), username: reader.optionalString("username"))
    }

    public var json: JSONValue { .object(omittingNil: ["host": .string(host), "username": username.map(JSONValue.string)]) }
}

extension AppleClientSecretSource {
    /// `keyPath`, `teamID`, `keyID` required; `days` optional.
    public init(json reader: JSONReader) throws(JSONShapeError) {
        try self.init(keyPath: reader.string("keyPath"), teamID: reader.string("teamID"), keyID: reader.string("keyID"),
                  days: reader.optionalInt("days"))
    }

    public var json: JSONValue {
        .object(omittingNil: ["keyPath": .string(keyPath), "teamID": .string(teamID), "keyID": .string(keyID), "days": days.map(JSONValue.int)])
    }
}

extension JSONReader {
    /// A member whose string is one of `T`'s raw values; the error lists them
    /// ("one of none, client_secret_basic, client_secret_post": a preset names them).
    func optionalChoice<T: RawRepresentable & CaseIterable>(_ name: String, as type: T.Type = T.self) throws(JSONShapeError) -> T?
        where T.RawValue == String {
        guard let text = try optionalString(name) else { return nil }
        guard let value = T(rawValue: text) else { throw shapeError(name, expected: Self.oneOf(T.self)) }
        return value
    }

    func choice<T: RawRepresentable & CaseIterable>(_ name: String, as type: T.Type = T.self) throws(JSONShapeError) -> T where T.RawValue == String {
        guard let value = try optionalChoice(name, as: type) else { throw shapeError(name, expected: "a string") }
        return value
    }

    static func oneOf<T: RawRepresentable & CaseIterable>(_: T.Type) -> String where T.RawValue == String {
        "one of " + T.allCases.map { $0.rawValue }.joined(separator: ", ")
    }

    /// A member holding a URL (RFC 3986) as a string, read as `URL(string:)` did for `Decodable`.
    func optionalURL(_ name: String) throws(JSONShapeError) -> URL? {
        guard let text = try optionalString(name) else { return nil }
        guard let url = URL(string: text) else { throw shapeError(name, expected: "a URL") }
        return url
    }
}
