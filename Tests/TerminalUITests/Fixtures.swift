import AppCore
import Foundation
import TerminalUI

/// Pinned instant for every golden: 2026-11-30 10:00:00 UTC.
let pinnedNow = Date(timeIntervalSince1970: 1_796_032_800)
let utc = DisplayTimeZone.utc

func at(_ offset: TimeInterval) -> Date { pinnedNow.addingTimeInterval(offset) }

func obj(_ members: [(String, ClaimValue)]) -> ClaimValue {
    .object(members.map { ClaimMember(key: $0.0, value: $0.1) })
}

enum Fixtures {
    static let accounts: [AccountRow] = [
        AccountRow(id: "alice", displayName: "alice@example.test", provider: "Local IdP", isActive: true,
                   status: .valid, accessExpiresAt: at(250), accessLifetime: 300, isLoopbackHTTP: true),
        AccountRow(id: "bob", displayName: "Bob Builder", provider: "Auth0", status: .expiringSoon,
                   accessExpiresAt: at(42), accessLifetime: 3600),
        AccountRow(id: "carol", displayName: "carol", provider: "GitHub", status: .refreshFailed(retryAt: at(8)),
                   accessExpiresAt: at(-180), accessLifetime: 28800),
    ]

    static let idTokenClaims = obj([
        ("name", .string("Alice Example")),
        ("zzz_custom", .string("last")),
        ("email", .string("alice@example.test")),
        ("iat", .number(1_796_032_550)),
        ("aud", .string("authdeck-cli")),
        ("exp", .number(1_796_033_100)),
        ("sub", .string("248289761001")),
        ("iss", .string("http://127.0.0.1:8999")),
        ("nonce", .string("n-0S6_WzA2Mj")),
        ("amr", .array([.string("pwd"), .string("otp")])),
        ("updated_at", .number(1_796_000_000_000)),
        ("address", obj([("locality", .string("Springfield")), ("country", .string("US")),
                         ("geo", obj([("lat", .number(1.5)), ("lon", .number(-2.25))]))])),
    ])

    static func detail(tab: DetailTab) -> DetailModel {
        DetailModel(
            tab: tab,
            overview: OverviewModel(
                provider: "Local IdP", issuer: "http://127.0.0.1:8999", subject: "248289761001",
                storage: "encrypted file", accessExpiresAt: at(250), accessLifetime: 300, hasRefreshToken: true,
                idTokenExpiresAt: at(300), lastRefresh: at(-50)),
            scopes: ScopesModel(requested: ["openid", "profile", "email", "offline_access"],
                                granted: ["openid", "profile", "email", "offline_access"]),
            idToken: IDTokenModel(header: obj([("alg", .string("RS256")), ("kid", .string("k1")), ("typ", .string("JWT"))]),
                                  claims: idTokenClaims, signature: .verified(algorithm: "RS256", keyID: "k1")),
            accessTokens: [AccessTokenEntry(kind: .opaque, expiresAt: at(250))],
            raw: [RawTokenEntry(label: "access token", value: .masked(TokenMask.mask("at_0123456789abcdef0123")))])
    }

    static func screen(tab: DetailTab = .overview, dialog: Dialog? = nil, help: Bool = false) -> ScreenModel {
        ScreenModel(
            now: pinnedNow, timeZone: utc,
            header: HeaderModel(activeAccountName: "alice@example.test", storeBackend: "encrypted file"),
            accounts: accounts, selection: "alice", detail: detail(tab: tab), dialog: dialog, helpVisible: help,
            flash: Flash(level: .info, text: "Signed in as alice@example.test"))
    }

    /// A 33×33 QR-like matrix (the size of a version-4 code: a typical device verification URL).
    static let qrMatrix33: [[Bool]] = qrLike(size: 33)

    /// A 25×25 QR-like matrix (finder patterns in three corners, a fixed pseudo-random body).
    static let qrMatrix: [[Bool]] = qrLike(size: 25)

    static func qrLike(size n: Int) -> [[Bool]] {
        var m = Array(repeating: Array(repeating: false, count: n), count: n)
        func finder(_ ox: Int, _ oy: Int) {
            for y in 0..<7 { for x in 0..<7 {
                let edge = x == 0 || y == 0 || x == 6 || y == 6
                let core = (2...4).contains(x) && (2...4).contains(y)
                m[oy + y][ox + x] = edge || core
            } }
        }
        finder(0, 0); finder(n - 7, 0); finder(0, n - 7)
        var seed: UInt32 = 12345
        for y in 0..<n { for x in 0..<n {
            let inFinder = (x < 8 && y < 8) || (x >= n - 8 && y < 8) || (x < 8 && y >= n - 8)
            if inFinder { continue }
            seed = seed &* 1_103_515_245 &+ 12345
            m[y][x] = (seed >> 16) & 1 == 1
        } }
        return m
    }
}
