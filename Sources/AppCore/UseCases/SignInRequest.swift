import AuthEngine
import FoundationEssentials

/// What a sign-in asks for beyond the provider's configuration.
public struct SignInRequest: Equatable, Sendable {
    public enum Flow: String, Equatable, Sendable, CaseIterable { case browser, device }
    public var providerID: ProviderID
    public var flow: Flow
    /// Scopes added to the provider's configured ones.
    public var extraScopes: [String]
    public var audience: String?
    public var resources: [String]
    /// `--name`: an alias for the account.
    public var alias: String?
    /// Do not start a browser; only show the URL (`--no-browser`).
    public var noBrowser: Bool
    /// `--redirect-port`: listen on exactly this port for this sign-in (else the provider's
    /// ``ProviderConfig/fixedRedirectPort``, else any free port).
    public var redirectPort: UInt16?
    /// A step-up (RFC 9470 §4): `acr_values` and `max_age` in the authorization request and checked in the ID token
    /// (``StepUpRequirement``); browser flow only.
    public var stepUp: StepUpRequirement?

    public init(providerID: ProviderID, flow: Flow = .browser, extraScopes: [String] = [], audience: String? = nil,
                resources: [String] = [], alias: String? = nil, noBrowser: Bool = false, redirectPort: UInt16? = nil,
                stepUp: StepUpRequirement? = nil) {
        self.redirectPort = redirectPort
        self.stepUp = stepUp
        self.providerID = providerID
        self.flow = flow
        self.extraScopes = extraScopes
        self.audience = audience
        self.resources = resources
        self.alias = alias
        self.noBrowser = noBrowser
    }
}

/// RFC 8628 §3.2 values shown to the user while the device flow runs.
public struct DeviceCodeDisplay: Equatable, Sendable {
    public var userCode: String
    public var verificationURI: URL
    public var verificationURIComplete: URL?
    /// Absolute expiry of the device code.
    public var expiresAt: Date
    /// Polling interval (RFC 8628 §3.2 `interval`).
    public var interval: Duration
    /// What the provider's response got wrong that was dropped (``DeviceAuthorizationNote``), one line each.
    public var notes: [String]
    public init(userCode: String, verificationURI: URL, verificationURIComplete: URL?, expiresAt: Date, interval: Duration, notes: [String] = []) {
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresAt = expiresAt
        self.interval = interval
        self.notes = notes
    }
}

/// Progress of a sign-in, sent while the flow runs.
public enum SignInProgress: Equatable, Sendable {
    case discovering
    /// The authorization URL; `browserOpened` tells whether a browser was started for it.
    case waitingForBrowser(url: URL, browserOpened: Bool)
    case exchangingCode
    case deviceCode(DeviceCodeDisplay)
    /// RFC 8628 §3.5 poll answers: `authorization_pending`, or `slow_down` with the new interval.
    case devicePending
    case deviceSlowDown(interval: Duration)
    case verifying
    /// No browser was opened here: besides the loopback listener at `redirectURI`, a line pasted
    /// back is read (``PastedLines``); `fixedPort` tells whether the port is the registered one
    /// (then an `ssh -L PORT:127.0.0.1:PORT` forward delivers the redirect too).
    case waitingForPaste(redirectURI: URL, fixedPort: Bool)
    /// A pasted line that is not this sign-in's redirect (``PastedRedirectProblem``), said; the next line is read.
    case pastedLineRefused(String)
    /// The pasted redirect won; the loopback listener is closed.
    case pastedRedirectAccepted
}

/// The lines a person pastes back while a browser sign-in waits (the address a browser on
/// another machine ended on, or the code), read at the same time as the loopback listener waits.
/// `next` returns nil at the end of input (the listener alone waits on) and must return soon
/// after its Task is cancelled (the listener's redirect came first).
public struct PastedLines: Sendable {
    public var next: @Sendable () async -> String?
    public init(next: @escaping @Sendable () async -> String?) { self.next = next }
}

/// What a step-up sign-in asks of the authentication (RFC 9470 §4, OIDC Core §3.1.2.1) and whom it must be.
public struct StepUpRequirement: Equatable, Sendable {
    /// `acr_values` sent; the ID token's `acr` must be one of them (code unit for code unit).
    public var acrValues: [String]
    /// `max_age` sent, seconds; the ID token's `auth_time` is then required and at most this old (+ the clock tolerance).
    public var maxAge: Int?
    /// The subject of the account being stepped up: the new ID token's `sub` must be it, code unit for code unit (else
    /// nothing is stored). Nil for a `login --acr-values` that names no account.
    public var subject: String?

    public init(acrValues: [String] = [], maxAge: Int? = nil, subject: String? = nil) {
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.subject = subject
    }

    /// Whether the sign-in must bring an ID token to check (`acr_values` or `max_age` asked).
    public var needsIDToken: Bool { !acrValues.isEmpty || maxAge != nil }
}
