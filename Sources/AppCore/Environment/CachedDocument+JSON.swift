import AuthEngine
import FoundationEssentials

// A cache file (`$XDG_CACHE_HOME/authdeck/<provider>/<kind>.json`): one mapping each way, with the
// member names of the Codable conformance it replaces (`fetchedAt` as ISO 8601 UTC text, whole
// seconds), so files written before read unchanged (Tests/AppCoreTests/RecordsJSONCompatibilityTests).

extension CachedDocument {
    /// `kind` (`discovery` / `jwks`), `url`, `body` (the document as text), `fetchedAt` and
    /// `maxAgeSeconds` (a whole number), all required; `forKeyLookup` (a boolean) only when true.
    /// - Throws: ``JSONShapeError`` naming the member.
    public init(json: JSONValue) throws(JSONShapeError) {
        let reader = try JSONReader(json)
        try self.init(kind: reader.rawValue("kind"), url: reader.string("url"), body: reader.string("body"),
                      fetchedAt: reader.date("fetchedAt", .iso8601), maxAgeSeconds: reader.int("maxAgeSeconds"),
                      forKeyLookup: reader.optionalBool("forKeyLookup") ?? false)
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "kind": .string(kind.rawValue), "url": .string(url), "body": .string(body),
            "fetchedAt": .date(fetchedAt, .iso8601), "maxAgeSeconds": .int(maxAgeSeconds),
        ]
        if forKeyLookup { members["forKeyLookup"] = .bool(true) }
        return .object(members)
    }
}
