import FoundationEssentials

/// Which well-known document to fetch.
public enum DiscoveryKind: Sendable, Equatable {
    /// OpenID Connect Discovery 1.0 §4: append `/.well-known/openid-configuration` to the issuer.
    case openIDConnect
    /// RFC 8414 §3.1: insert `/.well-known/oauth-authorization-server` between host and path.
    case oauthAuthorizationServer
    /// OpenID discovery at the RFC 8414 §3.1 place: `/.well-known/openid-configuration` inserted
    /// between host and path (the MCP authorization spec's second location for an issuer with a path).
    case openIDConnectPathInserted

    /// The locations tried for an issuer found through a protected resource (MCP authorization,
    /// "Authorization Server Metadata Discovery"; RFC 8414 §5): RFC 8414 path-inserted, OpenID
    /// path-inserted, OpenID appended; without a path, RFC 8414 then OpenID appended.
    public static func chain(issuer: String) -> [DiscoveryKind] {
        let path = URLComponents(string: issuer)?.percentEncodedPath ?? ""
        return path.isEmpty || path == "/" ? [.oauthAuthorizationServer, .openIDConnect]
                                           : [.oauthAuthorizationServer, .openIDConnectPathInserted, .openIDConnect]
    }

    /// Whether the document is OpenID Provider metadata (its REQUIRED members apply).
    public var isOpenID: Bool { self != .oauthAuthorizationServer }
}

/// Discovery (OIDC Discovery 1.0, RFC 8414): request builder, response processor, rules.
public enum Discovery {
    /// The well-known URL for `issuer`.
    /// - OIDC Discovery §4.1: `https://op.test/tenant1/` → `https://op.test/tenant1/.well-known/openid-configuration`
    ///   (a terminating `/` is stripped before appending).
    /// - RFC 8414 §3.1: `https://op.test/tenant1` → `https://op.test/.well-known/oauth-authorization-server/tenant1`.
    /// - Throws: `.protocolViolation(.invalidIssuerIdentifier)`, `.unsupported(.insecureURL)`.
    public static func wellKnownURL(issuer: String, kind: DiscoveryKind) throws(AuthError) -> URL {
        try validateIssuerIdentifier(issuer)
        switch kind {
        case .openIDConnect:
            let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
            guard let url = URL(string: base + "/.well-known/openid-configuration") else {
                throw .protocolViolation(.invalidIssuerIdentifier(issuer))
            }
            return url
        case .oauthAuthorizationServer, .openIDConnectPathInserted:
            guard let components = URLComponents(string: issuer), let scheme = components.scheme, let host = components.percentEncodedHost else {
                throw .protocolViolation(.invalidIssuerIdentifier(issuer))
            }
            var path = components.percentEncodedPath
            while path.hasSuffix("/") { path.removeLast() }
            let port = components.port.map { ":\($0)" } ?? ""
            let name = kind == .oauthAuthorizationServer ? "oauth-authorization-server" : "openid-configuration"
            guard let url = URL(string: "\(scheme)://\(host)\(port)/.well-known/\(name)\(path)") else {
                throw .protocolViolation(.invalidIssuerIdentifier(issuer))
            }
            return url
        }
    }

    /// `GET` of the well-known document, `Accept: application/json`; redirects may be followed.
    public static func makeRequest(issuer: String, kind: DiscoveryKind = .openIDConnect) throws(AuthError) -> HTTPRequest {
        HTTPRequest(method: .get, url: try wellKnownURL(issuer: issuer, kind: kind),
                    headers: [HTTPHeader("Accept", "application/json")], followRedirects: true)
    }

