import FoundationEssentials

/// An introspection response (RFC 7662 §2.2).
public struct IntrospectionResponse: Sendable, Equatable {
    /// `active` (REQUIRED boolean; the string "true" is refused, INT-03).
    public var active: Bool
    /// `exp`.
    public var expiresAt: Date?
    /// `scope`, split on spaces.
    public var scope: [String]?
    /// `client_id`.
    public var clientID: String?
    /// `sub`.
    public var subject: String?
    /// `username`.
    public var username: String?
    /// `token_type`.
    public var tokenType: String?
    /// Every member, for display.
    public var all: [String: JSONValue]

    public init(active: Bool, expiresAt: Date? = nil, scope: [String]? = nil, clientID: String? = nil, subject: String? = nil,
                username: String? = nil, tokenType: String? = nil, all: [String: JSONValue] = [:]) {
        self.active = active
        self.expiresAt = expiresAt
        self.scope = scope
        self.clientID = clientID
        self.subject = subject
        self.username = username
        self.tokenType = tokenType
        self.all = all
    }

    /// Active and not past `exp` at `now` (INT-04: never trust beyond `exp`).
    public func isActive(now: Date) -> Bool {
        active && (expiresAt.map { $0 > now } ?? true)
    }

    /// What may be shown of the answer at `now`: every member for an active token; for an
    /// inactive one (`active: false`, or past `exp`, INT-04) only `{"active": false}` — RFC 7662
    /// §2.2: nothing else about an inactive token is to be relied on (a server SHOULD NOT send it).
    public func shownMembers(now: Date) -> [String: JSONValue] {
        isActive(now: now) ? all : ["active": .bool(false)]
    }
}

/// RFC 7662 §2.1: `POST introspection_endpoint` with `token`, `token_type_hint`, client authentication.
/// - Throws: `.unsupported(.missingEndpoint("introspection_endpoint") / .insecureURL)`.
public func makeIntrospectionRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                                     token: TokenReference) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.introspectionEndpoint else { throw .unsupported(.missingEndpoint("introspection_endpoint")) }
    return try client.makeFormRequest(url: endpoint, parameters: [
        FormParameter("token", token.exposedValue), FormParameter("token_type_hint", token.typeHint),
    ])
}

/// Processes an introspection response (RFC 7662 §2.2–2.3).
/// - Throws: `.errorResponse`, `.httpStatus` (401/403: not authorised to introspect),
///   `.protocolViolation(.missingField("active") / .invalidField / .malformedJSON / .unexpectedContentType)`.
public func processIntrospectionResponse(_ response: HTTPResponse, now: Date) throws(AuthError) -> IntrospectionResponse {
    let object = try readOAuthResponse(response, url: "introspection_endpoint", context: "introspection response", now: now)
    guard let active = try object.optionalBool("active") else { throw .protocolViolation(.missingField("active")) }
    let exp: Date?
    switch object.member("exp") {
    case .none: exp = nil
    case .some(.number(let seconds)): exp = Date(timeIntervalSince1970: seconds)
    default: throw .protocolViolation(.invalidField(name: "exp", expected: "a NumericDate number"))
    }
    return IntrospectionResponse(
        active: active, expiresAt: exp, scope: try object.optionalString("scope").map { $0.split(separator: " ").map(String.init) },
        clientID: try object.optionalString("client_id"), subject: try object.optionalString("sub"),
        username: try object.optionalString("username"), tokenType: try object.optionalString("token_type"), all: object)
}
