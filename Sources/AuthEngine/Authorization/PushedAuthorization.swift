import FoundationEssentials

/// A provider's setting for an optional protocol feature (PAR, DPoP): `auto` uses it when the
/// metadata advertises it (the default), `always` requires it, `never` does without.
public enum ProtocolFeatureSetting: String, Sendable, CaseIterable {
    case auto, always, never
}

/// Why a pushed authorization request (RFC 9126 §2) failed. Nothing is opened in a browser.
public enum PushedAuthorizationFailure: Error, Sendable, Equatable {
    /// RFC 9126 §2.3: `invalid_request` (HTTP 400): the server refused the parameters.
    case invalidRequest(description: String?)
    /// RFC 9126 §2.3: `invalid_client` (HTTP 401): the client authentication failed.
    case invalidClient(description: String?)
    /// RFC 9126 §2.3: HTTP 429; `retryAfter` in seconds from `Retry-After`, when sent.
    case tooManyRequests(retryAfter: TimeInterval?)
    /// RFC 9126 §2.2: the success response lacks `request_uri` (a non-empty string) or
    /// `expires_in` (a positive JSON number; a string is not one), by wire name.
    case missingMember(String)
    /// Any other answer: another OAuth error code or an HTTP status without one.
    case refused(AuthError)
}

/// Pushed authorization requests (RFC 9126): the parameters are posted to the
/// `pushed_authorization_request_endpoint` with the client's authentication, and the browser
/// gets only `client_id` and the returned `request_uri`.
public enum PushedAuthorization {
    /// Whether to push the authorization request, from the provider's setting and metadata.
    /// `auto`: when the metadata has the endpoint; `always`: required; `never`: not, unless the
    /// server requires it (`require_pushed_authorization_requests`, RFC 9126 §5), which is refused.
    /// - Throws: `.unsupported(.missingEndpoint("pushed_authorization_request_endpoint"))` for
    ///   `always` (or a requiring server) without the endpoint;
    ///   `.unsupported(.pushedAuthorizationRequestsRequired)` for `never` with a requiring server.
    public static func shouldPush(metadata: AuthorizationServerMetadata, setting: ProtocolFeatureSetting) throws(AuthError) -> Bool {
        let required = metadata.requirePushedAuthorizationRequests == true
        let available = metadata.pushedAuthorizationRequestEndpoint != nil
        switch setting {
        case .never:
            if required { throw .unsupported(.pushedAuthorizationRequestsRequired) }
            return false
        case .always:
            guard available else { throw .unsupported(.missingEndpoint("pushed_authorization_request_endpoint")) }
            return true
        case .auto:
            if required && !available { throw .unsupported(.missingEndpoint("pushed_authorization_request_endpoint")) }
            return available
        }
    }

    /// The push (RFC 9126 §2.1): `POST` of every authorization parameter, with client
    /// authentication, to the PAR endpoint; and the pending authorization whose
    /// `authorizationURL` is still the bare endpoint (see ``processResponse(_:pending:clientID:now:)``).
    /// - Throws: as ``makeAuthorizationRequest(metadata:client:request:crypto:dpopJKT:)``, plus
    ///   `.unsupported(.missingEndpoint("pushed_authorization_request_endpoint"))`.
    public static func makeRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration, request: AuthorizationRequest,
                                   crypto: CryptoProvider, dpopJKT: String? = nil) throws(AuthError) -> (HTTPRequest, PendingAuthorization) {
        guard let parEndpoint = metadata.pushedAuthorizationRequestEndpoint else {
            throw .unsupported(.missingEndpoint("pushed_authorization_request_endpoint"))
        }
        let (_, parameters, pending) = try authorizationParameters(metadata: metadata, client: client, request: request,
                                                                   crypto: crypto, dpopJKT: dpopJKT)
        // `client_id` comes from the client authentication (RFC 9126 §2.1); never twice.
        var form = parameters.filter { !$0.name.exactlyEquals("client_id") }
        if case .clientSecretBasic = client.authentication { form.insert(FormParameter("client_id", client.clientID), at: 1) }
        return (try client.makeFormRequest(url: parEndpoint, parameters: form), pending)
    }

    /// Reads the PAR response (RFC 9126 §2.2, §2.3) and returns `pending` with the URL to open:
    /// the authorization endpoint with only `client_id` and `request_uri` (RFC 9126 §4).
    /// - Throws: `PushedAuthorizationFailure` for each refusal, never a partial URL.
    public static func processResponse(_ response: HTTPResponse, pending: PendingAuthorization, clientID: String,
                                       now: Date) throws(PushedAuthorizationFailure) -> PendingAuthorization {
        if response.status == 429 {
            throw .tooManyRequests(retryAfter: retryDelay(response, now: now))
        }
        let object: [String: JSONValue]
        do {
            object = try readOAuthResponse(response, url: "pushed_authorization_request_endpoint", context: "pushed authorization response", now: now)
        } catch {
            if case .errorResponse(let oauth) = error {
                switch oauth.code {
                case .invalidRequest: throw .invalidRequest(description: oauth.errorDescription)
                case .invalidClient: throw .invalidClient(description: oauth.errorDescription)
                default: break
                }
            }
            throw .refused(error)
        }
        guard let requestURI = object.member("request_uri")?.stringValue, !requestURI.isEmpty else { throw .missingMember("request_uri") }
        guard let expiresIn = object.member("expires_in")?.numberValue, expiresIn > 0 else { throw .missingMember("expires_in") }
        var result = pending
        result.authorizationURL = URLPolicy.appendingQuery(
            [FormParameter("client_id", clientID), FormParameter("request_uri", requestURI)], to: pending.authorizationURL)
        return result
    }
}

/// Push, then the URL for the browser (RFC 9126 §2, §4).
/// - Throws: ``PushedAuthorizationFailure`` (`.refused(.transport)` when nothing came back).
public func pushAuthorizationRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration, request: AuthorizationRequest,
                                     crypto: CryptoProvider, dpopJKT: String? = nil, http: HTTPClient,
                                     now: Date) async throws(PushedAuthorizationFailure) -> PendingAuthorization {
    let push: HTTPRequest, pending: PendingAuthorization
    do {
        (push, pending) = try PushedAuthorization.makeRequest(metadata: metadata, client: client, request: request, crypto: crypto, dpopJKT: dpopJKT)
    } catch {
        throw .refused(error)
    }
    let response: HTTPResponse
    do { response = try await http.perform(push) } catch { throw .refused(error) }
    return try PushedAuthorization.processResponse(response, pending: pending, clientID: client.clientID, now: now)
}
