import FoundationEssentials
import Secrets
import StrictJSON

// The JSON mapping of the secret sets, one place per type: `init(json:path:)` reads what
// `var json` writes, and everything the earlier Codable code wrote (synthesized member names,
// nil optionals omitted, dates as seconds since 1970 as a JSON number, dictionaries as objects).
// A secret's text is read and written here only; a shape error names the member's path, never
// its value.

extension Redacted {
    /// A secret stored as its JSON string.
    /// - Throws: ``JSONShapeError`` (`expected: "a string"`) naming `path` when `json` is not a string.
    @inlinable
    public init(json: JSONValue, path: [JSONPathComponent]) throws(JSONShapeError) {
        guard case .string(let text) = json else { throw JSONShapeError(path: path, expected: "a string") }
        self.init(text)
    }

    /// The secret as a JSON string (the one place it leaves the newtype for a serializer).
    @inlinable
    public var json: JSONValue { .string(exposedValue) }
}

extension JSONReader {
    /// The member as a secret, nil when absent or `null`.
    @inlinable
    public func optionalSecret<Kind>(_ name: String, as type: Redacted<Kind>.Type = Redacted<Kind>.self) throws(JSONShapeError) -> Redacted<Kind>? {
        guard let text = try optionalString(name) else { return nil }
        return Redacted<Kind>(text)
    }
}

extension StoredAccessTokenEntry {
    /// `{"token": "…", "expiresAt": 1800000000, "tokenType": "Bearer", "scope": ["openid"]}`;
    /// every member but `token` optional; `expiresAt` seconds since 1970.
    /// - Throws: ``JSONShapeError`` naming the member at `path`.
    public init(json: JSONValue, path: [JSONPathComponent]) throws(JSONShapeError) {
        let reader = try JSONReader(json, path: path)
        guard let token = try reader.optionalSecret("token", as: StoredAccessToken.self) else {
            throw reader.shapeError("token", expected: "a string")
        }
        self.init(token: token, expiresAt: try reader.optionalDate("expiresAt", .secondsSince1970),
                  tokenType: try reader.optionalString("tokenType"), scope: try reader.optionalStrings("scope"))
    }

    public var json: JSONValue {
        .object(omittingNil: [
            "token": token.json,
            "expiresAt": expiresAt.map { .date($0, .secondsSince1970) },
            "tokenType": tokenType.map(JSONValue.string),
            "scope": scope.map(JSONValue.strings),
        ])
    }
}

extension AccountSecrets {
    /// The `secrets` object: `defaultAccessToken`, `resourceAccessTokens` (an object keyed by
    /// resource, required, may be `{}`), `refreshToken`, `idToken`, `clientSecret`, `dpopKey`,
    /// `registrationAccessToken` (strings; absent when nil; `dpopKey` is missing in files written
    /// before DPoP, `registrationAccessToken` in those before client registration).
    /// - Throws: ``JSONShapeError`` naming the member at `path`.
    public init(json: JSONValue, path: [JSONPathComponent]) throws(JSONShapeError) {
        let reader = try JSONReader(json, path: path)
        let resources = try reader.optionalMap("resourceAccessTokens") { (value, path) throws(JSONShapeError) in
            try StoredAccessTokenEntry(json: value, path: path)
        }
        guard let resources else { throw reader.shapeError("resourceAccessTokens", expected: "an object") }
        self.init(
            defaultAccessToken: try reader.value("defaultAccessToken").map { (value) throws(JSONShapeError) in
                try StoredAccessTokenEntry(json: value, path: path + [.member("defaultAccessToken")])
            },
            resourceAccessTokens: resources,
            refreshToken: try reader.optionalSecret("refreshToken"),
            idToken: try reader.optionalSecret("idToken"),
            clientSecret: try reader.optionalSecret("clientSecret"),
            dpopKey: try reader.optionalSecret("dpopKey"))
        registrationAccessToken = try reader.optionalSecret("registrationAccessToken")
        clientSigningKey = try reader.optionalSecret("clientSigningKey")
    }

    public var json: JSONValue {
        .object(omittingNil: [
            "defaultAccessToken": defaultAccessToken?.json,
            "resourceAccessTokens": .object(resourceAccessTokens.mapValues(\.json)),
            "refreshToken": refreshToken?.json,
            "idToken": idToken?.json,
            "clientSecret": clientSecret?.json,
            "dpopKey": dpopKey?.json,
            "registrationAccessToken": registrationAccessToken?.json,
            "clientSigningKey": clientSigningKey?.json,
        ])
    }
}
