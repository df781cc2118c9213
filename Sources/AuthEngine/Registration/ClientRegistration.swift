import FoundationEssentials
import Secrets

public enum RegistrationAccessTokenKind: SecretKind { public static let label = "RegistrationAccessToken" }
/// RFC 7592 §3 `registration_access_token`: the bearer credential of the client's configuration endpoint.
public typealias RegistrationAccessToken = Redacted<RegistrationAccessTokenKind>

/// The client metadata authdeck registers (RFC 7591 §2) as a native app (RFC 8252 §8.4): public
/// (`token_endpoint_auth_method: none`), loopback redirect URIs (RFC 8252 §7.3), the code and
/// refresh grants.
public struct ClientRegistrationRequest: Sendable, Equatable {
    /// `client_name`.
    public var clientName: String
    /// `redirect_uris`: loopback `http://127.0.0.1/...` (any port at request time, RFC 8252 §7.3).
    public var redirectURIs: [String]
    /// `grant_types`.
    public var grantTypes: [String]
    /// `scope`, when known.
    public var scope: [String]?

    public init(clientName: String = "authdeck", redirectURIs: [String], grantTypes: [String] = ["authorization_code", "refresh_token"],
                scope: [String]? = nil) {
        self.clientName = clientName
        self.redirectURIs = redirectURIs
        self.grantTypes = grantTypes
        self.scope = scope
    }

    /// The JSON body (RFC 7591 §3.1): `application_type: native`, `response_types: ["code"]`,
    /// `token_endpoint_auth_method: none`.
    public var json: JSONValue {
        .object(omittingNil: [
            "client_name": .string(clientName),
            "application_type": .string("native"),
            "redirect_uris": .strings(redirectURIs),
            "grant_types": .strings(grantTypes),
            "response_types": .strings(["code"]),
            "token_endpoint_auth_method": .string("none"),
            "scope": scope.flatMap { $0.isEmpty ? nil : .string($0.joined(separator: " ")) },
        ])
    }
}

/// A client information response (RFC 7591 §3.2.1, RFC 7592 §3): what is kept per issuer.
public struct ClientRegistration: Sendable, Equatable {
    /// `client_id` (REQUIRED).
    public var clientID: String
    /// `client_secret`, when the server issued one.
    public var clientSecret: ClientSecret?
    /// `client_secret_expires_at` (REQUIRED with a secret; 0: never), as a date; nil: never or none.
    public var clientSecretExpiresAt: Date?
    /// `registration_access_token` (RFC 7592 §3).
    public var registrationAccessToken: RegistrationAccessToken?
    /// `registration_client_uri` (RFC 7592 §3): the client configuration endpoint.
    public var registrationClientURI: URL?
    /// `token_endpoint_auth_method` as registered (the server may choose another).
    public var tokenEndpointAuthMethod: String?

    public init(clientID: String, clientSecret: ClientSecret? = nil, clientSecretExpiresAt: Date? = nil,
                registrationAccessToken: RegistrationAccessToken? = nil, registrationClientURI: URL? = nil, tokenEndpointAuthMethod: String? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientSecretExpiresAt = clientSecretExpiresAt
        self.registrationAccessToken = registrationAccessToken
        self.registrationClientURI = registrationClientURI
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
    }
}

/// RFC 7591 §3.1: `POST registration_endpoint` with the JSON client metadata; no credentials
/// (open registration), no redirect followed.
/// - Throws: `.unsupported(.missingEndpoint("registration_endpoint") / .insecureURL)`.
public func makeClientRegistrationRequest(metadata: AuthorizationServerMetadata,
                                          request: ClientRegistrationRequest) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.registrationEndpoint else { throw .unsupported(.missingEndpoint("registration_endpoint")) }
    try URLPolicy.requireSecure(endpoint)
    return HTTPRequest(method: .post, url: endpoint,
                       headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json")],
                       body: request.json.serialized(), followRedirects: false)
}