    /// Validates the discovery response (Discovery §4.2–4.3, RFC 8414 §3.2–3.3): HTTP 200,
    /// `application/json`, an `issuer` identical to `expectedIssuer` (DISC-02/03), the REQUIRED
    /// members (DISC-05), https-or-loopback endpoints (DISC-06) and at least one ID-token
    /// algorithm we verify (DISC-09, OIDC only).
    /// - Throws: `.httpStatus`, `.protocolViolation(.unexpectedContentType / .malformedJSON /
    ///   .issuerMismatch / .missingField / .responseTypeCodeNotSupported)`, `.unsupported(.insecureURL /
    ///   .noSupportedSigningAlgorithm)`.
    /// With `multiTenantEntra` (or on a Microsoft login host) the `common` / `organizations`
    /// authority may answer its issuer with `{tenantid}` in place of that segment
    /// (``EntraAuthority/templateIssuer(for:)``).
    public static func processResponse(_ response: HTTPResponse, expectedIssuer: String, requestURL: URL? = nil,
                                       kind: DiscoveryKind = .openIDConnect,
                                       multiTenantEntra: Bool = false) throws(AuthError) -> AuthorizationServerMetadata {
        guard response.status == 200 else {
            throw .httpStatus(HTTPStatusFailure(status: response.status, url: requestURL?.absoluteString ?? expectedIssuer))
        }
        guard response.mediaType == "application/json" else {
            throw .protocolViolation(.unexpectedContentType(expected: "application/json", actual: response.mediaType))
        }
        let object = try readJSONObject(response.body, context: "discovery document")
        let issuer = try object.requiredString("issuer")
        let entraTemplate = multiTenantEntra || EntraAuthority.isLoginHost(expectedIssuer) ? EntraAuthority.templateIssuer(for: expectedIssuer) : nil
        guard issuer.exactlyEquals(expectedIssuer) || entraTemplate.map({ issuer.exactlyEquals($0) }) == true else {
            throw .protocolViolation(.issuerMismatch(expected: expectedIssuer, actual: issuer))
        }
        let metadata: AuthorizationServerMetadata
        do throws(JSONShapeError) {
            metadata = try AuthorizationServerMetadata(json: .object(object))
        } catch {
            throw .protocolViolation(.malformedJSON(context: "discovery document"))
        }
        try validate(metadata, kind: kind)
        return metadata
    }

    /// The REQUIRED-member, URL-security and algorithm rules, for discovered metadata.
    public static func validate(_ metadata: AuthorizationServerMetadata, kind: DiscoveryKind) throws(AuthError) {
        try validateIssuerIdentifier(metadata.issuer)
        if metadata.authorizationEndpoint == nil { throw .protocolViolation(.missingField("authorization_endpoint")) }
        if metadata.tokenEndpoint == nil { throw .protocolViolation(.missingField("token_endpoint")) }
        guard let responseTypes = metadata.responseTypesSupported else {
            throw .protocolViolation(.missingField("response_types_supported"))
        }
        if kind.isOpenID {
            if metadata.jwksURI == nil { throw .protocolViolation(.missingField("jwks_uri")) }
            if metadata.subjectTypesSupported == nil { throw .protocolViolation(.missingField("subject_types_supported")) }
            guard let algorithms = metadata.idTokenSigningAlgValuesSupported else {
                throw .protocolViolation(.missingField("id_token_signing_alg_values_supported"))
            }
            let usable = algorithms.compactMap { JWSAlgorithm(exactRawValue: $0) }
                .filter { IDTokenValidationOptions.defaultAllowedAlgorithms.contains($0) }
            if usable.isEmpty { throw .unsupported(.noSupportedSigningAlgorithm(advertised: algorithms)) }
        }
        guard responseTypes.containsExactly("code") else { throw .protocolViolation(.responseTypeCodeNotSupported) }
        try validateEndpointSecurity(metadata)
    }

    /// Discovery §3: https (or loopback http), with a host, no query and no fragment.
    public static func validateIssuerIdentifier(_ issuer: String) throws(AuthError) {
        guard let components = URLComponents(string: issuer), let url = URL(string: issuer),
              components.host?.isEmpty == false else {
            throw .protocolViolation(.invalidIssuerIdentifier(issuer))
        }
        try URLPolicy.requireSecure(url)
        if components.query != nil || components.fragment != nil {
            throw .protocolViolation(.invalidIssuerIdentifier(issuer))
        }
    }

    /// RFC 7636 §4.2, MCP authorization "Authorization Code Protection": the server must
    /// advertise `S256` in `code_challenge_methods_supported`; absent means no PKCE, and is refused too.
    /// - Throws: `.unsupported(.pkceS256NotAdvertised(advertised:))`.
    public static func requireS256(_ metadata: AuthorizationServerMetadata) throws(AuthError) {
        guard metadata.codeChallengeMethodsSupported?.containsExactly("S256") == true else {
            throw .unsupported(.pkceS256NotAdvertised(advertised: metadata.codeChallengeMethodsSupported ?? []))
        }
    }

    /// Every endpoint is https, or http on a loopback address (DISC-06).
    public static func validateEndpointSecurity(_ metadata: AuthorizationServerMetadata) throws(AuthError) {
        for endpoint in metadata.endpoints {
            try URLPolicy.requireSecure(endpoint.url)
        }
    }
}
