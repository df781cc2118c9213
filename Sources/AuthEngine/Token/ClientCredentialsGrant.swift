import FoundationEssentials

/// The client credentials grant's token request (RFC 6749 §4.4.2): `grant_type=client_credentials`,
/// an optional `scope`, Auth0's `audience`, RFC 8707 `resource`s, and client authentication
/// (a confidential client only, §4.4). Never follows redirects. The answer is read by
/// ``parseTokenResponse(_:url:now:dpopProofSent:)``; it carries no refresh token (§4.4.3), so a
/// new token is another request of this grant.
/// - Throws: `.unsupported(.missingEndpoint("token_endpoint") / .insecureURL / .invalidResourceIndicator)`.
public func makeClientCredentialsRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration, scopes: [String],
                                         audience: String? = nil, resources: [String] = []) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.tokenEndpoint else { throw .unsupported(.missingEndpoint("token_endpoint")) }
    var parameters = [FormParameter("grant_type", GrantType.clientCredentials.rawValue)]
    if !scopes.isEmpty { parameters.append(FormParameter("scope", scopes.joined(separator: " "))) }
    if let audience { parameters.append(FormParameter("audience", audience)) }
    for resource in resources {
        try validateResourceIndicator(resource)
        parameters.append(FormParameter("resource", resource))
    }
    return try client.makeFormRequest(url: endpoint, parameters: parameters)
}
