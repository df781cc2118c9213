import FoundationEssentials

/// OAuth 2.0 Protected Resource Metadata (RFC 9728 §2): what a resource server says about
/// itself. Unknown members are ignored (RFC 9728 §2).
public struct ProtectedResourceMetadata: Sendable, Equatable {
    /// `resource` (REQUIRED): the resource identifier, compared code unit for code unit (§3.3).
    public var resource: String
    /// `authorization_servers`: issuer identifiers of the servers that issue its tokens (§2).
    public var authorizationServers: [String]
    /// `scopes_supported` (§2).
    public var scopesSupported: [String]?
    /// `bearer_methods_supported` (§2): `header`, `body`, `query` (RFC 6750 §2).
    public var bearerMethodsSupported: [String]?
    /// `dpop_signing_alg_values_supported` (§2): the resource takes DPoP proofs (RFC 9449).
    public var dpopSigningAlgValuesSupported: [String]?
    /// `dpop_bound_access_tokens_required` (§2): only DPoP-bound tokens are accepted.
    public var dpopBoundAccessTokensRequired: Bool?
    /// `resource_name` (§2): a name for people (server text: escape before showing).
    public var resourceName: String?

    public init(resource: String, authorizationServers: [String], scopesSupported: [String]? = nil, bearerMethodsSupported: [String]? = nil,
                dpopSigningAlgValuesSupported: [String]? = nil, dpopBoundAccessTokensRequired: Bool? = nil, resourceName: String? = nil) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.scopesSupported = scopesSupported
        self.bearerMethodsSupported = bearerMethodsSupported
        self.dpopSigningAlgValuesSupported = dpopSigningAlgValuesSupported
        self.dpopBoundAccessTokensRequired = dpopBoundAccessTokensRequired
        self.resourceName = resourceName
    }

    /// Whether the resource asks for DPoP (it advertises algorithms, or requires bound tokens).
    public var wantsDPoP: Bool { dpopSigningAlgValuesSupported?.isEmpty == false || dpopBoundAccessTokensRequired == true }
}

/// Where a protected-resource metadata document was looked for (RFC 9728 §3.1, §5.1).
public enum ProtectedResourceMetadataLocation: Sendable, Equatable {
    /// The `resource_metadata` URL of the resource's challenge (§5.1).
    case challenge
    /// `/.well-known/oauth-protected-resource` inserted between the host and the resource's path (§3.1).
    case pathInserted
    /// `/.well-known/oauth-protected-resource` at the root of the resource's origin (MCP
    /// authorization: the fallback after the path-inserted URL).
    case root
}

/// RFC 9728 §3: request builders and the response rule.
public enum ProtectedResourceDiscovery {
    /// The well-known URLs for `resource`, in the order they are tried: path-inserted (when the
    /// resource has a path other than `/`), then the root (RFC 9728 §3.1; MCP authorization
    /// "Protected Resource Metadata Discovery Requirements"). The resource's query is dropped
    /// (§3.1: "any terminating slash … and query … removed" for the identifier's path).
    /// - Throws: `.unsupported(.insecureURL)`, `.unsupported(.invalidResourceIndicator)`, `.unsupported(.credentialsInResourceIndicator)`.
    public static func wellKnownURLs(resource: String) throws(AuthError) -> [(URL, ProtectedResourceMetadataLocation)] {
        try validateResourceIndicator(resource)
        guard let components = URLComponents(string: resource), let scheme = components.scheme, let host = components.percentEncodedHost,
              !host.isEmpty, let url = URL(string: resource), components.fragment == nil else {
            throw .unsupported(.invalidResourceIndicator(resource))
        }
        try URLPolicy.requireSecure(url)
        let port = components.port.map { ":\($0)" } ?? ""
        let origin = "\(scheme)://\(host)\(port)"
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        var urls: [(URL, ProtectedResourceMetadataLocation)] = []
        if !path.isEmpty, let inserted = URL(string: origin + "/.well-known/oauth-protected-resource" + path) {
            urls.append((inserted, .pathInserted))
        }
        if let root = URL(string: origin + "/.well-known/oauth-protected-resource") { urls.append((root, .root)) }
        return urls
    }

    /// The origin of `resource` (`scheme://host[:port]`, as written), or nil.
    public static func origin(of resource: String) -> String? {
        guard let components = URLComponents(string: resource), let scheme = components.scheme, let host = components.percentEncodedHost else {
            return nil
        }
        return "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")"
    }

    /// `GET url` with `Accept: application/json`; no credentials, no redirect followed (the caller
    /// follows one to the same origin only).
    public static func makeRequest(url: URL) -> HTTPRequest {
        HTTPRequest(method: .get, url: url, headers: [HTTPHeader("Accept", "application/json")], followRedirects: false)
    }

    /// The identifiers a document found at `location` may carry as its `resource` for the URL
    /// asked for (RFC 9728 §3.3: "identical to the protected resource's resource identifier value
    /// into which the well-known URI string was inserted"): from a challenge or the path-inserted
    /// URL, exactly `requested`; at the root, `requested` or its origin (the identifier the root
    /// URL is made from, §3.1) — then the origin is the resource the token is asked for.
    public static func acceptableResources(requested: String, location: ProtectedResourceMetadataLocation) -> [String] {
        switch location {
        case .challenge, .pathInserted: [requested]
        case .root: [requested] + (origin(of: requested).map { [$0] } ?? [])
        }
    }

    /// Validates a metadata response (RFC 9728 §3.2–3.3): HTTP 200, `application/json`, a
    /// `resource` identical (code unit for code unit) to one of ``acceptableResources(requested:location:)``,
    /// at least one authorization server, each an https (or loopback http) issuer identifier.
    /// - Throws: `.httpStatus`, `.protocolViolation(.unexpectedContentType / .malformedJSON /
    ///   .duplicateMember / .missingField / .invalidField / .protectedResourceMismatch)`,
    ///   `.unsupported(.insecureURL)`.
    public static func processResponse(_ response: HTTPResponse, requestedResource: String, location: ProtectedResourceMetadataLocation,
                                       requestURL: URL) throws(AuthError) -> ProtectedResourceMetadata {
        guard response.status == 200 else {
            throw .httpStatus(HTTPStatusFailure(status: response.status, url: requestURL.absoluteString))
        }
        guard response.mediaType == "application/json" else {
            throw .protocolViolation(.unexpectedContentType(expected: "application/json", actual: response.mediaType))
        }
        let object = try readJSONObject(response.body, context: "protected resource metadata")
        let resource = try object.requiredString("resource")
        let acceptable = acceptableResources(requested: requestedResource, location: location)
        guard acceptable.contains(where: { $0.exactlyEquals(resource) }) else {
            throw .protocolViolation(.protectedResourceMismatch(expected: requestedResource, actual: resource,
                                                                metadataURL: requestURL.absoluteString))
        }
        guard let servers = try object.optionalStringArray("authorization_servers"), !servers.isEmpty else {
            throw .protocolViolation(.missingField("authorization_servers"))
        }
        for server in servers { try Discovery.validateIssuerIdentifier(server) }
        return ProtectedResourceMetadata(
            resource: resource, authorizationServers: servers, scopesSupported: try object.optionalStringArray("scopes_supported"),
            bearerMethodsSupported: try object.optionalStringArray("bearer_methods_supported"),
            dpopSigningAlgValuesSupported: try object.optionalStringArray("dpop_signing_alg_values_supported"),
            dpopBoundAccessTokensRequired: try object.optionalBool("dpop_bound_access_tokens_required"),
            resourceName: try object.optionalString("resource_name"))
    }
}
