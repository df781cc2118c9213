import AppCore
import AppCoreLive
import AuthEngine
import Foundation

/// Claims as `name: value` lines in the one claim order (``ClaimOrder``); timestamps get their
/// RFC 3339 form and distance (``TimeText``).
enum ClaimsText {
    static func lines(_ claims: [String: JSONValue], now: Date) -> [String] {
        ClaimOrder.sorted(Array(claims.keys)).map { key in "\(key): \(render(key, claims[key]!, now: now))" }
    }

    /// The time of a timestamp claim (seconds, Logto's milliseconds, or Auth0's ISO 8601 string), nil for other claims.
    static func date(_ key: String, _ value: JSONValue) -> Date? {
        guard TimeText.isTimestampClaim(key) else { return nil }
        if case .string(let text) = value { return ISOClaimTime.date(text) }
        guard case .number(let number) = value else { return nil }
        return TimeText.claimDate(number)?.date
    }

    static func render(_ key: String, _ value: JSONValue, now: Date) -> String {
        if let date = date(key, value) {
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
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? ""
        }
    }
}
