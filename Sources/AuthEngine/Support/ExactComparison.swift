import FoundationEssentials

// Protocol identifiers are compared code unit for code unit.
//
// Swift's `String ==` (and `Hashable`, so `Set<String>`, `[String: …]` keys, `switch` on string
// literals and `RawRepresentable` enums with `String` raw values) treats canonically equivalent
// Unicode as equal: `"caf\u{E9}" == "cafe\u{301}"`, and even `"\u{212A}" == "K"` (KELVIN SIGN).
// The specifications compare identifiers as strings of code points, with no normalisation:
// - issuer: OIDC Discovery 1.0 §4.3 ("identical"), RFC 8414 §3.3, OIDC Core §3.1.3.7 step 2
//   ("exactly match"), RFC 9207 §2.4 (simple string comparison, RFC 3986 §6.2.1);
// - JWT claims: RFC 7519 §7.3 (StringOrURI values compared as case-sensitive strings, no
//   transformation or canonicalisation), so `aud`, `azp`, `sub`, `nonce`, `at_hash`;
// - JOSE: RFC 7515 §4.1.1 (`alg` case-sensitive), RFC 7517 §4.5 (`kid` case-sensitive);
// - `state` and `redirect_uri`: RFC 6749 §10.12, §3.1.2.3 (simple string comparison).
// Every such comparison in the engine goes through the helpers below, never `==`.

extension StringProtocol {
    /// True when both strings have the same UTF-8 code units (no Unicode normalisation; see the
    /// file comment). Use this, not `==`, for every protocol identifier.
    @inlinable
    public func exactlyEquals(_ other: some StringProtocol) -> Bool {
        utf8.elementsEqual(other.utf8)
    }

    /// ASCII-only case-insensitive equality, for the few values the specifications declare
    /// case-insensitive (`token_type`, RFC 6749 §5.1; media types in `typ`, RFC 7515 §4.1.9;
    /// HTTP methods and auth schemes). Non-ASCII bytes must match exactly: `lowercased()` folds
    /// `"\u{212A}"` (KELVIN SIGN) to `"k"`, which this does not.
    @inlinable
    public func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        utf8.elementsEqual(other.utf8) { a, b in
            func fold(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
            return fold(a) == fold(b)
        }
    }
}

extension Optional where Wrapped: StringProtocol {
    /// Both absent, or both present and ``StringProtocol/exactlyEquals(_:)``.
    @inlinable
    public func exactlyEquals(_ other: Wrapped?) -> Bool {
        switch (self, other) {
        case (.none, .none): true
        case (.some(let a), .some(let b)): a.exactlyEquals(b)
        default: false
        }
    }
}

extension Sequence where Element: StringProtocol {
    /// Whether an element ``StringProtocol/exactlyEquals(_:)`` `value` (never `contains`, which
    /// uses `==`; and never a `Set<String>` lookup, which hashes canonically).
    @inlinable
    public func containsExactly(_ value: some StringProtocol) -> Bool {
        contains { $0.exactlyEquals(value) }
    }
}

extension RawRepresentable where RawValue == String {
    /// The case whose raw value is exactly `text` (the synthesized `init(rawValue:)` matches
    /// canonically equivalent strings too).
    @inlinable
    public init?(exactRawValue text: String) {
        guard let value = Self(rawValue: text), value.rawValue.exactlyEquals(text) else { return nil }
        self = value
    }
}
