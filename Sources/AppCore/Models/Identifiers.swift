/// A configured provider's name, as the user typed it (`local`, `work`, `github`).
public struct ProviderID: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    /// Code unit for code unit (Swift's `String ==` would merge canonically equivalent names).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue.utf8.elementsEqual(rhs.rawValue.utf8) }
    public func hash(into hasher: inout Hasher) { for byte in rawValue.utf8 { hasher.combine(byte) } }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

extension ProviderID {
    /// Why `name` cannot name a new provider (`provider add NAME`), or nil: empty; a `/` (account
    /// ids and handles are written `provider/…`); white space; or a control, format or other
    /// invisible character (U+200B would make `git\u{200B}hub` look like `github`, U+202E would
    /// reorder the line it is shown on). Names are compared byte for byte; one that looks the
    /// same as another provider's is refused where the providers are known (``ProviderAdmin``).
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "a provider needs a name" }
        if name.contains("/") { return "a provider name cannot contain '/' (account ids and handles are written provider/account)" }
        if let bad = name.unicodeScalars.first(where: { $0.properties.isWhitespace || IdentifierText.isInvisible($0) }) {
            return "a provider name cannot contain spaces or invisible characters (\(bad.codePointText))"
        }
        return nil
    }
}

/// Characters refused in names a person types and reads back (provider names, account aliases).
public enum IdentifierText {
    /// Control, format (zero-width, bidirectional), separator other than space, private-use,
    /// surrogate and unassigned code points: nothing a terminal shows as a glyph of its own.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned: true
        default: false
        }
    }
}

/// An account's stable id: `<provider>/<subject>` (one account per provider and `sub`).
public struct AccountID: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(provider: ProviderID, subject: String) { rawValue = "\(provider.rawValue)/\(subject)" }
    public init(stringLiteral value: String) { rawValue = value }
    /// Code unit for code unit (Swift's `String ==` would merge canonically equivalent names).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue.utf8.elementsEqual(rhs.rawValue.utf8) }
    public func hash(into hasher: inout Hasher) { for byte in rawValue.utf8 { hasher.combine(byte) } }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}
