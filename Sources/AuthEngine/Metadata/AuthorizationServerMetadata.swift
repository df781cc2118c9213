import FoundationEssentials

/// Authorization server metadata (RFC 8414 §2) / OpenID Provider metadata (OIDC Discovery 1.0 §3).
/// Wire names in AuthorizationServerMetadata+JSON.swift; unknown members are ignored (Discovery §3, DISC-08).
public struct AuthorizationServerMetadata: Sendable, Equatable {
    /// `issuer`: compared byte for byte, never normalised.
    public var issuer: String
    /// `authorization_endpoint` (RFC 6749 §3.1).
    public var authorizationEndpoint: URL?
    /// `token_endpoint` (RFC 6749 §3.2).
    public var tokenEndpoint: URL?
    /// `userinfo_endpoint` (OIDC Core §5.3).
    public var userinfoEndpoint: URL?
    /// `jwks_uri` (RFC 7517).
    public var jwksURI: URL?
    /// `registration_endpoint`.
    public var registrationEndpoint: URL?
    /// `scopes_supported`.
    public var scopesSupported: [String]?
    /// `response_types_supported` (REQUIRED).
    public var responseTypesSupported: [String]?
    /// `response_modes_supported`.
    public var responseModesSupported: [String]?
    /// `grant_types_supported`.
    public var grantTypesSupported: [String]?
    /// `subject_types_supported` (REQUIRED for OIDC).
    public var subjectTypesSupported: [String]?
    /// `id_token_signing_alg_values_supported` (REQUIRED for OIDC); kept as strings.
    public var idTokenSigningAlgValuesSupported: [String]?
    /// `token_endpoint_auth_methods_supported`.
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// `code_challenge_methods_supported` (RFC 8414 §2).
    public var codeChallengeMethodsSupported: [String]?
    /// `revocation_endpoint` (RFC 7009, RFC 8414 §2).
    public var revocationEndpoint: URL?
    /// `introspection_endpoint` (RFC 7662, RFC 8414 §2).
    public var introspectionEndpoint: URL?
    /// `device_authorization_endpoint` (RFC 8628 §4).
    public var deviceAuthorizationEndpoint: URL?
    /// `end_session_endpoint` (RP-Initiated Logout 1.0 §2.1).
    public var endSessionEndpoint: URL?
    /// `authorization_response_iss_parameter_supported` (RFC 9207 §3).
    public var authorizationResponseIssParameterSupported: Bool?
    /// `claims_supported`.
    public var claimsSupported: [String]?
    /// `require_pushed_authorization_requests` (RFC 9126 §5): the authorization request is then
    /// always pushed; a provider that requires it without a PAR endpoint, or with the provider's
    /// `par` setting `never`, is refused before the browser opens (PAR-01).
    public var requirePushedAuthorizationRequests: Bool?
    /// `pushed_authorization_request_endpoint` (RFC 9126 §5).
    public var pushedAuthorizationRequestEndpoint: URL?
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1): the provider takes DPoP proofs.
    public var dpopSigningAlgValuesSupported: [String]?
    /// `client_id_metadata_document_supported` (OAuth Client ID Metadata Document draft §3):
    /// an https URL of the client's metadata document may be its `client_id`.
    public var clientIDMetadataDocumentSupported: Bool?
    /// `revocation_endpoint_auth_methods_supported` (RFC 8414 §2): without `none`, a public client
    /// cannot revoke (``refusesPublicClients(at:)``).
    public var revocationEndpointAuthMethodsSupported: [String]?
    /// `introspection_endpoint_auth_methods_supported` (RFC 8414 §2).
    public var introspectionEndpointAuthMethodsSupported: [String]?

    /// Whether the metadata says the endpoint takes no unauthenticated (public) client: its
    /// `*_endpoint_auth_methods_supported` is given and lacks `none` (RFC 8414 §2). nil list: unknown, false.
    public func refusesPublicClients(at endpoint: AuthenticatedEndpoint) -> Bool {
        let methods = switch endpoint {
        case .revocation: revocationEndpointAuthMethodsSupported
        case .introspection: introspectionEndpointAuthMethodsSupported
        }
        guard let methods else { return false }
        return !methods.containsExactly("none")
    }

    /// The endpoints with their own `*_endpoint_auth_methods_supported` member.
    public enum AuthenticatedEndpoint: Sendable { case revocation, introspection }

    public init(issuer: String, authorizationEndpoint: URL? = nil, tokenEndpoint: URL? = nil, userinfoEndpoint: URL? = nil,
                jwksURI: URL? = nil, registrationEndpoint: URL? = nil, scopesSupported: [String]? = nil,
                responseTypesSupported: [String]? = nil, responseModesSupported: [String]? = nil,
                grantTypesSupported: [String]? = nil, subjectTypesSupported: [String]? = nil,
                idTokenSigningAlgValuesSupported: [String]? = nil, tokenEndpointAuthMethodsSupported: [String]? = nil,
                codeChallengeMethodsSupported: [String]? = nil, revocationEndpoint: URL? = nil,
                introspectionEndpoint: URL? = nil, deviceAuthorizationEndpoint: URL? = nil, endSessionEndpoint: URL? = nil,
                authorizationResponseIssParameterSupported: Bool? = nil, claimsSupported: [String]? = nil,
                requirePushedAuthorizationRequests: Bool? = nil, pushedAuthorizationRequestEndpoint: URL? = nil,
                dpopSigningAlgValuesSupported: [String]? = nil) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.jwksURI = jwksURI
        self.registrationEndpoint = registrationEndpoint
        self.scopesSupported = scopesSupported
        self.responseTypesSupported = responseTypesSupported
        self.responseModesSupported = responseModesSupported
        self.grantTypesSupported = grantTypesSupported
        self.subjectTypesSupported = subjectTypesSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.revocationEndpoint = revocationEndpoint
        self.introspectionEndpoint = introspectionEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.claimsSupported = claimsSupported
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
        self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
        self.dpopSigningAlgValuesSupported = dpopSigningAlgValuesSupported
    }

    /// The issuer is plain http on a loopback address (the local test provider): accepted, but
    /// the UI must always show it as such (docs/ARCHITECTURE.md, "Refusals").
    public var isLoopbackHTTP: Bool {
        URL(string: issuer).map(URLPolicy.isLoopbackHTTP) ?? false
    }

    /// All endpoint URLs present, with their wire names.
    public var endpoints: [(name: String, url: URL)] {
        let all: [(String, URL?)] = [
            ("authorization_endpoint", authorizationEndpoint), ("token_endpoint", tokenEndpoint),
            ("userinfo_endpoint", userinfoEndpoint), ("jwks_uri", jwksURI), ("registration_endpoint", registrationEndpoint),
            ("revocation_endpoint", revocationEndpoint), ("introspection_endpoint", introspectionEndpoint),
            ("device_authorization_endpoint", deviceAuthorizationEndpoint), ("end_session_endpoint", endSessionEndpoint),
            ("pushed_authorization_request_endpoint", pushedAuthorizationRequestEndpoint),
        ]
        return all.compactMap { name, url in url.map { (name, $0) } }
    }

    /// Metadata configured by hand for providers without discovery (GitHub), in the style of
    /// AppAuth's service configuration. Every URL must be https (or loopback http).
    /// - Throws: `.unsupported(.insecureURL)`, `.protocolViolation(.invalidIssuerIdentifier)`.
    public static func manual(issuer: String, authorizationEndpoint: URL?, tokenEndpoint: URL,
                              deviceAuthorizationEndpoint: URL? = nil, revocationEndpoint: URL? = nil,
                              introspectionEndpoint: URL? = nil, userinfoEndpoint: URL? = nil, jwksURI: URL? = nil,
                              endSessionEndpoint: URL? = nil,
                              idTokenSigningAlgValuesSupported: [String]? = nil) throws(AuthError) -> AuthorizationServerMetadata {
        let metadata = AuthorizationServerMetadata(
            issuer: issuer, authorizationEndpoint: authorizationEndpoint, tokenEndpoint: tokenEndpoint,
            userinfoEndpoint: userinfoEndpoint, jwksURI: jwksURI, responseTypesSupported: ["code"],
            idTokenSigningAlgValuesSupported: idTokenSigningAlgValuesSupported,
            revocationEndpoint: revocationEndpoint, introspectionEndpoint: introspectionEndpoint,
            deviceAuthorizationEndpoint: deviceAuthorizationEndpoint, endSessionEndpoint: endSessionEndpoint)
        try Discovery.validateIssuerIdentifier(issuer)
        try Discovery.validateEndpointSecurity(metadata)
        return metadata
    }

    /// Endpoint overrides: what discovery omits (django-oauth-toolkit's document lacks
    /// revocation, introspection and device endpoints) or what the user set by hand. A nil
    /// argument keeps the current value.
    /// - Throws: `.unsupported(.insecureURL)` for an override that is plain http off loopback.
    public func overriding(authorizationEndpoint: URL? = nil, tokenEndpoint: URL? = nil, jwksURI: URL? = nil,
                           revocationEndpoint: URL? = nil, introspectionEndpoint: URL? = nil,
                           deviceAuthorizationEndpoint: URL? = nil, endSessionEndpoint: URL? = nil,
                           userinfoEndpoint: URL? = nil) throws(AuthError) -> AuthorizationServerMetadata {
        var copy = self
        if let authorizationEndpoint { copy.authorizationEndpoint = authorizationEndpoint }
        if let tokenEndpoint { copy.tokenEndpoint = tokenEndpoint }
        if let jwksURI { copy.jwksURI = jwksURI }
        if let revocationEndpoint { copy.revocationEndpoint = revocationEndpoint }
        if let introspectionEndpoint { copy.introspectionEndpoint = introspectionEndpoint }
        if let deviceAuthorizationEndpoint { copy.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint }
        if let endSessionEndpoint { copy.endSessionEndpoint = endSessionEndpoint }
        if let userinfoEndpoint { copy.userinfoEndpoint = userinfoEndpoint }
        try Discovery.validateEndpointSecurity(copy)
        return copy
    }
}
