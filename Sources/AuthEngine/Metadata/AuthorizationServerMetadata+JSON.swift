import FoundationEssentials

// The metadata document's members by their wire names (RFC 8414 §2, OIDC Discovery 1.0 §3),
// read and written in one place. Unknown members are ignored (DISC-08); `null` is absent.
extension AuthorizationServerMetadata {
    /// Reads a metadata document: `issuer` a string; endpoints strings that are URLs; the
    /// `*_supported` lists arrays of strings; the two flags booleans.
    /// - Throws: ``JSONShapeError`` naming the member that has another type.
    public init(json: JSONValue, path: [JSONPathComponent] = []) throws(JSONShapeError) {
        let r = try JSONReader(json, path: path)
        func url(_ name: String) throws(JSONShapeError) -> URL? {
            guard let text = try r.optionalString(name) else { return nil }
            guard let url = URL(string: text) else { throw r.shapeError(name, expected: "a URL") }
            return url
        }
        self.init(
            issuer: try r.string("issuer"),
            authorizationEndpoint: try url("authorization_endpoint"),
            tokenEndpoint: try url("token_endpoint"),
            userinfoEndpoint: try url("userinfo_endpoint"),
            jwksURI: try url("jwks_uri"),
            registrationEndpoint: try url("registration_endpoint"),
            scopesSupported: try r.optionalStrings("scopes_supported"),
            responseTypesSupported: try r.optionalStrings("response_types_supported"),
            responseModesSupported: try r.optionalStrings("response_modes_supported"),
            grantTypesSupported: try r.optionalStrings("grant_types_supported"),
            subjectTypesSupported: try r.optionalStrings("subject_types_supported"),
            idTokenSigningAlgValuesSupported: try r.optionalStrings("id_token_signing_alg_values_supported"),
            tokenEndpointAuthMethodsSupported: try r.optionalStrings("token_endpoint_auth_methods_supported"),
            codeChallengeMethodsSupported: try r.optionalStrings("code_challenge_methods_supported"),
            revocationEndpoint: try url("revocation_endpoint"),
            introspectionEndpoint: try url("introspection_endpoint"),
            deviceAuthorizationEndpoint: try url("device_authorization_endpoint"),
            endSessionEndpoint: try url("end_session_endpoint"),
            authorizationResponseIssParameterSupported: try r.optionalBool("authorization_response_iss_parameter_supported"),
            claimsSupported: try r.optionalStrings("claims_supported"),
            requirePushedAuthorizationRequests: try r.optionalBool("require_pushed_authorization_requests"),
            pushedAuthorizationRequestEndpoint: try url("pushed_authorization_request_endpoint"),
            dpopSigningAlgValuesSupported: try r.optionalStrings("dpop_signing_alg_values_supported"))
        clientIDMetadataDocumentSupported = try r.optionalBool("client_id_metadata_document_supported")
        revocationEndpointAuthMethodsSupported = try r.optionalStrings("revocation_endpoint_auth_methods_supported")
        introspectionEndpointAuthMethodsSupported = try r.optionalStrings("introspection_endpoint_auth_methods_supported")
    }

    /// The document with its wire names; absent members left out, URLs as absolute strings.
    public var json: JSONValue {
        func url(_ value: URL?) -> JSONValue? { value.map { .string($0.absoluteString) } }
        func strings(_ value: [String]?) -> JSONValue? { value.map(JSONValue.strings) }
        return .object(omittingNil: [
            "issuer": .string(issuer),
            "authorization_endpoint": url(authorizationEndpoint),
            "token_endpoint": url(tokenEndpoint),
            "userinfo_endpoint": url(userinfoEndpoint),
            "jwks_uri": url(jwksURI),
            "registration_endpoint": url(registrationEndpoint),
            "scopes_supported": strings(scopesSupported),
            "response_types_supported": strings(responseTypesSupported),
            "response_modes_supported": strings(responseModesSupported),
            "grant_types_supported": strings(grantTypesSupported),
            "subject_types_supported": strings(subjectTypesSupported),
            "id_token_signing_alg_values_supported": strings(idTokenSigningAlgValuesSupported),
            "token_endpoint_auth_methods_supported": strings(tokenEndpointAuthMethodsSupported),
            "code_challenge_methods_supported": strings(codeChallengeMethodsSupported),
            "revocation_endpoint": url(revocationEndpoint),
            "introspection_endpoint": url(introspectionEndpoint),
            "device_authorization_endpoint": url(deviceAuthorizationEndpoint),
            "end_session_endpoint": url(endSessionEndpoint),
            "authorization_response_iss_parameter_supported": authorizationResponseIssParameterSupported.map(JSONValue.bool),
            "client_id_metadata_document_supported": clientIDMetadataDocumentSupported.map(JSONValue.bool),
            "revocation_endpoint_auth_methods_supported": strings(revocationEndpointAuthMethodsSupported),
            "introspection_endpoint_auth_methods_supported": strings(introspectionEndpointAuthMethodsSupported),
            "claims_supported": strings(claimsSupported),
            "require_pushed_authorization_requests": requirePushedAuthorizationRequests.map(JSONValue.bool),
            "pushed_authorization_request_endpoint": url(pushedAuthorizationRequestEndpoint),
            "dpop_signing_alg_values_supported": strings(dpopSigningAlgValuesSupported),
        ])
    }
}
