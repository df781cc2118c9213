// The input of `render`: plain values describing everything a screen shows. The app layer maps
// its state into this model each turn; TerminalUI never reads a clock or a store.
// All strings are raw (as received); `render` sanitises them before drawing.
import AppCore
import FoundationEssentials
import TextSupport

/// Everything the TUI shows, for one instant `now`.
public struct ScreenModel: Equatable, Sendable {
    /// The instant the screen describes (countdowns and relative times are computed from it).
    public var now: Date
    /// Time zone for absolute times (claims, last refresh, the clock). The app passes the system
    /// zone (AppCoreLive's `DisplayTimeZone.system`); tests pin UTC.
    public var timeZone: DisplayTimeZone
    public var header: HeaderModel
    /// All accounts, in display order (the filter is applied by `render`; see `visibleAccounts`).
    public var accounts: [AccountRow]
    /// Selected account id; selection is keyed by id so it survives reloads.
    public var selection: AccountRow.ID?
    public var filter: FilterState
    public var focus: Pane
    /// Details of the selected account (nil when nothing is selected).
    public var detail: DetailModel?
    public var dialog: Dialog?
    public var helpVisible: Bool
    public var flash: Flash?
    /// Lines such as "file damaged:", the file, what is wrong, "run 'authdeck doctor'" when a
    /// file authdeck keeps cannot be read: shown instead of "No accounts".
    public var storeDamage: [String]?
    /// Read-only mode hides destructive bindings (sign out).
    public var readOnly: Bool
    /// Glyphs for the QR code: Unicode half blocks, or ASCII `##` when the terminal lacks UTF-8.
    public var glyphs: GlyphSet
    /// Lines shown at the foot of the `?` overlay (the demo's users and commands, from
    /// `AUTHDECK_NOTES`); sanitised when drawn.
    public var notes: [String] = []

    public init(
        now: Date, timeZone: DisplayTimeZone = .utc, header: HeaderModel,
        accounts: [AccountRow] = [], selection: AccountRow.ID? = nil, filter: FilterState = FilterState(),
        focus: Pane = .accounts, detail: DetailModel? = nil, dialog: Dialog? = nil, helpVisible: Bool = false,
        flash: Flash? = nil, readOnly: Bool = false, glyphs: GlyphSet = .unicode
    ) {
        self.now = now
        self.timeZone = timeZone
        self.header = header
        self.accounts = accounts
        self.selection = selection
        self.filter = filter
        self.focus = focus
        self.detail = detail
        self.dialog = dialog
        self.helpVisible = helpVisible
        self.flash = flash
        self.readOnly = readOnly
        self.glyphs = glyphs
    }

    /// Accounts matching the filter (``FilterState/matches(_:)``).
    public var visibleAccounts: [AccountRow] { filter.visible(accounts) }

    /// The selected row, if it is visible.
    public var selectedAccount: AccountRow? {
        guard let selection else { return nil }
        return visibleAccounts.first { $0.id == selection }
    }

    /// The instants whose countdowns are on screen (or drive a state change).
    var timedInstants: [Date] {
        var out: [Date] = []
        for a in visibleAccounts {
            if let e = a.accessExpiresAt { out.append(e) }
            if case .refreshFailed(let at) = a.status { out.append(at) }
        }
        if let o = detail?.overview {
            out += [o.accessExpiresAt, o.refreshExpiresAt, o.idTokenExpiresAt].compactMap { $0 }
        }
        if case .device(let d) = dialog { out.append(d.expiresAt) }
        if let e = flash?.expiresAt { out.append(e) }
        return out
    }

    /// The next instant after `now` at which the screen for a later `now` can look different:
    /// the next whole-second step of any visible countdown ("in 4m 10s" → "in 4m 9s"), else the
    /// next minute of the header clock (HH:mm). The run loop sleeps until then, so it wakes
    /// exactly when a countdown changes and never polls.
    public func nextRedraw(after now: Date) -> Date {
        let t = now.timeIntervalSince1970
        var next = (t / 60).rounded(.down) * 60 + 60
        for d in timedInstants {
            let delta = d.timeIntervalSince1970 - t
            // Countdowns show whole seconds of |delta|, so the text changes when the fractional
            // part of delta crosses a whole second.
            var step = delta - delta.rounded(.down)
            if step <= 0.000_5 { step += 1 }
            next = min(next, t + step)
        }
        return Date(timeIntervalSince1970: next)
    }
}

