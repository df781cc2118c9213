import FoundationEssentials

/// The device authorization response (RFC 8628 §3.2), relative times as sent.
public struct DeviceAuthorizationResponse: Sendable, Equatable {
    /// `device_code` (secret).
    public var deviceCode: DeviceCode
    /// `user_code`, shown to the user (untrusted text: escape before display).
    public var userCode: String
    /// `verification_uri` (Google sends `verification_url`).
    public var verificationURI: URL
    /// `verification_uri_complete`, when sent (shown in addition, never instead, DEV-03).
    public var verificationURIComplete: URL?
    /// `expires_in`, seconds.
    public var expiresIn: Int
    /// `interval`, seconds; 5 when absent (RFC 8628 §3.2).
    public var interval: Int

    public init(deviceCode: DeviceCode, userCode: String, verificationURI: URL, verificationURIComplete: URL? = nil,
                expiresIn: Int, interval: Int = 5) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }
}

/// An optional member of the device authorization response that was unusable and dropped
/// (RFC 8628 §3.2: only `device_code`, `user_code`, `verification_uri` and `expires_in` are
/// REQUIRED, so the sign-in goes on without it). Carried on ``DeviceAuthorization/notes``.
public enum DeviceAuthorizationNote: Sendable, Hashable {
    /// `verification_uri_complete` was not an absolute https (or loopback http) URI, or not a
    /// string; `reason` says which. The user opens `verification_uri` and types the code.
    case verificationURICompleteDropped(reason: String)

    /// One line for the front ends, naming the member and what happens instead; never the value.
    public var message: String {
        switch self {
        case .verificationURICompleteDropped(let reason):
            "The provider's verification_uri_complete \(reason), so it is not offered; open the verification URI and enter the code (RFC 8628 §3.2)."
        }
    }
}

/// A started device authorization with absolute times.
public struct DeviceAuthorization: Sendable, Equatable {
    public var response: DeviceAuthorizationResponse
    /// When the response was received (the injected `now`).
    public var receivedAt: Date
    /// `receivedAt + expires_in`: polling stops here (DEV-10b).
    public var expiresAt: Date
    /// Requested scopes ("as requested" when the token response omits `scope`).
    public var requestedScopes: [String]
    /// Whether the verification URI is on another host than the token endpoint (DEV-11 warning; a
    /// plain-http one off loopback is refused outright).
    public var verificationURIIsSuspicious: Bool
    /// Optional members dropped because they were unusable (empty for a clean response).
    public var notes: [DeviceAuthorizationNote]

    public init(response: DeviceAuthorizationResponse, receivedAt: Date, expiresAt: Date, requestedScopes: [String],
                verificationURIIsSuspicious: Bool,
                notes: [DeviceAuthorizationNote] = []) {
        self.response = response
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
        self.requestedScopes = requestedScopes
        self.verificationURIIsSuspicious = verificationURIIsSuspicious
        self.notes = notes
    }
}

/// RFC 8628 §3.1: `POST device_authorization_endpoint` with `client_id`, `scope` and what the
/// provider's authorization request carries besides: `audience` (Auth0), each `resource`
/// (RFC 8707 §2.1, checked as there) and the client's extra authorization parameters, except
/// ``browserOnlyAuthorizationParameters``; then `extraParameters`. Empty values are left out.
/// - Throws: `.unsupported(.missingEndpoint("device_authorization_endpoint") / .insecureURL / .invalidResourceIndicator)`.
public func makeDeviceAuthorizationRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration, scopes: [String],
                                           audience: String? = nil, resources: [String] = [],
                                           extraParameters: [FormParameter] = []) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.deviceAuthorizationEndpoint else { throw .unsupported(.missingEndpoint("device_authorization_endpoint")) }
    for resource in resources { try validateResourceIndicator(resource) }
    var parameters = [FormParameter("scope", scopes.joined(separator: " "))]
    if let audience { parameters.append(FormParameter("audience", audience)) }
    parameters += resources.map { FormParameter("resource", $0) }
    parameters += client.extraAuthorizationParameters.filter { parameter in
        !browserOnlyAuthorizationParameters.contains { $0.exactlyEquals(parameter.name) }
    }
    parameters += extraParameters
    return try client.makeFormRequest(url: endpoint, parameters: parameters.filter { !$0.value.isEmpty })
}

/// Authorization parameters that shape only the browser's part of a code flow, left out of a
/// device authorization request (RFC 8628 §3.1 has no redirect and no page of the provider's to
/// the client): `response_mode` (OAuth 2.0 Multiple Response Types §2.1, Apple's `form_post`),
/// `prompt` (OIDC Core §3.1.2.1) and Google's `access_type` (its device endpoint takes `client_id`
/// and `scope` only and always grants a refresh token).
public let browserOnlyAuthorizationParameters = ["response_mode", "prompt", "access_type"]

