import AuthEngine
import FoundationEssentials

// `lastRefreshChanges` in `accounts.json` (and, with RFC 3339 times, in `status --json`):
// {"refreshedAt": "…", "resource": "…", "scopesAdded": […], "scopesRemoved": […],
//  "scopesDroppedByProvider": […], "idTokenClaims": [{"name", "kind", "before", "after"}],
//  "accessTokenClaims": […], "expiries": [{"token": "access token", "before", "after"}],
//  "refreshTokenRotated": true, "newIDToken": false}; absent members are nil or empty.

extension RefreshChanges {
    /// - Throws: ``JSONShapeError`` naming the member's path.
    public init(json reader: JSONReader) throws(JSONShapeError) {
        try self.init(refreshedAt: reader.date("refreshedAt", .iso8601), resource: reader.optionalString("resource"))
        scopesAdded = try reader.optionalStrings("scopesAdded") ?? []
        scopesRemoved = try reader.optionalStrings("scopesRemoved") ?? []
        scopesDroppedByProvider = try reader.optionalStrings("scopesDroppedByProvider") ?? []
        idTokenClaims = try reader.optionalArray("idTokenClaims", ClaimChange.init(json:path:)) ?? []
        accessTokenClaims = try reader.optionalArray("accessTokenClaims", ClaimChange.init(json:path:)) ?? []
        expiries = try reader.optionalArray("expiries", ExpiryChange.init(json:path:)) ?? []
        refreshTokenRotated = try reader.optionalBool("refreshTokenRotated")
        newIDToken = try reader.optionalBool("newIDToken") ?? false
    }

    /// The object ``init(json:)`` reads; `date` writes the times (ISO 8601 in the file, RFC 3339 text in `status --json`).
    public func json(date: (Date) -> JSONValue = { .date($0, .iso8601) }) -> JSONValue {
        .object(omittingNil: [
            "refreshedAt": date(refreshedAt),
            "resource": resource.map(JSONValue.string),
            "scopesAdded": .strings(scopesAdded),
            "scopesRemoved": .strings(scopesRemoved),
            "scopesDroppedByProvider": .strings(scopesDroppedByProvider),
            "idTokenClaims": .array(idTokenClaims.map(\.json)),
            "accessTokenClaims": .array(accessTokenClaims.map(\.json)),
            "expiries": .array(expiries.map { $0.json(date: date) }),
            "refreshTokenRotated": refreshTokenRotated.map(JSONValue.bool),
            "newIDToken": .bool(newIDToken),
        ])
    }
}

extension RefreshChanges.ClaimChange {
    init(json: JSONValue, path: [JSONPathComponent]) throws(JSONShapeError) {
        let reader = try JSONReader(json, path: path)
        try self.init(name: reader.string("name"), kind: reader.rawValue("kind"), before: reader.optionalString("before"),
                      after: reader.optionalString("after"))
    }

    var json: JSONValue {
        .object(omittingNil: ["name": .string(name), "kind": .string(kind.rawValue), "before": before.map(JSONValue.string),
                              "after": after.map(JSONValue.string)])
    }
}

extension RefreshChanges.ExpiryChange {
    init(json: JSONValue, path: [JSONPathComponent]) throws(JSONShapeError) {
        let reader = try JSONReader(json, path: path)
        try self.init(token: reader.rawValue("token"), before: reader.optionalDate("before", .iso8601), after: reader.optionalDate("after", .iso8601))
    }

    func json(date: (Date) -> JSONValue) -> JSONValue {
        .object(omittingNil: ["token": .string(token.rawValue), "before": before.map(date), "after": after.map(date)])
    }
}
