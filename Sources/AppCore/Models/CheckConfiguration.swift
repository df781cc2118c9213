import FoundationEssentials
import StrictJSON

/// `$XDG_CONFIG_HOME/authdeck/check.json` (optional): `{"backstopSeconds": 5400,
/// "endingSoonSeconds": 259200, "hooks": ["cmd …"], "notify": false,
/// "providers": {"NAME": {"backstopSeconds": N}}}`. Its `hooks` run for the events of every
/// command and of the accounts screen (``AccountEvents``), `check`'s own `--hook`s only for its
/// run; `notify: true` shows desktop notifications for the state changes any of them find,
/// `check --notify` for its run only.
public struct CheckConfiguration: Sendable, Equatable {
    public var settings = CheckAccounts.Settings()
    public var hooks: [String] = []
    public var notify = false

    public init() {}

    /// The largest number of seconds a member takes (ten years, as `token --min-valid`).
    public static let maximumSeconds: Double = 315_360_000

    /// - Throws: ``JSONShapeError`` naming the member: an unknown one, seconds out of 0 …
    ///   ``maximumSeconds``, a wrong type.
    public init(json: JSONValue) throws(JSONShapeError) {
        let reader = try JSONReader(json)
        func seconds(_ reader: JSONReader, _ name: String) throws(JSONShapeError) -> Double? {
            guard let value = try reader.optionalDouble(name) else { return nil }
            guard value >= 0, value <= Self.maximumSeconds else {
                throw reader.shapeError(name, expected: "seconds from 0 to \(Int(Self.maximumSeconds))")
            }
            return value
        }
        func known(_ reader: JSONReader, _ names: Set<String>) throws(JSONShapeError) {
            if let unknown = reader.members.keys.sorted().first(where: { !names.contains($0) }) {
                throw reader.shapeError(unknown, expected: "one of \(names.sorted().joined(separator: ", ")) (not '\(unknown)')")
            }
        }
        try known(reader, ["backstopSeconds", "endingSoonSeconds", "hooks", "notify", "providers"])
        if let value = try seconds(reader, "backstopSeconds") { settings.backstop = value }
        if let value = try seconds(reader, "endingSoonSeconds") { settings.endingSoonWithin = value }
        hooks = try reader.optionalStrings("hooks") ?? []
        notify = try reader.optionalBool("notify") ?? false
        let providers = try reader.optionalMap("providers") { (value, path) throws(JSONShapeError) -> Double? in
            let provider = try JSONReader(value, path: path)
            try known(provider, ["backstopSeconds"])
            return try seconds(provider, "backstopSeconds")
        } ?? [:]
        for (name, seconds) in providers { if let seconds { settings.providerBackstops[ProviderID(name)] = seconds } }
    }
}
