import FoundationEssentials

/// How the account's user authenticated, from its ID token (OIDC Core §2): `acr` and `auth_time`; shown by `status`
/// (`--json`: `idToken.acr`, `idToken.authTime`) and the accounts screen's overview, so a step-up (RFC 9470) is visible.
public struct AuthenticationContext: Equatable, Sendable {
    /// `acr`: the Authentication Context Class Reference the provider asserted.
    public var acr: String?
    /// `auth_time`: when the user authenticated (seconds since 1970 in the token).
    public var authTime: Date?

    public init(acr: String? = nil, authTime: Date? = nil) {
        self.acr = acr
        self.authTime = authTime
    }

    /// The record's ID token's `acr` and `auth_time`; nil when it has neither (or no ID token).
    public init?(_ record: AccountRecord) {
        guard let claims = record.idToken?.claims.objectValue else { return nil }
        let acr = claims["acr"]?.stringValue
        let authTime = claims["auth_time"]?.numberValue.flatMap { ClaimTime.date(claim: "auth_time", $0, provider: nil)?.date }
        guard acr != nil || authTime != nil else { return nil }
        self.init(acr: acr, authTime: authTime)
    }

    /// "acr urn:mace:incommon:iap:silver, authenticated 4m ago", "acr gold", "authenticated 5m ago": the age from
    /// `auth_time` at `now` (``TimeText/relative(_:now:)``). Server text: escape before a terminal.
    public func text(now: Date) -> String {
        var parts: [String] = []
        if let acr { parts.append("acr \(acr)") }
        if let authTime { parts.append("authenticated \(TimeText.relative(authTime, now: now))") }
        return parts.joined(separator: ", ")
    }
}
