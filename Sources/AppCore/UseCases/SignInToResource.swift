import AuthEngine
import CredentialStore
import FoundationEssentials
import TextSupport

/// Signing in to a resource by its URL: the protected-resource metadata (RFC 9728), the
/// authorization server's metadata (RFC 8414, OpenID discovery), the client (configured, client
/// id metadata document, or RFC 7591 registration kept per issuer), then ``SignIn`` with the
/// resource in the authorization and token requests (RFC 8707) and `iss` required (RFC 9207).
///
/// Discovery requests go through `env.http(nil)` with no token and no cookie, follow redirects to
/// the same origin only, and refuse a resource on `http://` off loopback.
public struct SignInToResource: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// Redirects followed within one origin per discovery request.
    static let maximumRedirects = 5

    /// Whether a `login` argument means a resource: an absolute `http(s)` URL that is not the name
    /// of a configured provider.
    public static func isResourceURL(_ argument: String, providers: [ProviderConfig]) -> Bool {
        guard !providers.contains(where: { $0.id.rawValue.utf8.elementsEqual(argument.utf8) }),
              let components = URLComponents(string: argument), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", components.host?.isEmpty == false else { return false }
        return true
    }

    /// A resource's URL carries no user name or password (RFC 9728 §1.2: a resource identifier is
    /// a URL; RFC 3986 §3.2.1: credentials in one are deprecated): refused before anything is
    /// sent (HTTP would send them as Basic authentication), shown (the plan's lines) or stored
    /// (`resource=` in every request, `providers.json`). The message shows the URL without them.
    /// - Throws: ``AppError`` (`.usage`).
    public static func refuseCredentials(in resourceURL: String) throws(AppError) {
        let parts = URIParts(resourceURL)
        guard parts?.userinfo != nil || (parts == nil && URLPolicy.redactingUserInfo(resourceURL) != resourceURL) else { return }
        throw AppError(title: "The resource URL carries a user name or password",
                       detail: "A resource is named by its URL alone (RFC 9728 §1.2, RFC 8707 §2); authdeck signs in with tokens and never sends"
                           + " the resource a password. Give it without 'user:password@': "
                           + (parts?.withoutUserinfo ?? URLPolicy.redactingUserInfo(resourceURL)),
                       specReference: "RFC 9728 §1.2, RFC 3986 §3.2.1", disposition: .usage)
    }

    /// A client id metadata document's URL (`--client-metadata-url`), which becomes the
    /// `client_id` sent to the server and kept in `providers.json`: an https URL (http only on a
    /// loopback address) without a user name or password (which would go with it everywhere)
    /// and without a fragment; refused
    /// otherwise without echoing what may be a password.
    /// - Throws: ``AppError`` (`.usage`).
    public static func checkClientMetadataURL(_ document: String) throws(AppError) {
        let parts = URIParts(document)
        guard let parts, parts.userinfo == nil, parts.fragment == nil,
              parts.scheme.utf8.elementsEqual("https".utf8)
                || (parts.scheme.utf8.elementsEqual("http".utf8) && URLPolicy.isLoopbackIPLiteral(parts.host)) else {
            let shown = parts.map { "\($0.scheme)://\($0.hostAndPort)\($0.path)" + ($0.query.map { "?\($0)" } ?? "") }
                ?? "(not shown: it is not a URL)"
            throw AppError(title: "--client-metadata-url must be an https URL (http only on loopback) without user name, password or fragment",
                           detail: "Got \(shown). A client id metadata document is named by its https URL alone: it is the client_id the"
                               + " server sees and fetches.", disposition: .usage)
        }
    }

    // MARK: - Steps 1–2

    /// The resource's challenge, then its protected-resource metadata: the challenge's
    /// `resource_metadata` (RFC 9728 §5.1; Bearer, else DPoP), else the path-inserted well-known
    /// URL, then the root (§3.1). The document's `resource` must be the URL asked for (§3.3; at the
    /// root also its origin).
    /// - Throws: ``AppError`` from ``AuthError/resourceStep(_:url:cause:)`` naming the step and URL.
    public func discover(_ resourceURL: String) async throws(AppError) -> ResourceDiscovery {
        try Self.refuseCredentials(in: resourceURL)
        do throws(AuthError) {
            let candidates: [(URL, ProtectedResourceMetadataLocation)]
            let wellKnown: [(URL, ProtectedResourceMetadataLocation)]
            do throws(AuthError) {
                wellKnown = try ProtectedResourceDiscovery.wellKnownURLs(resource: resourceURL)
            } catch {
                throw .resourceStep(.resourceChallenge, url: resourceURL, cause: error)
            }
            guard let url = URL(string: resourceURL) else {
                throw .resourceStep(.resourceChallenge, url: resourceURL, cause: .unsupported(.invalidResourceIndicator(resourceURL)))
            }
            let probe = HTTPRequest(method: .get, url: url, headers: [HTTPHeader("Accept", "application/json, text/event-stream")])
            let (response, _) = try await fetch(probe, step: .resourceChallenge)
            let challenge = BearerChallenge.challenges(in: response).challenges.preferred
            if let named = challenge?.resourceMetadata {
                guard let metadataURL = URL(string: named) else {
                    throw .resourceStep(.resourceChallenge, url: resourceURL,
                                        cause: .protocolViolation(.invalidField(name: "resource_metadata", expected: "a URL")))
                }
                do throws(AuthError) { try URLPolicy.requireSecure(metadataURL) } catch {
                    throw .resourceStep(.resourceChallenge, url: resourceURL, cause: error)
                }
                candidates = [(metadataURL, .challenge)]
            } else {
                candidates = wellKnown
            }
            var lastFailure: AuthError?
            for (candidate, location) in candidates {
                let (answer, answeredURL) = try await fetch(ProtectedResourceDiscovery.makeRequest(url: candidate), step: .protectedResourceMetadata)
                // A well-known URL that is not there: the next one (RFC 9728 §3, MCP's order).
                if location != .challenge, answer.status != 200, (400..<500).contains(answer.status) {
                    lastFailure = .resourceStep(.protectedResourceMetadata, url: candidate.absoluteString,
                                                cause: .httpStatus(HTTPStatusFailure(status: answer.status, url: candidate.absoluteString)))
                    continue
                }
                do throws(AuthError) {
                    let metadata = try ProtectedResourceDiscovery.processResponse(answer, requestedResource: resourceURL, location: location,
                                                                                  requestURL: answeredURL)
                    return ResourceDiscovery(requestedURL: resourceURL, metadata: metadata, metadataURL: candidate.absoluteString, location: location,
                                             challengeScope: challenge?.scope)
                } catch {
                    throw .resourceStep(.protectedResourceMetadata, url: candidate.absoluteString, cause: error)
                }
            }
            throw lastFailure ?? .resourceStep(.protectedResourceMetadata, url: resourceURL,
                                               cause: .protocolViolation(.missingField("resource_metadata")))
        } catch {
            throw ErrorMapping.appError(error)
        }
    }

    // MARK: - Steps 3–4 (decided, nothing written)

    /// The chosen authorization server's metadata (RFC 8414 path-inserted, OpenID path-inserted,
    /// OpenID appended; `issuer` identical; `S256` required) and where the client comes from.
    /// - Throws: `.usage` when several servers are listed and none (or another) is picked;
    ///   ``AuthError/resourceStep(_:url:cause:)`` errors; file errors.
    public func plan(_ discovery: ResourceDiscovery, _ request: ResourceSignInRequest) async throws(AppError) -> ResourceSignInPlan {
        if let document = request.clientMetadataURL { try Self.checkClientMetadataURL(document) }
        let servers = discovery.metadata.authorizationServers
        let issuer: String
        if let picked = request.authorizationServer {
            if let problem = ProviderConfig.credentialsProblem(picked) {
                throw AppError(title: "--authorization-server: \(problem)", detail: "Give the issuer without `user:password@`.", disposition: .usage)
            }
            guard let match = servers.first(where: { $0.exactlyEquals(picked) }) else {
                throw AppError(title: "\(picked) is not an authorization server of \(discovery.resource)",
                               detail: "Its metadata names: \(servers.joined(separator: ", ")).", disposition: .usage)
            }
            issuer = match
        } else if servers.count == 1 {
            issuer = servers[0]
        } else {
            throw AppError(title: "\(discovery.resource) names \(servers.count) authorization servers",
                           detail: "Pick one with --authorization-server: \(servers.joined(separator: ", ")).", disposition: .usage)
        }
        let (metadata, kind, metadataURL) = try await authorizationServerMetadata(issuer)
        let providers = try env.files.providers()
        var notes: [String] = []
        let client: ResourceClientPlan
        let providerID: ProviderID
        if let existing = providers.first(where: {
            $0.protectedResource?.resource.exactlyEquals(discovery.resource) == true && $0.issuer?.absoluteString.exactlyEquals(issuer) == true
        }) {
            client = .existingProvider(existing.id)
            providerID = existing.id
        } else {
            providerID = Self.providerName(for: discovery.resource, taken: providers.map(\.id))
            if let shared = providers.first(where: { $0.issuer?.absoluteString.exactlyEquals(issuer) == true }) {
                client = .sharedClient(from: shared.protectedResource?.sharedFrom ?? shared.id)
            } else if let document = request.clientMetadataURL, metadata.clientIDMetadataDocumentSupported == true {
                client = .metadataDocument(document)
            } else if let endpoint = metadata.registrationEndpoint {
                if request.clientMetadataURL != nil {
                    notes.append("\(issuer) does not advertise client_id_metadata_document_supported; registering a client instead (RFC 7591).")
                }
                client = .register(endpoint)
            } else {
                let how = metadata.clientIDMetadataDocumentSupported == true
                    ? "It takes a client id metadata document: give its URL with --client-metadata-url."
                    : "Register a client there by hand and add it: "
                        + "authdeck provider add NAME --issuer \(issuer) --client-id ID --resource \(discovery.resource)."
                throw AppError(title: "\(issuer) offers no client registration", detail: "Its metadata has no registration_endpoint. " + how,
                               specReference: "RFC 7591 §3, RFC 8414 §2", disposition: .usage)
            }
        }
        let scopes = discovery.challengeScope ?? discovery.metadata.scopesSupported ?? []
        return ResourceSignInPlan(discovery: discovery, authorizationServer: metadata, discoveryKind: kind, metadataURL: metadataURL, client: client,
                                  providerID: providerID, scopes: scopes, notes: notes)
    }

    /// RFC 8414 §3 / OpenID Discovery §4 at each location of ``DiscoveryKind/chain(issuer:)``; a
    /// location that answers 4xx is skipped, anything else decides.
    private func authorizationServerMetadata(_ issuer: String) async throws(AppError) -> (AuthorizationServerMetadata, DiscoveryKind, String) {
        do throws(AuthError) {
            var lastFailure: AuthError?
            for kind in DiscoveryKind.chain(issuer: issuer) {
                var request: HTTPRequest
                do throws(AuthError) { request = try Discovery.makeRequest(issuer: issuer, kind: kind) } catch {
                    throw .resourceStep(.authorizationServerMetadata, url: issuer, cause: error)
                }
                request.followRedirects = false
                let (response, answeredURL) = try await fetch(request, step: .authorizationServerMetadata)
                if (400..<500).contains(response.status) {
                    lastFailure = .resourceStep(.authorizationServerMetadata, url: request.url.absoluteString,
                                                cause: .httpStatus(HTTPStatusFailure(status: response.status, url: request.url.absoluteString)))
                    continue
                }
                do throws(AuthError) {
                    let metadata = try Discovery.processResponse(response, expectedIssuer: issuer, requestURL: answeredURL, kind: kind)
                    try Discovery.requireS256(metadata)
                    return (metadata, kind, request.url.absoluteString)
                } catch {
                    throw .resourceStep(.authorizationServerMetadata, url: request.url.absoluteString, cause: error)
                }
            }
            throw lastFailure ?? .resourceStep(.authorizationServerMetadata, url: issuer, cause: .unsupported(.missingEndpoint("issuer")))
        } catch {
            throw ErrorMapping.appError(error)
        }
    }

    // MARK: - Step 4 and sign-in

    /// Makes the provider (registering a client when the plan says so, the registration's secrets
    /// saved before the provider that points at them), then signs in with ``SignIn``.
    /// - Throws: ``AppError`` (registration refusals name the server's `error`/`error_description`).
    public func run(_ plan: ResourceSignInPlan, _ request: ResourceSignInRequest,
                    progress: @escaping @Sendable (SignInProgress) -> Void) async throws(AppError) -> SignInOutcome {
        switch plan.client {
        case .existingProvider:
            break
        case .sharedClient(let from):
            let source = try ProviderAccess(env: env).provider(from)
            var secrets: AccountSecrets?
            if source.clientAuthentication != .none {
                do { secrets = try env.credentials.store().loadIfPresent(.providerClient(from.rawValue)) } catch {
                    throw ErrorMapping.appError(error)
                }
            }
            var provider = makeProvider(plan, clientID: source.clientID, origin: .shared)
            provider.clientAuthentication = source.clientAuthentication
            provider.protectedResource?.sharedFrom = from
            try save(provider, secrets: secrets.flatMap { $0.clientSecret.map { AccountSecrets(clientSecret: $0) } })
        case .metadataDocument(let url):
            try save(makeProvider(plan, clientID: url, origin: .metadataDocument), secrets: nil)
        case .register(let endpoint):
            try env.credentials.prepareForWrite()
            // The exact redirect URI (a free port now) besides the port-less one: some servers
            // compare exactly (the reference MCP SDK), RFC 8252 §7.3 servers ignore the port.
            let exact: String
            do {
                let probe = try env.loopback.listen("/callback")
                exact = probe.redirectURI.absoluteString
                probe.close()
            } catch {
                throw ErrorMapping.appError(error)
            }
            let registration = try await register(plan, endpoint: endpoint, redirectURIs: [exact, Self.redirectURI])
            var provider = makeProvider(plan, clientID: registration.clientID, origin: .registered)
            provider.protectedResource?.redirectURI = exact
            provider.protectedResource?.registration = ClientRegistrationRecord(
                registeredAt: env.now(), registrationClientURI: registration.registrationClientURI,
                clientSecretExpiresAt: registration.clientSecretExpiresAt, registrationEndpoint: endpoint)
            if registration.clientSecret != nil {
                provider.clientAuthentication = registration.tokenEndpointAuthMethod.flatMap(ClientAuthenticationMethod.init(rawValue:))
                    ?? .clientSecretBasic
                if provider.clientAuthentication == .none { provider.clientAuthentication = .clientSecretBasic }
            }
            var secrets = AccountSecrets()
            secrets.clientSecret = registration.clientSecret.map { StoredClientSecret($0.exposedValue) }
            secrets.registrationAccessToken = registration.registrationAccessToken.map { StoredRegistrationAccessToken($0.exposedValue) }
            try save(provider, secrets: secrets == AccountSecrets() ? nil : secrets)
        }
        return try await SignIn(env).run(SignInRequest(providerID: plan.providerID, extraScopes: request.extraScopes, alias: request.alias,
                                                       noBrowser: request.noBrowser), progress: progress)
    }

    /// RFC 7591 §3: a native public client with the loopback redirect URI (any port, RFC 8252 §7.3).
    private func register(_ plan: ResourceSignInPlan, endpoint: URL, redirectURIs: [String]) async throws(AppError) -> ClientRegistration {
        let url = endpoint.absoluteString
        do throws(AuthError) {
            let body = ClientRegistrationRequest(redirectURIs: redirectURIs, scope: plan.scopes.isEmpty ? nil : plan.scopes)
            let request: HTTPRequest
            do throws(AuthError) { request = try makeClientRegistrationRequest(metadata: plan.authorizationServer, request: body) } catch {
                throw .resourceStep(.clientRegistration, url: url, cause: error)
            }
            let response: HTTPResponse
            do { response = try await env.http(nil).send(request) } catch {
                throw .resourceStep(.clientRegistration, url: url, cause: .transport(error))
            }
            do throws(AuthError) { return try processClientRegistrationResponse(response, requestURL: endpoint, now: env.now()) } catch {
                throw .resourceStep(.clientRegistration, url: url, cause: error)
            }
        } catch {
            throw ErrorMapping.appError(error)
        }
    }

    /// The redirect URI registered besides the exact one: the loopback listener's without its port (RFC 8252 §7.3).
    public static let redirectURI = "http://127.0.0.1/callback"

    private func makeProvider(_ plan: ResourceSignInPlan, clientID: String, origin: ProtectedResourceBinding.ClientOrigin) -> ProviderConfig {
        var provider = ProviderConfig(id: plan.providerID, displayName: ResourceAccountName.label(plan.discovery.resource),
                                      issuer: URL(string: plan.authorizationServer.issuer),
                                      clientID: clientID,
                                      scopes: plan.scopes, resources: [plan.discovery.resource])
        provider.protectedResource = ProtectedResourceBinding(resource: plan.discovery.resource, metadataURL: plan.discovery.metadataURL,
                                                              discovery: plan.discoveryKind, clientOrigin: origin)
        // RFC 9728 §2: a resource that takes only DPoP-bound tokens gets DPoP whatever the server's metadata says.
        if plan.discovery.metadata.dpopBoundAccessTokensRequired == true { provider.dpop = .always }
        return provider
    }

    /// The secrets first, then the provider that points at them.
    private func save(_ provider: ProviderConfig, secrets: AccountSecrets?) throws(AppError) {
        if let secrets {
            do { try env.credentials.store().save(secrets, for: .providerClient(provider.id.rawValue)) } catch { throw ErrorMapping.appError(error) }
        }
        try env.files.saveProvider(provider)
        env.cache.remove(provider.id)
    }

    /// The new provider's name: the resource's host, else host and path (`127.0.0.1-ok-mcp`), else numbered.
    static func providerName(for resource: String, taken: [ProviderID]) -> ProviderID {
        let components = URLComponents(string: resource)
        let host = components?.host ?? "resource"
        let path = (components?.path ?? "").split(separator: "/").joined(separator: "-")
        let isTaken = { (name: String) in taken.contains { $0.rawValue.utf8.elementsEqual(name.utf8) } }
        for candidate in [host, path.isEmpty ? host : "\(host)-\(path)"] where !isTaken(candidate) { return ProviderID(candidate) }
        var number = 2
        while isTaken("\(host)-\(number)") { number += 1 }
        return ProviderID("\(host)-\(number)")
    }

    // MARK: - HTTP

    /// Sends `request` (no credentials: discovery never carries a token or cookie), following
    /// 3xx within the same origin only (scheme, host, port).
    /// - Returns: the answer and the URL that gave it.
    /// - Throws: `.resourceStep(step, …)` with `.transport` or `.unsupported(.redirectToOtherOrigin)`.
    func fetch(_ request: HTTPRequest, step: ResourceSignInStep) async throws(AuthError) -> (HTTPResponse, URL) {
        var request = request
        request.followRedirects = false
        request.headers.removeAll { ["authorization", "cookie"].contains($0.name.lowercased()) }
        var hops = 0
        while true {
            let response: HTTPResponse
            do { response = try await env.http(nil).send(request) } catch {
                throw .resourceStep(step, url: request.url.absoluteString, cause: .transport(error))
            }
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"] else {
                return (response, request.url)
            }
            let from = request.url.absoluteString
            guard let next = URL(string: location, relativeTo: request.url)?.absoluteURL else {
                throw .resourceStep(step, url: from, cause: .protocolViolation(.invalidField(name: "Location", expected: "a URL")))
            }
            guard Self.sameOrigin(next, request.url), hops < Self.maximumRedirects else {
                throw .resourceStep(step, url: from, cause: .unsupported(.redirectToOtherOrigin(from: from, to: next.absoluteString)))
            }
            hops += 1
            request.url = next
        }
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }
}