public enum GlyphSet: Equatable, Sendable { case unicode, ascii }

public enum Pane: Equatable, Sendable, CaseIterable { case accounts, detail }

public struct FilterState: Equatable, Sendable {
    public var text: String
    /// True while `/` input is being typed (keys go to the filter, not to bindings).
    public var isEditing: Bool
    public init(text: String = "", isEditing: Bool = false) {
        self.text = text
        self.isEditing = isEditing
    }

    /// The rows the filter shows, in order: all of them for an empty (or blank) filter, else those
    /// whose name or provider contains the text, ignoring case.
    public func visible(_ rows: [AccountRow]) -> [AccountRow] {
        let f = text.trimmingWhitespace().lowercased()
        guard !f.isEmpty else { return rows }
        return rows.filter { $0.displayName.lowercased().contains(f) || $0.provider.lowercased().contains(f) }
    }
}

public struct HeaderModel: Equatable, Sendable {
    /// Display name of the active account, nil when none.
    public var activeAccountName: String?
    /// Why the directory the screen was started in resolves to it, when a place chose it
    /// ("rule /home/u/work", "git config (FILE)"), or why it resolves to none; nil otherwise.
    public var activeAccountSource: String?
    /// The credential-store backend, e.g. "Secret Service", "encrypted file", "plaintext file".
    public var storeBackend: String
    /// True for plaintext storage: shown as a permanent warning badge.
    public var storeIsInsecure: Bool
    public init(activeAccountName: String? = nil, storeBackend: String, storeIsInsecure: Bool = false) {
        self.activeAccountName = activeAccountName
        self.storeBackend = storeBackend
        self.storeIsInsecure = storeIsInsecure
    }
}

public struct AccountRow: Equatable, Sendable, Identifiable {
    public typealias ID = AccountID
    public var id: ID
    /// From `name` / `preferred_username` / `email` (the app picks).
    public var displayName: String
    /// Provider display name.
    public var provider: String
    public var isActive: Bool
    public var status: AccountStatus
    /// Absolute expiry of the access token, nil when unknown (no `expires_in`).
    public var accessExpiresAt: Date?
    /// Total lifetime of the access token in seconds (for the bar's 100 %), nil when unknown.
    public var accessLifetime: TimeInterval?
    /// The provider (its issuer) is plain HTTP on a loopback address, accepted for local
    /// providers only (shown as a note in the detail pane).
    public var isLoopbackHTTP: Bool
    /// RFC 9449: the thumbprint of the key the account's tokens are bound to (sender-constrained,
    /// shown as "DPoP"); nil for Bearer tokens.
    public var dpopThumbprint: String?

    public init(
        id: ID, displayName: String, provider: String, isActive: Bool = false, status: AccountStatus,
        accessExpiresAt: Date? = nil, accessLifetime: TimeInterval? = nil, isLoopbackHTTP: Bool = false
    ) {
        self.id = id
        self.displayName = displayName
        self.provider = provider
        self.isActive = isActive
        self.status = status
        self.accessExpiresAt = accessExpiresAt
        self.accessLifetime = accessLifetime
        self.isLoopbackHTTP = isLoopbackHTTP
    }
}

extension AccountStatus {
    /// Whether the status itself counts down (a retry timer).
    var isTimed: Bool {
        if case .refreshFailed = self { return true }
        return false
    }
}

/// Detail pane tabs, in order (keys 1–6).
public enum DetailTab: Int, Equatable, Sendable, CaseIterable {
    case overview = 1, scopes, idToken, accessToken, userinfo, raw

