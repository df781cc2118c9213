import Foundation
import Testing
@testable import AuthEngine

@Suite("Device authorization grant (RFC 8628)")
struct DeviceAuthorizationTests {
    static let metadata = OP.metadata()

    static func authorization(interval: Int = 5, expiresIn: Int = 1800) -> DeviceAuthorization {
        DeviceAuthorization(
            response: DeviceAuthorizationResponse(deviceCode: DeviceCode("dc-123"), userCode: "A1B2C3D4", verificationURI: URL(string: "https://op.test/device")!,
                                                  verificationURIComplete: nil, expiresIn: expiresIn, interval: interval),
            receivedAt: testNow, expiresAt: testNow.addingTimeInterval(TimeInterval(expiresIn)), requestedScopes: ["openid"], verificationURIIsSuspicious: false)
    }

    @Test("DEV-01, RFC 8628 §3.1: exact form POST with client_id and scope")
    func request() throws {
        let request = try makeDeviceAuthorizationRequest(metadata: Self.metadata, client: OP.client, scopes: ["openid", "profile"])
        #expect(request.url.absoluteString == "https://op.test/device")
        #expect(request.method == .post)
        #expect(request.headers == [HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json")])
        #expect(formBody(request) == [FormParameter("scope", "openid profile"), FormParameter("client_id", "rp-native")])
    }

