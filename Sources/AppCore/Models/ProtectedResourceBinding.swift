import AuthEngine
import FoundationEssentials
import TextSupport

/// What makes a provider one for a protected resource (`authdeck login URL`, RFC 9728): the
/// resource its tokens are for, where its metadata and its authorization server's metadata were
/// found, and where its client came from. Non-secret (the registration's secrets live under the
/// provider's client key in the credential store).
///
/// Such a provider's every token request names the resource (RFC 8707 `resource` in the
/// authorization request, the code exchange and each refresh of its default token: MCP
/// authorization "Resource Parameter Implementation"), and its authorization responses must carry
/// `iss` (RFC 9207) whatever its metadata says.
public struct ProtectedResourceBinding: Equatable, Sendable {
    /// Where the client id came from.
    public enum ClientOrigin: String, Equatable, Sendable, CaseIterable {
        /// RFC 7591 dynamic registration, made for this provider (``registration``).
        case registered
        /// A client id metadata document URL given with `--client-metadata-url`.
        case metadataDocument = "metadata-document"
        /// The client of another provider for the same issuer (``sharedFrom``).
        case shared
    }

    /// The RFC 8707 resource indicator: the metadata's `resource` (RFC 9728 §3.3).
    public var resource: String
    /// The protected-resource metadata's URL.
    public var metadataURL: String
    /// Where the authorization server's metadata is (RFC 8414 path-inserted, OpenID path-inserted or appended).
    public var discovery: DiscoveryKind
    public var clientOrigin: ClientOrigin
    /// The provider whose client this one uses (``ClientOrigin/shared``).
    public var sharedFrom: ProviderID?
    /// The registration's non-secret part (``ClientOrigin/registered``).
    public var registration: ClientRegistrationRecord?
    /// The loopback redirect URI registered with its port (`http://127.0.0.1:PORT/callback`), for
    /// servers that compare redirect URIs exactly (the reference MCP SDK; RFC 8252 §7.3 allows
    /// any port): each sign-in listens on that port when it is free.
    public var redirectURI: String?

    /// Where the client came from, for people (`status`, the accounts screen): "registered
    /// 2026-12-02T03:00:00Z (https://as.example/register/c1)", "client id metadata document",
    /// "client of provider P".
    public var clientDescription: String {
        switch clientOrigin {
        case .registered:
            let when = registration.map { " " + Date.ISO8601FormatStyle().format($0.registeredAt) } ?? ""
            return "registered\(when)" + (registration?.registrationClientURI.map { " (\($0.absoluteString))" } ?? "")
        case .metadataDocument: return "client id metadata document"
        case .shared: return "client of provider \(sharedFrom?.rawValue ?? "?")"
        }
    }

    /// The port of ``redirectURI``.
    public var redirectPort: UInt16? { redirectURI.flatMap { URLComponents(string: $0)?.port }.flatMap { UInt16(exactly: $0) } }

    public init(resource: String, metadataURL: String, discovery: DiscoveryKind, clientOrigin: ClientOrigin, sharedFrom: ProviderID? = nil,
                registration: ClientRegistrationRecord? = nil) {
        self.resource = resource
        self.metadataURL = metadataURL
        self.discovery = discovery
        self.clientOrigin = clientOrigin
        self.sharedFrom = sharedFrom
        self.registration = registration
    }
}

/// The non-secret part of an RFC 7591 registration (RFC 7591 §3.2.1, RFC 7592 §3).
public struct ClientRegistrationRecord: Equatable, Sendable {
    /// When authdeck registered.
    public var registeredAt: Date
    /// `registration_client_uri`: where RFC 7592 deletes it.
    public var registrationClientURI: URL?
    /// `client_secret_expires_at`; nil: no secret, or one that never expires.
    public var clientSecretExpiresAt: Date?
    /// The `registration_endpoint` registered at (RFC 7591 §3): the origin the registration access
    /// token may be sent to (nil in records kept before it was: read from the server's metadata).
    public var registrationEndpoint: URL?

