import AuthEngine
import FoundationEssentials

/// A provider whose accounts are machines: tokens by the client credentials grant (RFC 6749
/// §4.4), no browser, no person, no refresh token. In `providers.json` as the `clientCredentials`
/// object: `{"assertionAudience": "token_endpoint"}` (every member optional).
public struct ClientCredentialsSettings: Equatable, Sendable {
    /// `private_key_jwt`: the `aud` of the client assertions (RFC 7523 §3 item 3); nil: the token endpoint.
    public var assertionAudience: ClientAssertionAudience?
    /// A federated client assertion read fresh for every request (``ClientAssertionSource``);
    /// nil: the client authenticates with its stored secret or key.
    public var assertionSource: ClientAssertionSource?

    public init(assertionAudience: ClientAssertionAudience? = nil, assertionSource: ClientAssertionSource? = nil) {
        self.assertionAudience = assertionAudience
        self.assertionSource = assertionSource
    }

    /// The `aud` of a client assertion for `metadata`'s server: its token endpoint, or its issuer.
    /// - Throws: `.unsupported(.missingEndpoint("token_endpoint"))` without a token endpoint.
    public func audience(_ metadata: AuthorizationServerMetadata) throws(AuthError) -> String {
        switch assertionAudience ?? .tokenEndpoint {
        case .issuer: return metadata.issuer
        case .tokenEndpoint:
            guard let endpoint = metadata.tokenEndpoint else { throw .unsupported(.missingEndpoint("token_endpoint")) }
            return endpoint.absoluteString
        }
    }
}

/// What a client assertion names as its audience (RFC 7523 §3: the authorization server; OIDC
/// Core §9: the token endpoint; draft-ietf-oauth-rfc7523bis: the issuer).
public enum ClientAssertionAudience: String, Equatable, Sendable, CaseIterable {
    case tokenEndpoint = "token_endpoint"
    case issuer
}

extension ProviderConfig {
    /// Whether the provider's accounts are machine accounts (``clientCredentials`` set).
    public var isMachine: Bool { clientCredentials != nil }
}

extension ClientCredentialsSettings {
    /// Reads the `clientCredentials` object.
    /// - Throws: ``JSONShapeError`` naming the member.
    public init(json reader: JSONReader) throws(JSONShapeError) {
        self.init(assertionAudience: try reader.optionalChoice("assertionAudience"),
                  assertionSource: try reader.optionalReader("assertionSource").map { (reader) throws(JSONShapeError) in
                      try ClientAssertionSource(json: reader)
                  })
    }

    public var json: JSONValue {
        .object(omittingNil: ["assertionAudience": assertionAudience.map { .string($0.rawValue) }, "assertionSource": assertionSource?.json])
    }
}
