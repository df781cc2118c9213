import FoundationEssentials
import StrictJSON

// `store.json`: one mapping each way, with the member names of the Codable conformance it
// replaces (`{"kind":"vault","reason":"secretServiceUnreachable"}`, both by raw value).

extension StoreSelection {
    /// `kind` (a ``SecretStoreKind`` raw value) and `reason` (a ``Reason`` raw value), both required.
    /// - Throws: ``JSONShapeError`` naming the member.
    public init(json: JSONValue) throws(JSONShapeError) {
        let reader = try JSONReader(json)
        try self.init(kind: reader.rawValue("kind"), reason: reader.rawValue("reason"))
    }

    public var json: JSONValue { .object(["kind": .string(kind.rawValue), "reason": .string(reason.rawValue)]) }
}
