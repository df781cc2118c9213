import AuthEngine
import CredentialStore
import FoundationEssentials

// `accounts.json` (a list of these): one mapping each way, with the member names of the Codable
// conformance it replaces (the Swift property names; nil members left out; enums by raw value;
// `SignatureStatus` as `{"verified":{"algorithm":…,"keyID":…}}` / `{"notVerified":{"reason":…}}`;
// dates as ISO 8601 UTC text with whole seconds), so files written before read unchanged
// (Tests/AppCoreTests/RecordsJSONCompatibilityTests).

extension AccountRecord {
    /// Reads a record from its JSON object; members added after the first release
    /// (`emailVerified`, `tokenWarnings`, `refreshSentAt`, `dpopThumbprint`, …) are optional.
    /// - Throws: ``JSONShapeError`` naming the member's path below `path`.
    public init(json: JSONValue, path: [JSONPathComponent] = []) throws(JSONShapeError) {
        let reader = try JSONReader(json, path: path)
        try self.init(
            id: AccountID(reader.string("id")), providerID: ProviderID(reader.string("providerID")),
            issuer: reader.optionalString("issuer"), subject: reader.string("subject"), displayName: reader.string("displayName"),
            username: reader.optionalString("username"), email: reader.optionalString("email"), alias: reader.optionalString("alias"),
            requestedScopes: reader.strings("requestedScopes"), grantedScopes: reader.strings("grantedScopes"),
            previousGrantedScopes: reader.optionalStrings("previousGrantedScopes"),
            accessTokens: reader.array("accessTokens") { (element, path) throws(JSONShapeError) in try AccessTokenInfo(json: element, path: path) },
            hasRefreshToken: reader.bool("hasRefreshToken"), refreshTokenExpiresAt: reader.optionalDate("refreshTokenExpiresAt", .iso8601),
            idToken: reader.optionalReader("idToken").map { (reader) throws(JSONShapeError) in try IDTokenInfo(json: reader) },
            signedInAt: reader.date("signedInAt", .iso8601), lastRefreshAt: reader.optionalDate("lastRefreshAt", .iso8601),
            storage: reader.rawValue("storage"))
        emailVerified = try reader.optionalBool("emailVerified")
        isPrivateEmail = try reader.optionalBool("isPrivateEmail")
        tokenWarnings = try reader.optionalStrings("tokenWarnings")
        idTokenProblem = try reader.optionalString("idTokenProblem")
        needsSignInSince = try reader.optionalDate("needsSignInSince", .iso8601)
        refreshSentAt = try reader.optionalDate("refreshSentAt", .iso8601)
        dpopThumbprint = try reader.optionalString("dpopThumbprint")
        isMachine = try reader.optionalBool("isMachine")
        lastRefreshChanges = try reader.optionalReader("lastRefreshChanges").map { (reader) throws(JSONShapeError) in
            try RefreshChanges(json: reader)
        }
        recentRefreshes = try reader.optionalStrings("recentRefreshes").map { (texts) throws(JSONShapeError) in
            try texts.map { (text) throws(JSONShapeError) in
                guard let date = try? Self.iso8601.parse(text) else { throw reader.shapeError("recentRefreshes", expected: "ISO 8601 dates") }
                return date
            }
        }
    }

    private static let iso8601 = Date.ISO8601FormatStyle()

    /// The JSON object ``init(json:path:)`` reads.
    public var json: JSONValue {
        func date(_ date: Date?) -> JSONValue? { date.map { .date($0, .iso8601) } }
        return .object(omittingNil: [
            "id": .string(id.rawValue),
            "providerID": .string(providerID.rawValue),
            "issuer": issuer.map(JSONValue.string),
            "subject": .string(subject),
            "displayName": .string(displayName),
            "username": username.map(JSONValue.string),
            "email": email.map(JSONValue.string),
            "emailVerified": emailVerified.map(JSONValue.bool),
            "isPrivateEmail": isPrivateEmail.map(JSONValue.bool),
            "alias": alias.map(JSONValue.string),
            "requestedScopes": .strings(requestedScopes),
            "grantedScopes": .strings(grantedScopes),
            "previousGrantedScopes": previousGrantedScopes.map(JSONValue.strings),
            "accessTokens": .array(accessTokens.map(\.json)),
            "hasRefreshToken": .bool(hasRefreshToken),
            "refreshTokenExpiresAt": date(refreshTokenExpiresAt),
            "idToken": idToken?.json,
            "signedInAt": .date(signedInAt, .iso8601),
            "lastRefreshAt": date(lastRefreshAt),
            "storage": .string(storage.rawValue),
            "tokenWarnings": tokenWarnings.map(JSONValue.strings),
            "idTokenProblem": idTokenProblem.map(JSONValue.string),
            "needsSignInSince": date(needsSignInSince),
            "refreshSentAt": date(refreshSentAt),
            "dpopThumbprint": dpopThumbprint.map(JSONValue.string),
            "isMachine": isMachine.map(JSONValue.bool),
            "lastRefreshChanges": lastRefreshChanges?.json(),
            "recentRefreshes": recentRefreshes.map { .array($0.map { .date($0, .iso8601) }) },
        ])
    }

