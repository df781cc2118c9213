import FoundationEssentials

/// A secret string whose `description`, `debugDescription` and mirror never show the value.
/// The raw value is reachable only through ``exposedValue`` so that a grep finds every use.
///
/// One implementation for the engine's tokens (`AccessToken`, `RefreshToken` … in AuthEngine)
/// and the credential store's records (`StoredAccessToken` … in CredentialStore); each module
/// names its own kinds, so an engine token and a stored one are different types.
public struct Redacted<Kind: SecretKind>: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself. Every read of it is deliberate; never log or format it.
    public let exposedValue: String

    public init(_ value: String) { exposedValue = value }

    public init(from decoder: any Decoder) throws {
        exposedValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(exposedValue)
    }
    public var description: String { "\(Kind.label)(redacted, \(exposedValue.utf8.count) bytes)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
    public var isEmpty: Bool { exposedValue.isEmpty }

    /// Byte equality: a secret is a string of code units, never compared with Unicode canonical
    /// equivalence (`String ==` would call an ID token spelled with KELVIN SIGN instead of `K`
    /// "unchanged" and skip its validation).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.exposedValue.utf8.elementsEqual(rhs.exposedValue.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in exposedValue.utf8 { hasher.combine(byte) }
        hasher.combine(exposedValue.utf8.count)
    }
}

/// Names the kind of a ``Redacted`` value for its redacted description.
public protocol SecretKind: Sendable { static var label: String { get } }