    public var title: String {
        switch self {
        case .overview: "Overview"
        case .scopes: "Scopes"
        case .idToken: "ID token"
        case .accessToken: "Access token"
        case .userinfo: "Userinfo"
        case .raw: "Raw"
        }
    }

    /// Shorter title for narrow tab bars.
    public var shortTitle: String {
        switch self {
        case .overview: "Overview"
        case .scopes: "Scopes"
        case .idToken: "ID"
        case .accessToken: "Access"
        case .userinfo: "Userinfo"
        case .raw: "Raw"
        }
    }

    /// The tab after this one, the first after the last.
    public var next: DetailTab {
        let all = DetailTab.allCases
        return all.firstIndex(of: self).map { all[(all.index(after: $0)) % all.count] } ?? self
    }
}

/// The detail pane for the selected account.
public struct DetailModel: Equatable, Sendable {
    public var tab: DetailTab
    public var overview: OverviewModel
    public var scopes: ScopesModel
    /// nil when the account has no ID token (plain OAuth, GitHub).
    public var idToken: IDTokenModel?
    /// One entry per resource / audience.
    public var accessTokens: [AccessTokenEntry]
    public var userinfo: UserinfoState
    public var raw: [RawTokenEntry]
    /// Scroll offset (rows) of the tab content.
    public var scroll: Int
    /// The account's provider: its claim settings (``ProviderConfig/claimTimeUnits``) for the
    /// claim tables; nil when it is not configured.
    public var provider: ProviderConfig?

    public init(
        tab: DetailTab = .overview, overview: OverviewModel, scopes: ScopesModel = ScopesModel(),
        idToken: IDTokenModel? = nil, accessTokens: [AccessTokenEntry] = [], userinfo: UserinfoState = .notFetched,
        raw: [RawTokenEntry] = [], scroll: Int = 0, provider: ProviderConfig? = nil
    ) {
        self.tab = tab
        self.overview = overview
        self.scopes = scopes
        self.idToken = idToken
        self.accessTokens = accessTokens
        self.userinfo = userinfo
        self.raw = raw
        self.scroll = scroll
        self.provider = provider
    }
}

public struct OverviewModel: Equatable, Sendable {
    public var provider: String
    public var issuer: String?
    /// The protected resource a provider made by `login URL` signs in to, and where its client came from.
    public var resource: String?
    public var client: String?
    /// A machine account (client credentials, RFC 6749 §4.4): no refresh token, a new request renews the token.
    public var isMachine = false
    public var subject: String?
    /// Where this account's secrets live, e.g. "Secret Service", "encrypted file ~/.local/state/…".
    public var storage: String
    public var storageIsInsecure: Bool
    public var accessExpiresAt: Date?
    public var accessLifetime: TimeInterval?
    public var hasRefreshToken: Bool
    public var refreshExpiresAt: Date?
    public var idTokenExpiresAt: Date?
    /// The ID token's `acr` and `auth_time` (RFC 9470 step-up), when it has either.
    public var authentication: AuthenticationContext?
    /// When the grant ends, set only when that is "ending soon" (`authdeck check`'s
    /// `ending_soon`: the refresh token, or without one the access token, ends within the
    /// threshold): the person can sign in again at a time of their choosing.
    public var grantEndsSoonAt: Date?
    public var lastRefresh: Date?
    public var lastError: ErrorLine?
    /// The grant's tokens on one time axis, drawn at the top (``GrantTimelineLayout``); nil: none.
    public var timeline: GrantTimeline?
    /// What the last refresh changed, in words (``RefreshChanges/lines(time:)``); nil before one.
    public var lastRefreshChanges: [String]?