/// Processes the device authorization response (RFC 8628 §3.2): `device_code`, `user_code`,
/// `verification_uri` (or `verification_url`), `expires_in` REQUIRED (DEV-02); `interval`
/// defaults to 5; an unusable OPTIONAL `verification_uri_complete` (relative, plain http off
/// loopback, not a string) is dropped with a ``DeviceAuthorizationNote``, never fatal (DEV-03);
/// errors (any status) → `.errorResponse`. What the user is shown and opens is checked here,
/// before anyone sees it (§3.2, §6.1): `verification_uri` https (or loopback http), `user_code`
/// 1…64 printable characters (no control characters, no whitespace but the space).
/// - Throws: `.errorResponse`, `.httpStatus`, `.protocolViolation(.missingField / .invalidField / …)`,
///   `.unsupported(.insecureURL)` for a plain-http `verification_uri` off loopback.
public func processDeviceAuthorizationResponse(_ response: HTTPResponse, metadata: AuthorizationServerMetadata, scopes: [String],
                                               now: Date) throws(AuthError) -> DeviceAuthorization {
    let object = try readOAuthResponse(response, url: metadata.deviceAuthorizationEndpoint?.absoluteString ?? "device_authorization_endpoint",
                                       context: "device authorization response", now: now)
    let deviceCode = try object.requiredString("device_code")
    let userCode = try object.requiredString("user_code")
    let verificationText: String
    if let uri = try object.optionalString("verification_uri"), !uri.isEmpty { verificationText = uri }
    else if let url = try object.optionalString("verification_url"), !url.isEmpty { verificationText = url }
    else { throw .protocolViolation(.missingField("verification_uri")) }
    guard let verificationURI = URL(string: verificationText), verificationURI.scheme != nil else {
        throw .protocolViolation(.invalidField(name: "verification_uri", expected: "an absolute URI"))
    }
    try URLPolicy.requireSecure(verificationURI)
    guard isDisplayableUserCode(userCode) else {
        throw .protocolViolation(.invalidField(name: "user_code", expected: "a short code of printable characters"))
    }
    guard let expiresIn = try object.lenientInteger("expires_in") else { throw .protocolViolation(.missingField("expires_in")) }
    // RFC 8628 §3.2/§3.5: absent means 5 s; 0, a negative or an unreadable value is no usable
    // interval either (0 would poll in a tight loop), so it means the default too: the interval
    // is the client's pace, not a reason to fail the sign-in.
    let interval = DevicePollingState.usableInterval(try? object.lenientInteger("interval"))
    var notes: [DeviceAuthorizationNote] = []
    let complete = usableVerificationURIComplete(object.member("verification_uri_complete"), notes: &notes)
    let expectedHost = (metadata.tokenEndpoint ?? metadata.deviceAuthorizationEndpoint)?.host
    let suspicious = expectedHost != nil && !(verificationURI.host ?? "").equalsIgnoringASCIICase(expectedHost ?? "")
    return DeviceAuthorization(
        response: DeviceAuthorizationResponse(deviceCode: DeviceCode(deviceCode), userCode: userCode, verificationURI: verificationURI,
                                              verificationURIComplete: complete, expiresIn: expiresIn, interval: interval),
        receivedAt: now, expiresAt: now.addingTimeInterval(TimeInterval(expiresIn)), requestedScopes: scopes,
        verificationURIIsSuspicious: suspicious, notes: notes)
}

/// RFC 8628 §3.2, §6.1: a `user_code` the user can read and type: 1…64 characters, none a
/// control character, no whitespace but the space.
private func isDisplayableUserCode(_ code: String) -> Bool {
    !code.isEmpty && code.count <= 64
        && !code.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.isWhitespace && $0 != " " }
}

/// `verification_uri_complete` when it is an absolute https (or loopback http) URI; otherwise
/// nil, with a note saying why (absent: nil, no note).
private func usableVerificationURIComplete(_ value: JSONValue?, notes: inout [DeviceAuthorizationNote]) -> URL? {
    guard let value else { return nil }
    guard let text = value.stringValue else {
        notes.append(.verificationURICompleteDropped(reason: "is not a string"))
        return nil
    }
    guard let url = URL(string: text), url.scheme != nil else {
        notes.append(.verificationURICompleteDropped(reason: "is a relative reference, not an absolute URI"))
        return nil
    }
    do throws(AuthError) { try URLPolicy.requireSecure(url) } catch {
        notes.append(.verificationURICompleteDropped(reason: "is not an https URL"))
        return nil
    }
    return url
}

/// RFC 8628 §3.4: the token request `grant_type=urn:ietf:params:oauth:grant-type:device_code`,
/// `device_code`, `client_id` (DEV-11).
public func makeDeviceAccessTokenRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                                         deviceCode: DeviceCode) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.tokenEndpoint else { throw .unsupported(.missingEndpoint("token_endpoint")) }
    return try client.makeFormRequest(url: endpoint, parameters: [
        FormParameter("grant_type", GrantType.deviceCode.rawValue), FormParameter("device_code", deviceCode.exposedValue),
    ])
}

