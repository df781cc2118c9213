import AuthEngine
import FoundationEssentials

/// What signing in to a resource by its URL asks for (`authdeck login URL`).
public struct ResourceSignInRequest: Equatable, Sendable {
    /// The resource's URL as given (`https://mcp.example.com/mcp`).
    public var resourceURL: String
    /// `--scope`: scopes added to the challenge's (or the metadata's `scopes_supported`).
    public var extraScopes: [String]
    /// `--client-metadata-url`: a client id metadata document's URL, used as the `client_id` where
    /// the server advertises `client_id_metadata_document_supported`.
    public var clientMetadataURL: String?
    /// The authorization server picked among several (an issuer of `authorization_servers`).
    public var authorizationServer: String?
    public var alias: String?
    public var noBrowser: Bool

    public init(resourceURL: String, extraScopes: [String] = [], clientMetadataURL: String? = nil, authorizationServer: String? = nil,
                alias: String? = nil, noBrowser: Bool = false) {
        self.resourceURL = resourceURL
        self.extraScopes = extraScopes
        self.clientMetadataURL = clientMetadataURL
        self.authorizationServer = authorizationServer
        self.alias = alias
        self.noBrowser = noBrowser
    }
}

/// Steps 1–2 found: the resource's metadata, and where (RFC 9728).
public struct ResourceDiscovery: Equatable, Sendable {
    /// The URL asked for.
    public var requestedURL: String
    public var metadata: ProtectedResourceMetadata
    public var metadataURL: String
    public var location: ProtectedResourceMetadataLocation
    /// The challenge's `scope` (RFC 6750 §3), when it had one.
    public var challengeScope: [String]?
    /// The resource indicator every token request names: the metadata's `resource`.
    public var resource: String { metadata.resource }

    public init(requestedURL: String, metadata: ProtectedResourceMetadata, metadataURL: String, location: ProtectedResourceMetadataLocation,
                challengeScope: [String]? = nil) {
        self.requestedURL = requestedURL
        self.metadata = metadata
        self.metadataURL = metadataURL
        self.location = location
        self.challengeScope = challengeScope
    }
}

/// Where the client comes from (step 4), decided before anything is registered.
public enum ResourceClientPlan: Equatable, Sendable {
    /// The provider made for this resource and server earlier: signed in again with it.
    case existingProvider(ProviderID)
    /// A provider for the same issuer (configured by hand, or made for another resource): its client.
    case sharedClient(from: ProviderID)
    /// The client id metadata document URL as the `client_id`.
    case metadataDocument(String)
    /// RFC 7591 registration at this endpoint.
    case register(URL)
}

/// Step 3 done and step 4 decided: what the person confirms before anything is registered or opened.
public struct ResourceSignInPlan: Equatable, Sendable {
    public var discovery: ResourceDiscovery
    public var authorizationServer: AuthorizationServerMetadata
    /// Where the server's metadata was found.
    public var discoveryKind: DiscoveryKind
    public var metadataURL: String
    public var client: ResourceClientPlan
    /// The provider signed in with: the existing one, or the name the new one gets (from the host).
    public var providerID: ProviderID
    /// The scopes the new provider asks for (the challenge's, else `scopes_supported`).
    public var scopes: [String]
    /// Notes for the person (a metadata document the server does not take, …).
    public var notes: [String]

    public init(discovery: ResourceDiscovery, authorizationServer: AuthorizationServerMetadata, discoveryKind: DiscoveryKind, metadataURL: String,
                client: ResourceClientPlan, providerID: ProviderID, scopes: [String], notes: [String] = []) {
        self.discovery = discovery
        self.authorizationServer = authorizationServer
        self.discoveryKind = discoveryKind
        self.metadataURL = metadataURL
        self.client = client
        self.providerID = providerID
        self.scopes = scopes
        self.notes = notes
    }
}

extension ResourceSignInPlan {
    /// What the person confirms, one line each: the resource, its metadata, the authorization
    /// server, the client, the provider, whose tokens the resource receives (the account signed
    /// in as at that server, for it alone), the scopes and whether tokens are bound to a key.
    /// Server text: escape before showing.
    public var summaryLines: [String] {
        let client = switch self.client {
        case .existingProvider(let id): "provider '\(id)' (made for this resource earlier)"
        case .sharedClient(let from): "the client of provider '\(from)' (same authorization server)"
        case .metadataDocument(let url): "client id metadata document \(url)"
        case .register(let endpoint): "a new registration at \(endpoint.absoluteString) (RFC 7591), kept for this server"
        }
        var lines = [
            "Resource:             \(discovery.resource)",
            "Its metadata:         \(discovery.metadataURL)",
            "Authorization server: \(authorizationServer.issuer)",
            "Client:               \(client)",
            "Provider:             \(providerID)",
            "It receives:          tokens of the account you sign in as at \(authorizationServer.issuer), for \(discovery.resource) alone"
                + " (RFC 8707)",
        ]
        if !scopes.isEmpty { lines.append("Scopes:               \(scopes.joined(separator: " "))") }
        if discovery.metadata.wantsDPoP { lines.append("Tokens:               bound to a key (DPoP, RFC 9449)") }
        return lines
    }
}