    public init(
        provider: String, issuer: String? = nil, subject: String? = nil, storage: String, storageIsInsecure: Bool = false,
        accessExpiresAt: Date? = nil, accessLifetime: TimeInterval? = nil, hasRefreshToken: Bool = false,
        refreshExpiresAt: Date? = nil, idTokenExpiresAt: Date? = nil, grantEndsSoonAt: Date? = nil, lastRefresh: Date? = nil,
        lastError: ErrorLine? = nil
    ) {
        self.provider = provider
        self.issuer = issuer
        self.subject = subject
        self.storage = storage
        self.storageIsInsecure = storageIsInsecure
        self.accessExpiresAt = accessExpiresAt
        self.accessLifetime = accessLifetime
        self.hasRefreshToken = hasRefreshToken
        self.refreshExpiresAt = refreshExpiresAt
        self.idTokenExpiresAt = idTokenExpiresAt
        self.grantEndsSoonAt = grantEndsSoonAt
        self.lastRefresh = lastRefresh
        self.lastError = lastError
    }
}

/// An error as shown: a message plus the spec clause it violates (e.g. "RFC 6749 §5.2").
public struct ErrorLine: Equatable, Sendable {
    public var message: String
    public var clause: String?
    public init(message: String, clause: String? = nil) {
        self.message = message
        self.clause = clause
    }
}

public struct ScopesModel: Equatable, Sendable {
    public var requested: [String]
    public var granted: [String]
    /// Change in granted scopes after the last refresh, nil when there was none.
    public var lastRefreshDiff: ScopeDiff?
    public init(requested: [String] = [], granted: [String] = [], lastRefreshDiff: ScopeDiff? = nil) {
        self.requested = requested
        self.granted = granted
        self.lastRefreshDiff = lastRefreshDiff
    }
}

public struct ScopeDiff: Equatable, Sendable {
    public var added: [String]
    public var removed: [String]
    public init(added: [String], removed: [String]) {
        self.added = added
        self.removed = removed
    }
}

/// A JSON value (claims, JOSE headers, userinfo, introspection) with object members in a fixed order.
public indirect enum ClaimValue: Equatable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([ClaimValue])
    case object([ClaimMember])

    public subscript(key: String) -> ClaimValue? {
        if case .object(let members) = self { return members.first { $0.key == key }?.value }
        return nil
    }
}

public struct ClaimMember: Equatable, Sendable {
    public var key: String
    public var value: ClaimValue
    public init(key: String, value: ClaimValue) {
        self.key = key
        self.value = value
    }
}

public struct IDTokenModel: Equatable, Sendable {
    /// The JOSE header as an object.
    public var header: ClaimValue
    public var claims: ClaimValue
    public var signature: SignatureStatus
    public init(header: ClaimValue, claims: ClaimValue, signature: SignatureStatus) {
        self.header = header
        self.claims = claims
        self.signature = signature
    }
}

public struct AccessTokenEntry: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// A JWT decoded for information only; clients do not verify access tokens.
        case decoded(header: ClaimValue, claims: ClaimValue)
        case opaque
        /// A JWE (RFC 7516): encrypted for its audience, never decoded.
        case encrypted
    }
    /// The resource / audience this token is for, nil for the default token.
    public var resource: String?
    public var kind: Kind
    public var expiresAt: Date?
    /// RFC 7662 introspection response, once fetched (key `i`).
    public var introspection: ClaimValue?
    public init(resource: String? = nil, kind: Kind, expiresAt: Date? = nil, introspection: ClaimValue? = nil) {
        self.resource = resource
        self.kind = kind
        self.expiresAt = expiresAt
        self.introspection = introspection
    }
}

public enum UserinfoState: Equatable, Sendable {
    case notFetched
    case loading
    case loaded(ClaimValue)
    case failed(ErrorLine)
}

/// A secret as it may be shown: masked (computed by the app with `TokenMask.mask`) or revealed.
/// `description` never prints a revealed value.
public enum SecretText: Equatable, Sendable, CustomStringConvertible {
    case masked(String)
    case revealed(String)
    public var description: String {
        switch self {
        case .masked(let m): "masked(\(m))"
        case .revealed: "revealed(<redacted>)"
        }
    }
}

public struct RawTokenEntry: Equatable, Sendable {
    /// e.g. "access token", "access token (https://api.example)", "refresh token", "ID token".
    public var label: String
    public var value: SecretText
    public init(label: String, value: SecretText) {
        self.label = label
        self.value = value
    }
}