/// RFC 7591 §3.2: 201 (or 200) with JSON holding a non-empty `client_id`; an error response
/// (§3.2.2, HTTP 400 `invalid_redirect_uri`, `invalid_client_metadata`, …) with the server's
/// `error` and `error_description`.
/// - Throws: `.errorResponse`, `.httpStatus`, `.protocolViolation(.unexpectedContentType /
///   .malformedJSON / .duplicateMember / .missingField("client_id") / .invalidField)`, `.unsupported(.insecureURL)`.
public func processClientRegistrationResponse(_ response: HTTPResponse, requestURL: URL, now: Date) throws(AuthError) -> ClientRegistration {
    guard response.status == 201 || response.status == 200 else {
        if case .members(let object) = decodeOAuthBody(response), let error = oauthError(in: object, response: response, now: now) {
            throw .errorResponse(error)
        }
        throw .httpStatus(HTTPStatusFailure(status: response.status, url: requestURL.absoluteString, retryAfter: retryDelay(response, now: now)))
    }
    guard response.mediaType == "application/json" else {
        throw .protocolViolation(.unexpectedContentType(expected: "application/json", actual: response.mediaType))
    }
    let object = try readJSONObject(response.body, context: "client registration response")
    let clientID = try object.requiredString("client_id")
    var expiresAt: Date?
    if let seconds = object.member("client_secret_expires_at") {
        guard let number = seconds.numberValue, number >= 0, number.rounded() == number else {
            throw .protocolViolation(.invalidField(name: "client_secret_expires_at", expected: "a non-negative integer of seconds since 1970"))
        }
        expiresAt = number == 0 ? nil : Date(timeIntervalSince1970: number)
    }
    let clientURI = try object.optionalString("registration_client_uri").map { (text) throws(AuthError) -> URL in
        guard let url = URL(string: text) else { throw .protocolViolation(.invalidField(name: "registration_client_uri", expected: "a URL")) }
        try URLPolicy.requireSecure(url)
        return url
    }
    return ClientRegistration(
        clientID: clientID, clientSecret: try object.optionalString("client_secret").map(ClientSecret.init),
        clientSecretExpiresAt: expiresAt,
        registrationAccessToken: try object.optionalString("registration_access_token").map(RegistrationAccessToken.init),
        registrationClientURI: clientURI, tokenEndpointAuthMethod: try object.optionalString("token_endpoint_auth_method"))
}

/// RFC 7592 §2.3: `DELETE registration_client_uri` with `Authorization: Bearer registration_access_token`.
/// - Throws: `.unsupported(.insecureURL)`.
public func makeClientDeletionRequest(registrationClientURI: URL, registrationAccessToken: RegistrationAccessToken) throws(AuthError) -> HTTPRequest {
    try URLPolicy.requireSecure(registrationClientURI)
    return HTTPRequest(method: .delete, url: registrationClientURI,
                       headers: [HTTPHeader("Authorization", "Bearer " + registrationAccessToken.exposedValue),
                                 HTTPHeader("Accept", "application/json")],
                       followRedirects: false)
}

/// RFC 7592 §2.3: 204 (or 200) deleted; 401/403/404 mean the client is gone or the token no
/// longer valid (§2.3: "the authorization server … MUST … treat the request as if the client
/// did not exist"), which counts as deleted; anything else is an error.
/// - Returns: whether the server confirmed the deletion (false: it said the client is unknown).
/// - Throws: `.errorResponse`, `.httpStatus`.
public func processClientDeletionResponse(_ response: HTTPResponse, requestURL: URL, now: Date) throws(AuthError) -> Bool {
    switch response.status {
    case 200, 204: return true
    case 401, 403, 404: return false
    default:
        if case .members(let object) = decodeOAuthBody(response), let error = oauthError(in: object, response: response, now: now) {
            throw .errorResponse(error)
        }
        throw .httpStatus(HTTPStatusFailure(status: response.status, url: requestURL.absoluteString, retryAfter: retryDelay(response, now: now)))
    }
}
