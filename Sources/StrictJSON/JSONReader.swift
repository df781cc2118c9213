import FoundationEssentials
import TextSupport

/// One step of a path into a JSON document: an array index or an object member.
public enum JSONPathComponent: Equatable, Sendable, CustomStringConvertible {
    case index(Int)
    case member(String)

    public var description: String {
        switch self {
        case .index(let index): "[\(index)]"
        case .member(let name): name
        }
    }
}

/// A value that is not what a reader expected: where (`[2].accessTokens[0].expiresAt`) and what
/// was wanted ("a string", "an ISO 8601 date"). Never carries the value itself (it may be a secret).
public struct JSONShapeError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: [JSONPathComponent]
    public var expected: String

    public init(path: [JSONPathComponent], expected: String) {
        self.path = path
        self.expected = expected
    }

    /// `accessTokens[0].expiresAt` (members joined with ".", indexes in brackets); "" for the top.
    public static func text(_ path: some Collection<JSONPathComponent>) -> String {
        var text = ""
        for component in path {
            if case .member = component, !text.isEmpty { text += "." }
            text += component.description
        }
        return text
    }

    public var description: String { path.isEmpty ? "expected \(expected)" : "expected \(expected) at '\(Self.text(path))'" }
}

/// How a date is written in a document: an RFC 3339 / ISO 8601 UTC text with whole seconds
/// (`2026-12-01T10:20:49Z`, the metadata files) or a JSON number of seconds since
/// 1970-01-01T00:00:00Z (the secret sets).
public enum JSONDateEncoding: Sendable {
    case iso8601
    case secondsSince1970

    static let iso8601Style = Date.ISO8601FormatStyle()