/// The polling state (RFC 8628 §3.5), a value driven by ``nextDevicePollDecision(after:state:now:)``.
public struct DevicePollingState: Sendable, Equatable {
    /// Seconds between polls; only ever grows (`slow_down`, backoff).
    public var interval: TimeInterval
    /// The device code's expiry: no poll at or after it.
    public var expiresAt: Date
    /// Consecutive transport failures (for backoff).
    public var transportFailures: Int

    /// The default interval when none (or no usable one) is given: 5 s (RFC 8628 §3.2, §3.5).
    public static let defaultInterval = 5

    /// `interval` as given, or ``defaultInterval`` when absent, zero or negative.
    public static func usableInterval(_ interval: Int?) -> Int {
        guard let interval, interval > 0 else { return defaultInterval }
        return interval
    }

    /// The state after the device authorization response; the first poll is one interval later (DEV-04).
    public init(authorization: DeviceAuthorization) {
        self.init(interval: TimeInterval(Self.usableInterval(authorization.response.interval)), expiresAt: authorization.expiresAt)
    }

    public init(interval: TimeInterval, expiresAt: Date, transportFailures: Int = 0) {
        self.interval = interval
        self.expiresAt = expiresAt
        self.transportFailures = transportFailures
    }

    /// When to poll first, given the response was received at `receivedAt`; `nil` when already
    /// expired. One interval later (DEV-04), or, when the interval is as long as the code's
    /// lifetime or longer, once shortly before the code expires (1 s before, or half way for a
    /// code living under 2 s): otherwise the user's approval could never be picked up. RFC 8628
    /// §3.5's "wait at least the interval" is between polling requests, so the first may come
    /// sooner; later polls always wait the whole interval.
    public func firstPoll(receivedAt: Date) -> Date? {
        let at = receivedAt.addingTimeInterval(interval)
        if at < expiresAt { return at }
        let lifetime = expiresAt.timeIntervalSince(receivedAt)
        guard lifetime > 0 else { return nil }
        return expiresAt.addingTimeInterval(-min(1, lifetime / 2))
    }
}

/// What to do after one poll (RFC 8628 §3.5).
public enum DevicePollDecision: Sendable, Equatable {
    /// Poll again at `at` with the updated state.
    case pollAgain(at: Date, state: DevicePollingState)
    /// The user approved: the token response.
    case authorized(TokenResponse)
    /// `access_denied`: stop, report the denial (DEV-07).
    case denied(OAuthErrorResponse)
    /// `expired_token`, or the device code's own expiry passed (DEV-08, DEV-10b).
    case expired
    /// Any other error: stop polling and show it (DEV-09).
    case failed(AuthError)
}

/// The polling state machine, a pure function of the last poll's result:
/// - `authorization_pending` → wait the interval;
/// - `slow_down` → interval + 5 s, or the server's new `interval` if larger, for all later polls (DEV-05/06);
/// - `access_denied` → ``DevicePollDecision/denied(_:)``; `expired_token` → ``DevicePollDecision/expired``;
/// - a transient transport/5xx failure → back off by doubling the interval (DEV-10a);
/// - any other error → ``DevicePollDecision/failed(_:)``;
/// - a next poll at or after the device code's expiry → ``DevicePollDecision/expired``.
/// Errors that arrived with HTTP 200 are still errors (``parseTokenResponse(_:url:now:)`` reads `error` first).
public func nextDevicePollDecision(after result: Result<TokenResponse, AuthError>, state: DevicePollingState, now: Date) -> DevicePollDecision {
    var state = state
    switch result {
    case .success(let response):
        return .authorized(response)
    case .failure(.errorResponse(let error)) where error.code == .authorizationPending:
        state.transportFailures = 0
    case .failure(.errorResponse(let error)) where error.code == .slowDown:
        state.transportFailures = 0
        state.interval = max(state.interval + 5, error.interval.map(TimeInterval.init) ?? 0)
    case .failure(.errorResponse(let error)) where error.code == .accessDenied:
        return .denied(error)
    case .failure(.errorResponse(let error)) where error.code == .expiredToken:
        return .expired
    case .failure(let error) where error.isTransient:
        state.transportFailures += 1
        state.interval = state.interval * 2
    case .failure(let error):
        return .failed(error)
    }
    let next = now.addingTimeInterval(state.interval)
    guard next < state.expiresAt else { return .expired }
    return .pollAgain(at: next, state: state)
}

/// How a device flow ended, when it did not throw.
public enum DeviceFlowOutcome: Sendable, Equatable {
    case authorized(TokenSet)
    case denied(OAuthErrorResponse)
    case expired
}