    public init(registeredAt: Date, registrationClientURI: URL? = nil, clientSecretExpiresAt: Date? = nil, registrationEndpoint: URL? = nil) {
        self.registeredAt = registeredAt
        self.registrationClientURI = registrationClientURI
        self.clientSecretExpiresAt = clientSecretExpiresAt
        self.registrationEndpoint = registrationEndpoint
    }
}

extension DiscoveryKind {
    /// The name kept in `providers.json`: the well-known document and where it sits.
    public var storedName: String {
        switch self {
        case .oauthAuthorizationServer: "oauth-authorization-server"
        case .openIDConnectPathInserted: "openid-configuration-inserted"
        case .openIDConnect: "openid-configuration"
        }
    }

    init?(storedName: String) {
        let kinds = [DiscoveryKind.oauthAuthorizationServer, .openIDConnectPathInserted, .openIDConnect]
        guard let kind = kinds.first(where: { $0.storedName == storedName }) else {
            return nil
        }
        self = kind
    }
}

extension ProtectedResourceBinding {
    /// `resource`, `metadataURL`, `discovery`, `clientOrigin` required; `sharedFrom`, `registration`, `redirectURI` optional.
    /// - Throws: ``JSONShapeError`` naming the member.
    public init(json reader: JSONReader) throws(JSONShapeError) {
        let name = try reader.string("discovery")
        guard let discovery = DiscoveryKind(storedName: name) else {
            throw reader.shapeError("discovery", expected: "one of oauth-authorization-server, openid-configuration-inserted, openid-configuration")
        }
        try self.init(resource: reader.string("resource"), metadataURL: reader.string("metadataURL"), discovery: discovery,
                      clientOrigin: reader.choice("clientOrigin"), sharedFrom: reader.optionalString("sharedFrom").map { ProviderID($0) },
                      registration: reader.optionalReader("registration").map { (reader) throws(JSONShapeError) in
                          guard let registeredAt = try reader.optionalDate("registeredAt", .secondsSince1970) else {
                              throw reader.shapeError("registeredAt", expected: "seconds since 1970")
                          }
                          return ClientRegistrationRecord(registeredAt: registeredAt,
                                                          registrationClientURI: try reader.optionalURL("registrationClientURI"),
                                                          clientSecretExpiresAt: try reader.optionalDate("clientSecretExpiresAt", .secondsSince1970),
                                                          registrationEndpoint: try reader.optionalURL("registrationEndpoint"))
                      })
        redirectURI = try reader.optionalString("redirectURI")
    }

    public var json: JSONValue {
        .object(omittingNil: [
            "resource": .string(resource), "metadataURL": .string(metadataURL), "discovery": .string(discovery.storedName),
            "clientOrigin": .string(clientOrigin.rawValue), "sharedFrom": sharedFrom.map { .string($0.rawValue) },
            "redirectURI": redirectURI.map(JSONValue.string),
            "registration": registration.map { registration in
                .object(omittingNil: [
                    "registeredAt": .date(registration.registeredAt, .secondsSince1970),
                    "registrationClientURI": registration.registrationClientURI.map { .string($0.absoluteString) },
                    "clientSecretExpiresAt": registration.clientSecretExpiresAt.map { .date($0, .secondsSince1970) },
                    "registrationEndpoint": registration.registrationEndpoint.map { .string($0.absoluteString) },
                ])
            },
        ])
    }
}

/// How an account signed in by a resource's URL is named when its authorization server names
/// nobody (no `name`, `preferred_username` or `email` in the ID token or userinfo): by the resource,
/// as a person reads it.
public enum ResourceAccountName {
    /// `host[:port]/path` of `resource` (RFC 3986 §3.2.2: the host lower-cased; no scheme, query or
    /// trailing `/`): `127.0.0.1:8123/mcp`, `mcp.example.com`. The resource itself when it is not a URI.
    public static func label(_ resource: String) -> String {
        guard let parts = URIParts(resource) else { return resource }
        var path = Substring(parts.path)
        while path.hasSuffix("/") { path = path.dropLast() }
        return parts.hostAndPort.asciiLowercased + path
    }
}

