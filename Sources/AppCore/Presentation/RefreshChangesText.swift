import AuthEngine
import FoundationEssentials
import TextSupport

/// ``RefreshChanges`` in words, the one wording of the accounts screen ("Changed on the last
/// refresh"), `authdeck status --changes` and the accessible mode. Every name and value from
/// outside (scopes, claim names and values, the resource) is escaped (``Sanitizer/visible(_:)``).
extension RefreshChanges {
    /// One line each, without indentation: the refresh's time, the scopes granted, removed and
    /// dropped by the provider, the claims, the expiries, the rotation; `time` writes a date.
    public func lines(time: (Date) -> String) -> [String] {
        let v = Sanitizer.visible
        var out = ["refreshed " + time(refreshedAt) + (resource.map { " (token for \(v($0)))" } ?? "")]
        if !scopesAdded.isEmpty { out.append("scopes granted: " + scopesAdded.map(v).joined(separator: " ")) }
        let dropped = scopesRemoved.filter { scopesDroppedByProvider.containsExactly($0) }
        let removed = scopesRemoved.filter { !scopesDroppedByProvider.containsExactly($0) }
        if !dropped.isEmpty {
            out.append("scopes DROPPED BY THE PROVIDER (asked for and held before, not granted now): " + dropped.map(v).joined(separator: " "))
        }
        if !removed.isEmpty { out.append("scopes removed: " + removed.map(v).joined(separator: " ")) }
        for (token, claims) in [("ID token", idTokenClaims), ("access token", accessTokenClaims)] {
            out += claims.map { "\(token) claim " + Self.text($0) }
        }
        if scopesAdded.isEmpty && scopesRemoved.isEmpty { out.append("scopes: no change") }
        if idTokenClaims.isEmpty && accessTokenClaims.isEmpty {
            out.append(newIDToken ? "claims: no change (new ID token verified)" : "claims: no change")
        }
        for expiry in expiries {
            let after = expiry.after.map { "expires " + time($0) } ?? "no expiry given"
            out.append("\(expiry.token.rawValue) \(after)" + (expiry.before.map { " (was " + time($0) + ")" } ?? ""))
        }
        switch refreshTokenRotated {
        case true?: out.append("refresh token rotated: yes (a new one replaced it)")
        case false?: out.append("refresh token rotated: no (the same one is kept)")
        case nil: break
        }
        return out
    }

    /// "email changed: \"a@example.test\" → \"b@example.test\"", "groups added: [\"dev\"]", "role removed (was \"admin\")".
    static func text(_ change: ClaimChange) -> String {
        let v = Sanitizer.visible, name = v(change.name)
        switch change.kind {
        case .added: return "\(name) added: \(v(change.after ?? "null"))"
        case .removed: return "\(name) removed (was \(v(change.before ?? "null")))"
        case .changed: return "\(name) changed: \(v(change.before ?? "null")) → \(v(change.after ?? "null"))"
        }
    }

    /// The changes in one sentence for the accessible mode, said once after a refresh; nil when
    /// only the expiries moved (the "renewed" line says that): "scopes dropped by the provider:
    /// write; ID token claims changed: email; refresh token rotated".
    public var spokenSummary: String? {
        guard !isRoutine else { return nil }
        let v = Sanitizer.visible
        var parts: [String] = []
        if !scopesAdded.isEmpty { parts.append("scopes granted: " + scopesAdded.map(v).joined(separator: ", ")) }
        let dropped = scopesRemoved.filter { scopesDroppedByProvider.containsExactly($0) }
        let removed = scopesRemoved.filter { !scopesDroppedByProvider.containsExactly($0) }
        if !dropped.isEmpty { parts.append("scopes dropped by the provider: " + dropped.map(v).joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("scopes removed: " + removed.map(v).joined(separator: ", ")) }
        for (token, claims) in [("ID token", idTokenClaims), ("access token", accessTokenClaims)] where !claims.isEmpty {
            parts.append("\(token) claims changed: " + claims.map { v($0.name) }.joined(separator: ", "))
        }
        if refreshTokenRotated == true { parts.append("refresh token rotated") }
        return parts.joined(separator: "; ")
    }
}