    /// `YYYY-MM-DDTHH:MM:SSZ` exactly (what the metadata files hold; years from 1900), as a date, by arithmetic on
    /// the Gregorian calendar (RFC 3339 §5.6; days from 1970-01-01 as in Hinnant's
    /// `days_from_civil`); nil for any other text, an earlier year or an impossible field (month 13,
    /// Feb 30, second 60), which then goes to ``iso8601Style``. Building that style (a Calendar) was 7 %
    /// of `authdeck token` (PERFORMANCE.md).
    static func wholeSecondsUTC(_ text: String) -> Date? {
        var utf8 = text.utf8.makeIterator()
        var digits: [Int] = []
        digits.reserveCapacity(14)
        for expected in "dddd-dd-ddTdd:dd:ddZ".utf8 {
            guard let byte = utf8.next() else { return nil }
            if expected == UInt8(ascii: "d") {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                digits.append(Int(byte - UInt8(ascii: "0")))
            } else if byte != expected {
                return nil
            }
        }
        guard utf8.next() == nil else { return nil }
        func number(_ from: Int, _ count: Int) -> Int { digits[from..<(from + count)].reduce(0) { $0 * 10 + $1 } }
        let year = number(0, 4), month = number(4, 2), day = number(6, 2)
        let hour = number(8, 2), minute = number(10, 2), second = number(12, 2)
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        // From 1900 only: before the Gregorian reform Foundation's calendar is Julian.
        guard year >= 1900, (1...12).contains(month), (1...monthDays[month - 1]).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SSZ` (seconds rounded down, as ``iso8601Style`` writes them) by
    /// arithmetic (``UTCTimeText/wholeSeconds(_:)``); nil outside the years 1900–9999, which then
    /// go to ``iso8601Style``. Building that style (a Gregorian calendar) was 8 % of
    /// `token --exec-credential` (PERFORMANCE.md).
    public static func wholeSecondsUTCText(_ date: Date) -> String? {
        UTCTimeText.wholeSeconds(date.timeIntervalSince1970)
    }
}

/// Typed, path-aware reading of one JSON object (what `Decodable` would do, without the Swift
/// runtime's conformance lookups, which were most of `authdeck token`'s time: PERFORMANCE.md).
/// An absent member and JSON `null` are both "absent"; a present member of the wrong type throws
/// ``JSONShapeError`` naming its path. The generic helpers are `@inlinable`, so they specialize
/// in the caller: unspecialized, they would need the element type's metadata at run time, and for
/// a generic type with a protocol requirement that is a conformance lookup again.
public struct JSONReader: Sendable {
    public let members: [String: JSONValue]
    public let path: [JSONPathComponent]

    /// - Throws: ``JSONShapeError`` when `value` is not an object.
    public init(_ value: JSONValue, path: [JSONPathComponent] = []) throws(JSONShapeError) {
        guard case .object(let members) = value else { throw JSONShapeError(path: path, expected: "an object") }
        self.members = members
        self.path = path
    }

    /// The member, nil when absent or `null`.
    public func value(_ name: String) -> JSONValue? {
        guard let value = members[name], value != .null else { return nil }
        return value
    }

    /// The error for member `name` not being `expected`.
    public func shapeError(_ name: String, expected: String) -> JSONShapeError {
        JSONShapeError(path: path + [.member(name)], expected: expected)
    }

    private func required<T>(_ name: String, _ expected: String, _ read: (String) throws(JSONShapeError) -> T?) throws(JSONShapeError) -> T {
        guard let value = try read(name) else { throw shapeError(name, expected: expected) }
        return value
    }

    public func optionalString(_ name: String) throws(JSONShapeError) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let string) = value else { throw shapeError(name, expected: "a string") }
        return string
    }

    public func string(_ name: String) throws(JSONShapeError) -> String { try required(name, "a string", optionalString) }

    public func optionalBool(_ name: String) throws(JSONShapeError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let bool) = value else { throw shapeError(name, expected: "true or false") }
        return bool
    }

    public func bool(_ name: String) throws(JSONShapeError) -> Bool { try required(name, "true or false", optionalBool) }

    public func optionalDouble(_ name: String) throws(JSONShapeError) -> Double? {
        guard let value = value(name) else { return nil }
        guard case .number(let number) = value else { throw shapeError(name, expected: "a number") }
        return number
    }

    public func double(_ name: String) throws(JSONShapeError) -> Double { try required(name, "a number", optionalDouble) }

    /// An integral number within ±2^53.
    public func optionalInt(_ name: String) throws(JSONShapeError) -> Int? {
        guard let number = try optionalDouble(name) else { return nil }
        guard number.rounded() == number, abs(number) <= 9_007_199_254_740_992 else { throw shapeError(name, expected: "a whole number") }
        return Int(number)
    }

    public func int(_ name: String) throws(JSONShapeError) -> Int { try required(name, "a whole number", optionalInt) }

    public func optionalStrings(_ name: String) throws(JSONShapeError) -> [String]? {
        try optionalArray(name) { (element, path) throws(JSONShapeError) -> String in
            guard case .string(let string) = element else { throw JSONShapeError(path: path, expected: "a string") }
            return string
        }
    }

    public func strings(_ name: String) throws(JSONShapeError) -> [String] { try required(name, "a list", optionalStrings) }

    /// An object whose members are all strings.
    public func optionalStringMap(_ name: String) throws(JSONShapeError) -> [String: String]? {
        try optionalMap(name) { (member, path) throws(JSONShapeError) -> String in
            guard case .string(let string) = member else { throw JSONShapeError(path: path, expected: "a string") }
            return string
        }
    }

    public func stringMap(_ name: String) throws(JSONShapeError) -> [String: String] { try required(name, "an object", optionalStringMap) }

    public func optionalDate(_ name: String, _ encoding: JSONDateEncoding) throws(JSONShapeError) -> Date? {
        guard let value = value(name) else { return nil }
        switch (encoding, value) {
        case (.iso8601, .string(let text)):
            if let date = JSONDateEncoding.wholeSecondsUTC(text) { return date }
            guard let date = try? JSONDateEncoding.iso8601Style.parse(text) else { break }
            return date
        case (.secondsSince1970, .number(let seconds)):
            return Date(timeIntervalSince1970: seconds)
        default:
            break
        }
        throw shapeError(name, expected: encoding == .iso8601 ? "an ISO 8601 date" : "a number of seconds")
    }

    public func date(_ name: String, _ encoding: JSONDateEncoding) throws(JSONShapeError) -> Date {
        guard let date = try optionalDate(name, encoding) else { throw shapeError(name, expected: "a date") }
        return date
    }

    /// A member whose string is one of `T`'s raw values. (`@inlinable`: unspecialized, reading
    /// `T.RawValue` would be a run-time associated-type lookup.)
    @inlinable
    public func optionalRawValue<T: RawRepresentable>(_ name: String,
                                                      as type: T.Type = T.self) throws(JSONShapeError) -> T? where T.RawValue == String {
        guard let text = try optionalString(name) else { return nil }
        guard let value = T(rawValue: text) else { throw shapeError(name, expected: "one of the known values") }
        return value
    }

    @inlinable
    public func rawValue<T: RawRepresentable>(_ name: String, as type: T.Type = T.self) throws(JSONShapeError) -> T where T.RawValue == String {
        guard let value = try optionalRawValue(name, as: type) else { throw shapeError(name, expected: "a string") }
        return value
    }

    /// The member as an object reader.
    public func optionalReader(_ name: String) throws(JSONShapeError) -> JSONReader? {
        guard let value = value(name) else { return nil }
        return try JSONReader(value, path: path + [.member(name)])
    }

    public func reader(_ name: String) throws(JSONShapeError) -> JSONReader { try required(name, "an object", optionalReader) }

    /// Each element of the array member `name` through `element` (given the element and its path).
    @inlinable
    public func optionalArray<T>(_ name: String,
                                 _ element: (JSONValue, [JSONPathComponent]) throws(JSONShapeError) -> T) throws(JSONShapeError) -> [T]? {
        guard let value = value(name) else { return nil }
        return try Self.array(value, path: path + [.member(name)], element)
    }

    @inlinable
    public func array<T>(_ name: String, _ element: (JSONValue, [JSONPathComponent]) throws(JSONShapeError) -> T) throws(JSONShapeError) -> [T] {
        guard let value = try optionalArray(name, element) else { throw shapeError(name, expected: "a list") }
        return value
    }

    /// Each member of the object member `name` through `member` (given the value and its path).
    @inlinable
    public func optionalMap<T>(_ name: String,
                               _ member: (JSONValue, [JSONPathComponent]) throws(JSONShapeError) -> T) throws(JSONShapeError) -> [String: T]? {
        guard let value = value(name) else { return nil }
        guard case .object(let members) = value else { throw shapeError(name, expected: "an object") }
        var result: [String: T] = [:]
        result.reserveCapacity(members.count)
        for (key, item) in members { result[key] = try member(item, path + [.member(name), .member(key)]) }
        return result
    }

    /// Each element of a top-level (or any) array value through `element`.
    @inlinable
    public static func array<T>(_ value: JSONValue, path: [JSONPathComponent] = [],
                                _ element: (JSONValue, [JSONPathComponent]) throws(JSONShapeError) -> T) throws(JSONShapeError) -> [T] {
        guard case .array(let elements) = value else { throw JSONShapeError(path: path, expected: "a list") }
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for (index, item) in elements.enumerated() { result.append(try element(item, path + [.index(index)])) }
        return result
    }
}

extension JSONValue {
    /// An object of the given members; nil members are left out (as `encodeIfPresent` did).
    public static func object(omittingNil members: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(members.count)
        for (name, value) in members { if let value { object[name] = value } }
        return .object(object)
    }

    public static func int(_ value: Int) -> JSONValue { .number(Double(value)) }

    public static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    public static func stringMap(_ values: [String: String]) -> JSONValue { .object(values.mapValues(JSONValue.string)) }

    /// A date as ``JSONDateEncoding`` writes it (ISO 8601: whole seconds, UTC, `Z`).
    public static func date(_ date: Date, _ encoding: JSONDateEncoding) -> JSONValue {
        switch encoding {
        case .iso8601: .string(JSONDateEncoding.wholeSecondsUTCText(date) ?? JSONDateEncoding.iso8601Style.format(date))
        case .secondsSince1970: .number(date.timeIntervalSince1970)
        }
    }
}
