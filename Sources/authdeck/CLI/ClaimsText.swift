import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials

/// Claims as `name: value` lines in the one claim order (``ClaimOrder``); timestamps get their
/// RFC 3339 form and distance (``TimeText``), numbers read in the provider's units
/// (``ClaimTime/date(claim:_:provider:)``; `provider` nil: no provider, as in `decode`).
enum ClaimsText {
    static func lines(_ claims: [String: JSONValue], provider: ProviderConfig?, now: Date) -> [String] {
        ClaimOrder.sorted(Array(claims.keys)).map { key in "\(key): \(render(key, claims[key]!, provider: provider, now: now))" }
    }

    /// The time of a timestamp claim (seconds, milliseconds as the provider declares them, or
    /// Auth0's ISO 8601 string), nil for other claims.
    static func date(_ key: String, _ value: JSONValue, provider: ProviderConfig?) -> Date? {
        switch value {
        case .string(let text): return TimeText.isTimestampClaim(key) ? ISOClaimTime.date(text) : nil
        case .number(let number): return ClaimTime.date(claim: key, number, provider: provider)?.date
        default: return nil
        }
    }

    static func render(_ key: String, _ value: JSONValue, provider: ProviderConfig?, now: Date) -> String {
        if let date = date(key, value, provider: provider) {
            return "\(format(value)) (\(Times.rfc3339(date)), \(TimeText.relative(date, now: now)))"
        }
        return format(value)
    }

    static func format(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .number(let number): return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): return String(flag)
        case .null: return "null"
        case .array, .object:
            return String(decoding: value.serialized(), as: UTF8.self)
        }
    }
}