    @Test("Auth0: the device request carries the authorization request's audience, resources and extra parameters, not the browser-only ones")
    func requestCarriesAuthorizationParameters() throws {
        let client = ClientConfiguration(clientID: "rp-native", extraAuthorizationParameters: [
            FormParameter("organization", "org_1"), FormParameter("response_mode", "form_post"), FormParameter("prompt", "consent"),
            FormParameter("access_type", "offline")])
        let request = try makeDeviceAuthorizationRequest(metadata: Self.metadata, client: client, scopes: ["openid"],
                                                         audience: "https://api.test", resources: ["https://a.test", "urn:api:b"])
        #expect(formBody(request) == [FormParameter("scope", "openid"), FormParameter("audience", "https://api.test"),
                                      FormParameter("resource", "https://a.test"), FormParameter("resource", "urn:api:b"),
                                      FormParameter("organization", "org_1"), FormParameter("client_id", "rp-native")])
        #expect(authError { try makeDeviceAuthorizationRequest(metadata: Self.metadata, client: client, scopes: ["openid"], resources: ["https://a.test/#x"]) }
                == .unsupported(.invalidResourceIndicator("https://a.test/#x")))
    }

    @Test("DEV-11, RFC 8628 §3.4: the token request carries the device_code grant")
    func tokenRequest() throws {
        let request = try makeDeviceAccessTokenRequest(metadata: Self.metadata, client: OP.client, deviceCode: DeviceCode("dc-123"))
        #expect(request.url.absoluteString == "https://op.test/token")
        #expect(formBody(request) == [FormParameter("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                                      FormParameter("device_code", "dc-123"), FormParameter("client_id", "rp-native")])
    }

    @Test("RFC 8628 §3.2: a full response with verification_uri_complete; absolute expiry")
    func response() throws {
        let response = jsonResponse(["device_code": "dc", "user_code": "WDJB-MJHT", "verification_uri": "https://op.test/device",
                                     "verification_uri_complete": "https://op.test/device?user_code=WDJB-MJHT", "expires_in": 1800, "interval": 7])
        let authorization = try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: ["openid"], now: testNow)
        #expect(authorization.response.userCode == "WDJB-MJHT")
        #expect(authorization.response.verificationURIComplete?.absoluteString == "https://op.test/device?user_code=WDJB-MJHT")
        #expect(authorization.response.interval == 7)
        #expect(authorization.expiresAt == testNow.addingTimeInterval(1800))
        #expect(!authorization.verificationURIIsSuspicious)
    }

    @Test("DEV-03: an unusable verification_uri_complete is dropped with a note; verification_uri and the code stay",
          arguments: [("/device?user_code=WDJB", "is a relative reference, not an absolute URI"), ("http://evil.example/device", "is not an https URL"),
                      ("", "is a relative reference, not an absolute URI"), ("https:/device", "is not an https URL"),
                      ("javascript:alert(1)", "is not an https URL")])
    func unusableVerificationURIComplete(_ value: String, reason: String) throws {
        let response = jsonResponse(["device_code": "dc", "user_code": "WDJB-MJHT", "verification_uri": "https://op.test/device",
                                     "verification_uri_complete": value, "expires_in": 1800])
        let authorization = try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: [], now: testNow)
        #expect(authorization.response.verificationURIComplete == nil)
        #expect(authorization.response.verificationURI.absoluteString == "https://op.test/device")
        #expect(authorization.response.userCode == "WDJB-MJHT")
        #expect(authorization.notes == [.verificationURICompleteDropped(reason: reason)])
    }

    @Test("DEV-03: verification_uri_complete as a number is dropped with a note, not a failed sign-in")
    func verificationURICompleteNotAString() throws {
        let response = jsonResponse(["device_code": "dc", "user_code": "U", "verification_uri": "https://op.test/device",
                                     "verification_uri_complete": 42, "expires_in": 600])
        let authorization = try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: [], now: testNow)
        #expect(authorization.notes == [.verificationURICompleteDropped(reason: "is not a string")])
        #expect(authorization.response.verificationURIComplete == nil)
    }

    @Test("Google: verification_url is accepted; DOT: interval given", arguments: ["device/google.json", "device/dot.json"])
    func providerVariants(_ path: String) throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: try fixture(path))
        let authorization = try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: [], now: testNow)
        #expect(authorization.response.verificationURI.scheme == "https")
        #expect(authorization.response.interval == 5)
    }

    @Test("DEV-04(a): interval defaults to 5 s")
    func defaultInterval() throws {
        let response = jsonResponse(["device_code": "dc", "user_code": "U", "verification_uri": "https://op.test/device", "expires_in": 600])
        #expect(try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: [], now: testNow).response.interval == 5)
    }

    @Test("DEV-02: a missing REQUIRED member is rejected", arguments: ["device_code", "user_code", "verification_uri", "expires_in"])
    func missingMember(_ member: String) {
        var object: [String: Any] = ["device_code": "dc", "user_code": "U", "verification_uri": "https://op.test/device", "expires_in": 600]
        object[member] = nil
        #expect(authError { try processDeviceAuthorizationResponse(jsonResponse(object), metadata: Self.metadata, scopes: [], now: testNow) }
            == .protocolViolation(.missingField(member)))
    }

    @Test("DEV-11: a verification URI on another host than the token endpoint is flagged")
    func suspiciousVerificationURI() throws {
        let response = jsonResponse(["device_code": "dc", "user_code": "U", "verification_uri": "https://evil.test/device", "expires_in": 600])
        #expect(try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: [], now: testNow).verificationURIIsSuspicious)
    }

    @Test("RFC 8628 §3.2: a plain-http verification_uri off loopback is refused before anyone is shown it",
          arguments: ["http://op.test/device", "http://evil.example/activate", "HTTP://op.test/device"])
    func insecureVerificationURI(_ uri: String) {
        let response = jsonResponse(["device_code": "dc", "user_code": "U", "verification_uri": uri, "expires_in": 600])
        #expect(authError { try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: [], now: testNow) }
            == .unsupported(.insecureURL(uri)))
    }

    @Test("RFC 8628 §3.2: a loopback-http verification_uri is accepted (the local provider's)")
    func loopbackVerificationURI() throws {
        let response = jsonResponse(["device_code": "dc", "user_code": "U", "verification_uri": "http://127.0.0.1:8999/device", "expires_in": 600])
        let authorization = try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: [], now: testNow)
        #expect(authorization.response.verificationURI.absoluteString == "http://127.0.0.1:8999/device")
    }

    @Test("RFC 8628 §3.2, §6.1: a user_code longer than 64 characters, or holding a control character or a line break, is refused (an empty one is missing, DEV-02)",
          arguments: [String(repeating: "A", count: 65), "ABCD\u{1B}[2J", "ABCD\nEFGH", "ABCD\tEFGH", "ABCD\u{2028}EFGH"])
    func unreadableUserCode(_ code: String) {
        let response = jsonResponse(["device_code": "dc", "user_code": code, "verification_uri": "https://op.test/device", "expires_in": 600])
        #expect(authError { try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: [], now: testNow) }
            == .protocolViolation(.invalidField(name: "user_code", expected: "a short code of printable characters")))
    }

    @Test("RFC 8628 §6.1: a user_code with spaces, or 64 characters long, is kept as sent",
          arguments: ["WDJB MJHT", String(repeating: "B", count: 64)])
    func readableUserCode(_ code: String) throws {
        let response = jsonResponse(["device_code": "dc", "user_code": code, "verification_uri": "https://op.test/device", "expires_in": 600])
        #expect(try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: [], now: testNow).response.userCode == code)
    }

    @Test("No device_authorization_endpoint is typed")
    func noEndpoint() {
        var metadata = Self.metadata
        metadata.deviceAuthorizationEndpoint = nil
        #expect(authError { try makeDeviceAuthorizationRequest(metadata: metadata, client: OP.client, scopes: []) }
            == .unsupported(.missingEndpoint("device_authorization_endpoint")))
    }

    // MARK: polling state machine

    static func error(_ code: OAuthErrorCode, interval: Int? = nil, status: Int = 400) -> Result<TokenResponse, AuthError> {
        .failure(.errorResponse(OAuthErrorResponse(code: code, status: status, interval: interval)))
    }

    static let state = DevicePollingState(interval: 5, expiresAt: testNow.addingTimeInterval(1800))

    @Test("DEV-04(a): the first poll waits one interval")
    func firstPoll() {
        #expect(DevicePollingState(authorization: Self.authorization()).firstPoll(receivedAt: testNow) == testNow.addingTimeInterval(5))
        #expect(DevicePollingState(authorization: Self.authorization(interval: 31)).firstPoll(receivedAt: testNow) == testNow.addingTimeInterval(31))
    }

    @Test("RFC 8628 §3.5 authorization_pending waits the interval")
    func pending() {
        #expect(nextDevicePollDecision(after: Self.error(.authorizationPending), state: Self.state, now: testNow)
            == .pollAgain(at: testNow.addingTimeInterval(5), state: Self.state))
    }

    @Test("RFC 8628 §3.5 slow_down adds 5 s, or takes the server's larger interval (GitHub)", arguments: [
        (Optional<Int>.none, 10.0), (7, 10.0), (30, 30.0),
    ])
    func slowDown(_ serverInterval: Int?, _ expected: TimeInterval) {
        let decision = nextDevicePollDecision(after: Self.error(.slowDown, interval: serverInterval, status: 200), state: Self.state, now: testNow)
        #expect(decision == .pollAgain(at: testNow.addingTimeInterval(expected), state: DevicePollingState(interval: expected, expiresAt: Self.state.expiresAt)))
    }

    @Test("DEV-05/DEV-06: pending, slow_down, slow_down, pending keeps the grown interval 5 → 10 → 15, never shrinking")
    func intervalSequence() {
        var state = Self.state
        var now = testNow
        var gaps: [TimeInterval] = []
        for result in [Self.error(.authorizationPending), Self.error(.slowDown), Self.error(.slowDown), Self.error(.authorizationPending), Self.error(.authorizationPending)] {
            guard case .pollAgain(let at, let next) = nextDevicePollDecision(after: result, state: state, now: now) else {
                Issue.record("expected pollAgain")
                return
            }
            gaps.append(at.timeIntervalSince(now))
            state = next
            now = at
        }
        #expect(gaps == [5, 10, 15, 15, 15])
    }

    @Test("DEV-07, DEV-08: access_denied and expired_token are typed terminal outcomes, also with HTTP 200")
    func terminal() {
        #expect(nextDevicePollDecision(after: Self.error(.accessDenied, status: 200), state: Self.state, now: testNow)
            == .denied(OAuthErrorResponse(code: .accessDenied, status: 200)))
        #expect(nextDevicePollDecision(after: Self.error(.expiredToken), state: Self.state, now: testNow) == .expired)
    }

    @Test("DEV-09: any other error stops polling", arguments: [OAuthErrorCode.invalidGrant, .invalidClient, .unsupportedGrantType, .unauthorizedClient])
    func otherErrors(_ code: OAuthErrorCode) {
        let result = Self.error(code)
        #expect(nextDevicePollDecision(after: result, state: Self.state, now: testNow) == .failed(AuthError.errorResponse(OAuthErrorResponse(code: code, status: 400))))
    }

    @Test("DEV-10(a): transport failures back off by doubling the interval")
    func transportBackoff() {
        let failure: Result<TokenResponse, AuthError> = .failure(.transport(.timeout(url: "u", seconds: 10)))
        guard case .pollAgain(let at, let state) = nextDevicePollDecision(after: failure, state: Self.state, now: testNow) else {
            Issue.record("expected pollAgain")
            return
        }
        #expect(at == testNow.addingTimeInterval(10))
        #expect(state.transportFailures == 1)
        guard case .pollAgain(let at2, _) = nextDevicePollDecision(after: failure, state: state, now: at) else {
            Issue.record("expected pollAgain")
            return
        }
        #expect(at2 == at.addingTimeInterval(20))
    }

    @Test("DEV-10(b): the device code's own expiry stops polling")
    func ownExpiry() {
        let state = DevicePollingState(interval: 5, expiresAt: testNow.addingTimeInterval(30))
        #expect(nextDevicePollDecision(after: Self.error(.authorizationPending), state: state, now: testNow.addingTimeInterval(26)) == .expired)
        #expect(DevicePollingState(interval: 5, expiresAt: testNow).firstPoll(receivedAt: testNow) == nil)
        #expect(DevicePollingState(interval: 5, expiresAt: testNow.addingTimeInterval(-1)).firstPoll(receivedAt: testNow) == nil)
    }

    @Test("An interval of 0 or below (or absent) means the default 5 s (RFC 8628 §3.2)", arguments: [0, -1, -30])
    func unusableInterval(_ interval: Int) throws {
        let response = jsonResponse(["device_code": "dc", "user_code": "U", "verification_uri": "https://op.test/device",
                                     "expires_in": 1800, "interval": interval])
        let authorization = try processDeviceAuthorizationResponse(response, metadata: Self.metadata, scopes: [], now: testNow)
        #expect(authorization.response.interval == 5)
        #expect(DevicePollingState(authorization: authorization).firstPoll(receivedAt: testNow) == testNow.addingTimeInterval(5))
        // A value built in code with a bad interval is treated the same.
        #expect(DevicePollingState(authorization: Self.authorization(interval: interval)).interval == 5)
    }

    @Test("pollDeviceToken with interval 0: waits 5 s between polls, never a tight loop")
    func asyncZeroInterval() async throws {
        let stub = StubHTTPClient()
        stub.on(.post, "https://op.test/token", respond:
            jsonResponse(["error": "authorization_pending"], status: 400), jsonResponse(["access_token": "at", "token_type": "bearer"]))
        let clock = FakeClock()
        let outcome = try await pollDeviceToken(metadata: Self.metadata, client: OP.client, authorization: Self.authorization(interval: 0),
                                                http: stub.client, now: { clock.now }, sleep: { clock.sleep($0) })
        guard case .authorized = outcome else { Issue.record("expected authorized, got \(outcome)"); return }
        #expect(clock.sleeps == [5, 5])
    }

    @Test("An interval as long as the code's lifetime or longer still polls once, shortly before expiry",
          arguments: [(interval: 5.0, lifetime: 3.0, at: 2.0), (interval: 600, lifetime: 300, at: 299), (interval: 30, lifetime: 30, at: 29),
                      (interval: 10, lifetime: 1, at: 0.5)])
    func intervalLongerThanLifetime(_ c: (interval: Double, lifetime: Double, at: Double)) {
        let state = DevicePollingState(interval: c.interval, expiresAt: testNow.addingTimeInterval(c.lifetime))
        #expect(state.firstPoll(receivedAt: testNow) == testNow.addingTimeInterval(c.at))
    }

    @Test("pollDeviceToken: interval 60 and expires_in 30 polls once at 29 s; approval then is picked up, else expired")
    func asyncIntervalLongerThanLifetime() async throws {
        for approved in [true, false] {
            let stub = StubHTTPClient()
            stub.on(.post, "https://op.test/token", respond: approved
                ? jsonResponse(["access_token": "at", "token_type": "bearer"]) : jsonResponse(["error": "authorization_pending"], status: 400))
            let clock = FakeClock()
            let outcome = try await pollDeviceToken(metadata: Self.metadata, client: OP.client, authorization: Self.authorization(interval: 60, expiresIn: 30),
                                                    http: stub.client, now: { clock.now }, sleep: { clock.sleep($0) })
            #expect(clock.sleeps == [29])
            #expect(stub.requests.count == 1)
            if approved {
                guard case .authorized = outcome else { Issue.record("expected authorized, got \(outcome)"); continue }
            } else {
                #expect(outcome == .expired)
            }
        }
    }

    @Test("Success yields the token response")
    func success() {
        let response = TokenResponse(accessToken: AccessToken("at"), tokenType: "Bearer")
        #expect(nextDevicePollDecision(after: .success(response), state: Self.state, now: testNow) == .authorized(response))
    }

    // MARK: async polling

    final class FakeClock: @unchecked Sendable {
        private let lock = NSLock()
        private var current = testNow
        private(set) var sleeps: [TimeInterval] = []
        var now: Date { lock.withLock { current } }
        func sleep(_ seconds: TimeInterval) {
            lock.withLock {
                sleeps.append(seconds)
                current = current.addingTimeInterval(seconds)
            }
        }
    }

    @Test("pollDeviceToken: pending, pending, slow_down, success — waits 5, 5, 5, 10 s, errors with HTTP 200 are errors")
    func asyncPolling() async throws {
        let stub = StubHTTPClient()
        stub.on(.post, "https://op.test/token", respond:
            jsonResponse(["error": "authorization_pending"], status: 400), jsonResponse(["error": "authorization_pending"], status: 200),
            jsonResponse(["error": "slow_down"], status: 400), jsonResponse(["access_token": "at", "token_type": "bearer", "expires_in": 60]))
        let clock = FakeClock()
        let outcome = try await pollDeviceToken(metadata: Self.metadata, client: OP.client, authorization: Self.authorization(), http: stub.client,
                                                now: { clock.now }, sleep: { clock.sleep($0) })
        guard case .authorized(let tokens) = outcome else { Issue.record("expected authorized, got \(outcome)"); return }
        #expect(tokens.accessToken.exposedValue == "at")
        #expect(tokens.expiresAt == clock.now.addingTimeInterval(60))
        #expect(clock.sleeps == [5, 5, 5, 10])
        #expect(stub.requests.count == 4)
    }

    @Test("pollDeviceToken: access_denied and expired_token end the flow", arguments: [("access_denied", true), ("expired_token", false)])
    func asyncTerminal(_ code: String, _ denied: Bool) async throws {
        let stub = StubHTTPClient()
        stub.on(.post, "https://op.test/token", respond: jsonResponse(["error": "authorization_pending"], status: 400), jsonResponse(["error": code], status: 400))
        let clock = FakeClock()
        let outcome = try await pollDeviceToken(metadata: Self.metadata, client: OP.client, authorization: Self.authorization(), http: stub.client,
                                                now: { clock.now }, sleep: { clock.sleep($0) })
        if denied {
            guard case .denied = outcome else { Issue.record("expected denied"); return }
        } else {
            #expect(outcome == .expired)
        }
        #expect(stub.requests.count == 2)
    }

    @Test("pollDeviceToken: the device code expiring stops polling without expired_token (expires_in 30)")
    func asyncOwnExpiry() async throws {
        let stub = StubHTTPClient()
        stub.on(.post, "https://op.test/token", respond: jsonResponse(["error": "authorization_pending"], status: 400))
        let clock = FakeClock()
        let outcome = try await pollDeviceToken(metadata: Self.metadata, client: OP.client, authorization: Self.authorization(expiresIn: 30),
                                                http: stub.client, now: { clock.now }, sleep: { clock.sleep($0) })
        #expect(outcome == .expired)
        #expect(stub.requests.count == 5)  // polls at 5, 10, 15, 20, 25; the next (30) would be at expiry
    }

    @Test("pollDeviceToken: cancellation through sleep ends with .transport(.cancelled)")
    func asyncCancelled() async {
        let stub = StubHTTPClient()
        let error = await asyncAuthError {
            try await pollDeviceToken(metadata: Self.metadata, client: OP.client, authorization: Self.authorization(), http: stub.client,
                                      now: { testNow }, sleep: { _ in throw CancellationError() })
        }
        #expect(error == .transport(.cancelled))
        #expect(stub.requests.isEmpty)
    }

    @Test("pollDeviceToken: task cancellation stops polling")
    func asyncTaskCancelled() async {
        let stub = StubHTTPClient()
        stub.on(.post, "https://op.test/token", respond: jsonResponse(["error": "authorization_pending"], status: 400))
        let task = Task {
            try await pollDeviceToken(metadata: Self.metadata, client: OP.client, authorization: Self.authorization(), http: stub.client,
                                      now: { testNow }, sleep: { try await Task.sleep(for: .seconds($0)) })
        }
        task.cancel()
        let result = await task.result
        #expect((try? result.get()) == nil)
        if case .failure(let error) = result { #expect(error as? AuthError == .transport(.cancelled)) }
    }
}