    /// `accounts.json`: a list of records.
    /// - Throws: ``JSONShapeError`` (`[1].accessTokens[0].issuedAt`: the record's index first).
    public static func list(json: JSONValue) throws(JSONShapeError) -> [AccountRecord] {
        try JSONReader.array(json) { (element, path) throws(JSONShapeError) in try AccountRecord(json: element, path: path) }
    }

    public static func json(_ list: [AccountRecord]) -> JSONValue { .array(list.map(\.json)) }
}

extension AccessTokenInfo {
    /// `issuedAt`, `tokenType` and `scopes` required; `resource`, `expiresAt`,
    /// `informationalClaims` (any JSON, `null` as absent) and `format` optional.
    public init(json: JSONValue, path: [JSONPathComponent]) throws(JSONShapeError) {
        let reader = try JSONReader(json, path: path)
        try self.init(resource: reader.optionalString("resource"), expiresAt: reader.optionalDate("expiresAt", .iso8601),
                      issuedAt: reader.date("issuedAt", .iso8601), tokenType: reader.string("tokenType"),
                      scopes: reader.strings("scopes"), informationalClaims: reader.value("informationalClaims"))
        format = try reader.optionalRawValue("format")
    }

    public var json: JSONValue {
        .object(omittingNil: [
            "resource": resource.map(JSONValue.string),
            "expiresAt": expiresAt.map { .date($0, .iso8601) },
            "issuedAt": .date(issuedAt, .iso8601),
            "tokenType": .string(tokenType),
            "scopes": .strings(scopes),
            "informationalClaims": informationalClaims,
            "format": format.map { .string($0.rawValue) },
        ])
    }
}

extension IDTokenInfo {
    /// `header`, `claims` (any JSON; present) and `signature` required; `expiresAt`, `issuedAt` optional.
    public init(json reader: JSONReader) throws(JSONShapeError) {
        try self.init(header: reader.present("header"), claims: reader.present("claims"),
                      signature: SignatureStatus(json: reader.reader("signature")),
                      expiresAt: reader.optionalDate("expiresAt", .iso8601), issuedAt: reader.optionalDate("issuedAt", .iso8601))
    }

    public var json: JSONValue {
        .object(omittingNil: [
            "header": header,
            "claims": claims,
            "signature": signature.json,
            "expiresAt": expiresAt.map { .date($0, .iso8601) },
            "issuedAt": issuedAt.map { .date($0, .iso8601) },
        ])
    }
}

extension SignatureStatus {
    /// An object with exactly one member naming the case, holding the associated values by label:
    /// `{"verified":{"algorithm":"RS256","keyID":"k"}}` (`keyID` optional),
    /// `{"notVerified":{"reason":"…"}}`.
    public init(json reader: JSONReader) throws(JSONShapeError) {
        guard reader.members.count == 1, let name = reader.members.keys.first else {
            throw JSONShapeError(path: reader.path, expected: "one member, verified or notVerified")
        }
        let values = try reader.reader(name)
        switch name {
        case "verified": self = try .verified(algorithm: values.string("algorithm"), keyID: values.optionalString("keyID"))
        case "notVerified": self = try .notVerified(reason: values.string("reason"))
        default: throw JSONShapeError(path: reader.path, expected: "one member, verified or notVerified")
        }
    }

    public var json: JSONValue {
        switch self {
        case .verified(let algorithm, let keyID):
            .object(["verified": .object(omittingNil: ["algorithm": .string(algorithm), "keyID": keyID.map(JSONValue.string)])])
        case .notVerified(let reason):
            .object(["notVerified": .object(["reason": .string(reason)])])
        }
    }
}

extension JSONReader {
    /// A member that must be present, any JSON value (`null` included, as `Decodable` read a
    /// non-optional ``JSONValue``).
    func present(_ name: String) throws(JSONShapeError) -> JSONValue {
        guard let value = members[name] else { throw shapeError(name, expected: "a value") }
        return value
    }
}
