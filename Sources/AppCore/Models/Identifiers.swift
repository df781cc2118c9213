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
    /// ids and handles are written `provider/…`); or anything but visible ASCII. A name is typed
    /// in commands, git config and scripts and read back in lists: outside ASCII, one can look
    /// like another (U+200B makes `git\u{200B}hub` look like `github`, Cyrillic `а` `locаl` like
    /// `local`, fillers and joiners show nothing, U+202E reorders the line). Names are compared
    /// byte for byte; one canonically equal to another provider's (a provider named before this
    /// rule) is refused where the providers are known (``ProviderAdmin``).
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "a provider needs a name" }
        if name.contains("/") { return "a provider name cannot contain '/' (account ids and handles are written provider/account)" }
        if let bad = name.unicodeScalars.first(where: { !(0x21...0x7E).contains($0.value) }) {
            return "a provider name is letters, digits and punctuation of ASCII, without spaces (\(bad.codePointText) is not)"
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
