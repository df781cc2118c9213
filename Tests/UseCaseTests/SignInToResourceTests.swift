import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// A scripted protected resource (`https://mcp.example/mcp`) and its authorization server
/// (`https://as.example`), each answer changeable by a story; every request is recorded.
final class ResourceWorld: Sendable {
    let world = StubWorld()
    let requests = Mutex<[HTTPRequest]>([])
    /// Answers by "METHOD URL"; a story replaces any.
    let routes = Mutex<[String: HTTPResponse]>([:])
    let issuedCodes = Mutex(0)

    static let resource = "https://mcp.example/mcp"
    static let issuer = "https://as.example"

    static func json(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }

    static func prm(resource: String = resource, servers: [String] = [issuer], extra: String = "") -> HTTPResponse {
        json(#"{"resource":"\#(resource)","authorization_servers":[\#(servers.map { "\"\($0)\"" }.joined(separator: ","))],"scopes_supported":["mcp:read","mcp:write"]\#(extra)}"#)
    }

    static func asm(issuer: String = issuer, extra: String = #","code_challenge_methods_supported":["S256"]"#) -> HTTPResponse {
        json(#"{"issuer":"\#(issuer)","authorization_endpoint":"\#(issuer)/authorize","token_endpoint":"\#(issuer)/token","registration_endpoint":"\#(issuer)/register","response_types_supported":["code"]\#(extra)}"#)
    }

    init() {
        world.files.withLock { $0.providers = [] }
        routes.withLock {
            $0["GET https://mcp.example/mcp"] = HTTPResponse(status: 401, headers: [
                "WWW-Authenticate": #"Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope="mcp:read""#,
            ])
            $0["GET https://mcp.example/.well-known/oauth-protected-resource/mcp"] = Self.prm()
            $0["GET https://as.example/.well-known/oauth-authorization-server"] = Self.asm()
            $0["POST https://as.example/register"] = Self.json(#"{"client_id":"dcr-1","registration_access_token":"rat-1","registration_client_uri":"https://as.example/register/dcr-1"}"#, status: 201)
            $0["POST https://as.example/token"] = Self.json(#"{"access_token":"at-1","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-1","scope":"mcp:read"}"#)
            $0["DELETE https://as.example/register/dcr-1"] = HTTPResponse(status: 204)
        }
        // The browser approves: a code, the sent state and the server's `iss`.
        world.browserAction.withLock {
            $0 = { url in
                let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
                let state = query.first { $0.name == "state" }?.value ?? ""
                return [[("code", "code-1"), ("state", state), ("iss", Self.issuer)]]
            }
        }
    }

    func environment() -> AppEnvironment {
        var env = world.environment()
        env.http = { [self] _ in
            HTTPClient { request in
                self.requests.withLock { $0.append(request) }
                let key = "\(request.method.rawValue) \(request.url.absoluteString)"
                return self.routes.withLock { $0[key] } ?? HTTPResponse(status: 404)
            }
        }
        return env
    }

    func sent(_ method: String, _ url: String) -> [HTTPRequest] {
        requests.withLock { $0.filter { $0.method.rawValue == method && $0.url.absoluteString == url } }
    }

    func form(_ request: HTTPRequest) -> [String: String] {
        Dictionary((FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)) ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// Discover, plan and sign in, as `authdeck login URL --yes` does.
    func signIn(_ request: ResourceSignInRequest = ResourceSignInRequest(resourceURL: resource)) async throws -> (ResourceSignInPlan, SignInOutcome) {
        let useCase = SignInToResource(environment())
        let discovery = try await useCase.discover(request.resourceURL)
        let plan = try await useCase.plan(discovery, request)
        return (plan, try await useCase.run(plan, request, progress: { _ in }))
    }

    func expectError(_ request: ResourceSignInRequest = ResourceSignInRequest(resourceURL: resource),
                     _ check: (AppError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await signIn(request)
            Issue.record("the sign-in went through", sourceLocation: sourceLocation)
        } catch let error as AppError {
            #expect(check(error), "\(error.title) — \(error.detail)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }
}

@Suite("Sign in to a resource by its URL (use case, stub environment; RFC 9728, 8414, 7591, 8707, 9207)")
struct SignInToResourceTests {
    @Test("The whole chain: challenge, metadata, AS metadata, registration, then code + PKCE with resource in both requests")
    func wholeChain() async throws {
        let world = ResourceWorld()
        let (plan, outcome) = try await world.signIn()
        #expect(plan.client == .register(URL(string: "https://as.example/register")!))
        #expect(plan.providerID == "mcp.example")
        #expect(plan.scopes == ["mcp:read"], "the challenge's scope")
        let provider = try #require(world.world.files.withLock { $0.providers }.first)
        #expect(provider.clientID == "dcr-1")
        #expect(provider.resources == [ResourceWorld.resource])
        #expect(provider.protectedResource?.registration?.registrationClientURI?.absoluteString == "https://as.example/register/dcr-1")
        #expect(provider.protectedResource?.discovery == .oauthAuthorizationServer)
        let clientSecrets = try world.world.secrets.loadIfPresent(.providerClient("mcp.example"))
        #expect(clientSecrets?.registrationAccessToken?.exposedValue == "rat-1")
        // RFC 8707: the resource in the authorization request and in the code exchange.
        let authorization = try #require(world.world.browserOpened.withLock { $0.first })
        let query = URLComponents(url: authorization, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.filter { $0.name == "resource" }.map(\.value) == [ResourceWorld.resource])
        #expect(query.first { $0.name == "code_challenge_method" }?.value == "S256")
        let exchange = try #require(world.sent("POST", "https://as.example/token").first)
        #expect(world.form(exchange)["resource"] == ResourceWorld.resource)
        #expect(world.form(exchange)["code_verifier"] != nil)
        // The registration: a native public client with the loopback redirect URI.
        let registration = try #require(world.sent("POST", "https://as.example/register").first)
        let body = try parseJSONObject(registration.body ?? Data()).get()
        #expect(body["application_type"] == .string("native"))
        #expect(body["token_endpoint_auth_method"] == .string("none"))
        #expect(body["redirect_uris"] == .strings(["http://127.0.0.1:49152/callback", SignInToResource.redirectURI]))
        // The account is the grant for the resource, named by it (host and path).
        #expect(outcome.record.providerID == "mcp.example")
        #expect(outcome.record.displayName == "mcp.example/mcp")
        #expect(AccountResolution.handle(outcome.record) == "mcp.example/mcp.example")
        #expect(world.world.storedSecrets(ResourceWorld.resource).map { _ in true } == nil)
        let key = AccountKey(provider: "mcp.example", account: ResourceWorld.resource)
        #expect(try world.world.secrets.loadIfPresent(key)?.defaultAccessToken?.token.exposedValue == "at-1")
    }

    @Test("A resource account whose server says only a subject (userinfo {\"sub\":\"1\"}) is named by the resource (host[:port]/path), not '1: 1'; the person when the server names one, as other accounts; the provider shows the resource",
          arguments: [(#"{"sub":"1"}"#, "mcp.example/mcp", "mcp.example/1"),
                      (#"{"sub":"1","preferred_username":"alice","name":"Alice Example"}"#, "Alice Example", "mcp.example/alice")])
    func resourceAccountNames(_ userinfo: String, _ displayName: String, _ handle: String) async throws {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["GET https://as.example/.well-known/oauth-authorization-server"] = ResourceWorld.asm(
                extra: #","code_challenge_methods_supported":["S256"],"userinfo_endpoint":"https://as.example/userinfo""#)
            $0["GET https://as.example/userinfo"] = ResourceWorld.json(userinfo)
        }
        let (_, outcome) = try await world.signIn()
        #expect(outcome.record.displayName == displayName)
        #expect(AccountResolution.handle(outcome.record) == handle)
        #expect(world.world.files.withLock { $0.providers.first?.displayName } == "mcp.example/mcp")
        #expect(ResourceAccountName.label("http://127.0.0.1:8123/mcp/") == "127.0.0.1:8123/mcp")
        #expect(ResourceAccountName.label("https://Example.COM") == "example.com")
    }

    @Test("Discovery requests carry no token, no cookie and follow no redirect by themselves")
    func discoveryCarriesNoCredentials() async throws {
        let world = ResourceWorld()
        _ = try await world.signIn()
        let discovery = world.requests.withLock { $0 }.filter { $0.method == .get }
        #expect(discovery.count == 4, "resource, PRM, ASM (memo), ASM again for the provider")
        for request in discovery {
            #expect(!request.headers.contains { ["authorization", "cookie"].contains($0.name.lowercased()) })
            #expect(!request.followRedirects)
        }
    }

    @Test("Never registered twice for one issuer: the same resource signs in again with its provider, another resource shares the client")
    func registeredOnce() async throws {
        let world = ResourceWorld()
        _ = try await world.signIn()
        let (again, _) = try await world.signIn(ResourceSignInRequest(resourceURL: ResourceWorld.resource, extraScopes: ["mcp:write"]))
        #expect(again.client == .existingProvider("mcp.example"))
        world.routes.withLock {
            $0["GET https://mcp.example/other"] = HTTPResponse(status: 401, headers: ["www-authenticate": #"Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/other""#])
            $0["GET https://mcp.example/.well-known/oauth-protected-resource/other"] = ResourceWorld.prm(resource: "https://mcp.example/other")
        }
        let (other, _) = try await world.signIn(ResourceSignInRequest(resourceURL: "https://mcp.example/other"))
        #expect(other.client == .sharedClient(from: "mcp.example"))
        #expect(other.providerID == "mcp.example-other")
        #expect(world.sent("POST", "https://as.example/register").count == 1)
        let providers = world.world.files.withLock { $0.providers }
        #expect(providers.map(\.clientID) == ["dcr-1", "dcr-1"])
        // Step-up: the extra scope is asked for.
        let last = try #require(world.world.browserOpened.withLock { $0.dropLast().last })
        #expect(URLComponents(url: last, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "scope" }?.value?.replacing("+", with: " ") == "mcp:read mcp:write")
    }

    @Test("Without resource_metadata: the path-inserted well-known URL, then the root; scopes_supported asked for")
    func wellKnownFallback() async throws {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["GET https://mcp.example/mcp"] = HTTPResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer realm="x""#])
            $0["GET https://mcp.example/.well-known/oauth-protected-resource/mcp"] = nil
            $0["GET https://mcp.example/.well-known/oauth-protected-resource"] = ResourceWorld.prm()
        }
        let (plan, _) = try await world.signIn()
        #expect(plan.discovery.location == .root)
        #expect(plan.scopes == ["mcp:read", "mcp:write"])
        #expect(world.sent("GET", "https://mcp.example/.well-known/oauth-protected-resource/mcp").count == 1)
    }

    @Test("resource_metadata only in the second challenge (after a DPoP one)")
    func secondChallenge() async throws {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["GET https://mcp.example/mcp"] = HTTPResponse(status: 401, headers: [
                "WWW-Authenticate": #"DPoP algs="ES256", error="invalid_token", Bearer resource_metadata="https://mcp.example/prm", scope="mcp:read""#,
            ])
            $0["GET https://mcp.example/prm"] = ResourceWorld.prm()
        }
        let (plan, _) = try await world.signIn()
        #expect(plan.discovery.metadataURL == "https://mcp.example/prm")
        #expect(plan.discovery.location == .challenge)
    }

    @Test("Refused: a metadata resource that differs (host, path, trailing slash, look-alike)", arguments: [
        "https://other.example/mcp", "https://mcp.example/other", "https://mcp.example/mcp/", "https://mcp.example/m\u{0441}p",
    ])
    func resourceMismatch(_ resource: String) async {
        let world = ResourceWorld()
        world.routes.withLock { $0["GET https://mcp.example/.well-known/oauth-protected-resource/mcp"] = ResourceWorld.prm(resource: resource) }
        await world.expectError { $0.title.contains("protected resource metadata") && $0.detail.contains(resource)
            && $0.detail.contains("https://mcp.example/.well-known/oauth-protected-resource/mcp") }
        #expect(world.world.files.withLock { $0.providers }.isEmpty)
        #expect(world.sent("POST", "https://as.example/register").isEmpty)
    }

    @Test("Refused: a redirect to another host during discovery; nothing is asked of that host")
    func redirectToOtherHost() async {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["GET https://mcp.example/.well-known/oauth-protected-resource/mcp"] = HTTPResponse(status: 302, headers: ["Location": "https://evil.example/prm"])
            $0["GET https://evil.example/prm"] = ResourceWorld.prm()
        }
        await world.expectError { $0.detail.contains("https://evil.example/prm") && $0.detail.contains("another origin") }
        #expect(world.sent("GET", "https://evil.example/prm").isEmpty)
    }

    @Test("A redirect within the origin is followed")
    func sameOriginRedirect() async throws {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["GET https://mcp.example/.well-known/oauth-protected-resource/mcp"] = HTTPResponse(status: 307, headers: ["Location": "/prm2"])
            $0["GET https://mcp.example/prm2"] = ResourceWorld.prm()
        }
        _ = try await world.signIn()
    }

    @Test("Refused: an authorization server whose issuer differs")
    func wrongIssuer() async {
        let world = ResourceWorld()
        world.routes.withLock { $0["GET https://as.example/.well-known/oauth-authorization-server"] = ResourceWorld.asm(issuer: "https://as.example/") }
        await world.expectError { $0.title.contains("authorization server metadata") && $0.detail.contains("expected \"https://as.example\"") }
    }

    @Test("The OpenID locations are tried after RFC 8414 (path inserted, then appended)")
    func openIDFallback() async throws {
        let world = ResourceWorld()
        let issuer = "https://as.example/t1"
        let oidc = ResourceWorld.json(#"{"issuer":"\#(issuer)","authorization_endpoint":"https://as.example/authorize","token_endpoint":"https://as.example/token","registration_endpoint":"https://as.example/register","response_types_supported":["code"],"code_challenge_methods_supported":["S256"],"jwks_uri":"https://as.example/jwks","subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]}"#)
        world.routes.withLock {
            $0["GET https://mcp.example/.well-known/oauth-protected-resource/mcp"] = ResourceWorld.prm(servers: [issuer])
            $0["GET https://as.example/t1/.well-known/openid-configuration"] = oidc
        }
        world.world.browserAction.withLock { action in
            action = { url in
                let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
                return [[("code", "c"), ("state", state), ("iss", issuer)]]
            }
        }
        let (plan, _) = try await world.signIn()
        #expect(plan.discoveryKind == .openIDConnect)
        #expect(world.sent("GET", "https://as.example/.well-known/oauth-authorization-server/t1").count == 1)
        #expect(world.sent("GET", "https://as.example/.well-known/openid-configuration/t1").count == 1)
    }

    @Test("Refused: no S256 (other methods, or none advertised)", arguments: [#","code_challenge_methods_supported":["plain"]"#, ""])
    func noS256(_ extra: String) async {
        let world = ResourceWorld()
        world.routes.withLock { $0["GET https://as.example/.well-known/oauth-authorization-server"] = ResourceWorld.asm(extra: extra) }
        await world.expectError { $0.detail.contains("S256") }
        #expect(world.sent("POST", "https://as.example/register").isEmpty)
    }

    @Test("Refused: a registration answer without client_id; nothing configured")
    func registrationWithoutClientID() async {
        let world = ResourceWorld()
        world.routes.withLock { $0["POST https://as.example/register"] = ResourceWorld.json(#"{"client_secret":"x"}"#, status: 201) }
        await world.expectError { $0.title.contains("client registration") && $0.detail.contains("client_id") && $0.detail.contains("https://as.example/register") }
        #expect(world.world.files.withLock { $0.providers }.isEmpty)
    }

    @Test("A refused registration says the server's reason")
    func registrationRefused() async {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["POST https://as.example/register"] = ResourceWorld.json(#"{"error":"invalid_redirect_uri","error_description":"no loopback here"}"#, status: 400)
        }
        await world.expectError { $0.detail.contains("invalid_redirect_uri") && $0.detail.contains("no loopback here") }
    }

    @Test("Refused: an authorization response with another iss, or none although the metadata says it sends none (RFC 9207 required here)")
    func issuerOnRedirect() async {
        for (iss, extra) in [("https://other.example", #","code_challenge_methods_supported":["S256"]"#),
                             (nil, #","code_challenge_methods_supported":["S256"],"authorization_response_iss_parameter_supported":false"#)] {
            let world = ResourceWorld()
            world.routes.withLock { $0["GET https://as.example/.well-known/oauth-authorization-server"] = ResourceWorld.asm(extra: extra) }
            world.world.browserAction.withLock { action in
                action = { url in
                    let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
                    return [[("code", "c"), ("state", state)] + (iss.map { [("iss", $0)] } ?? [])]
                }
            }
            await world.expectError { $0.title.lowercased().contains("issuer") }
            #expect(world.sent("POST", "https://as.example/token").isEmpty, "no code was exchanged")
        }
    }

    @Test("Refused: a resource on http:// off loopback, before any request")
    func insecureResource() async {
        let world = ResourceWorld()
        await world.expectError(ResourceSignInRequest(resourceURL: "http://mcp.example/mcp")) { $0.detail.contains("http://mcp.example/mcp") }
        #expect(world.requests.withLock { $0 }.isEmpty)
    }

    @Test("RFC 9728 §1.2, RFC 3986 §3.2.1: a resource URL with a user name or password is refused before any request, shown nowhere",
          arguments: [
              "https://user:s3cret-pw@mcp.example/mcp", "https://s3cret-pw@mcp.example/mcp", "http://user:s3cret-pw@127.0.0.1:8080/mcp",
              "https://:s3cret-pw@mcp.example/mcp",
          ])
    func credentialsInResourceURL(_ url: String) async {
        let world = ResourceWorld()
        await world.expectError(ResourceSignInRequest(resourceURL: url)) { error in
            error.disposition == .usage && error.title.contains("user name or password") && !"\(error.title) \(error.detail)".contains("s3cret-pw")
        }
        #expect(world.requests.withLock { $0 }.isEmpty)
        #expect(world.world.files.withLock { $0.providers }.isEmpty)
        #expect(world.world.browserOpened.withLock { $0 }.isEmpty)
    }

    @Test("Several authorization servers: the person picks one; another is refused")
    func severalServers() async throws {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["GET https://mcp.example/.well-known/oauth-protected-resource/mcp"] = ResourceWorld.prm(servers: [ResourceWorld.issuer, "https://as2.example"])
        }
        await world.expectError { $0.disposition == .usage && $0.detail.contains("https://as2.example") }
        await world.expectError(ResourceSignInRequest(resourceURL: ResourceWorld.resource, authorizationServer: "https://as3.example")) { $0.disposition == .usage }
        let (plan, _) = try await world.signIn(ResourceSignInRequest(resourceURL: ResourceWorld.resource, authorizationServer: ResourceWorld.issuer))
        #expect(plan.authorizationServer.issuer == ResourceWorld.issuer)
    }

    @Test("An --authorization-server with a user name or password is refused without echoing them")
    func authorizationServerCredentialsNotEchoed() async throws {
        let world = ResourceWorld()
        let picked = ResourceSignInRequest(resourceURL: ResourceWorld.resource, authorizationServer: "http://u:s3cret-pw@as.example/")
        await world.expectError(picked) { error in
            error.disposition == .usage && error.title.contains("user name or password") && !"\(error.title) \(error.detail)".contains("s3cret-pw")
        }
    }

    @Test("A client metadata document URL is the client_id where the server takes them; nothing is registered")
    func clientMetadataDocument() async throws {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["GET https://as.example/.well-known/oauth-authorization-server"] = ResourceWorld.asm(extra: #","code_challenge_methods_supported":["S256"],"client_id_metadata_document_supported":true"#)
        }
        let document = "https://client.example/authdeck.json"
        let (plan, _) = try await world.signIn(ResourceSignInRequest(resourceURL: ResourceWorld.resource, clientMetadataURL: document))
        #expect(plan.client == .metadataDocument(document))
        #expect(world.world.files.withLock { $0.providers }.first?.clientID == document)
        #expect(world.sent("POST", "https://as.example/register").isEmpty)
    }

    @Test("A --client-metadata-url with a user name or password, or not https, is refused before anything is registered, shown nowhere",
          arguments: ["https://user:pw-secret@client.example/authdeck.json", "http://client.example/authdeck.json",
                      "https://client.example/authdeck.json#pw-secret", "not a url pw-secret@x"])
    func clientMetadataURLChecked(_ document: String) async {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["GET https://as.example/.well-known/oauth-authorization-server"] = ResourceWorld.asm(extra: #","code_challenge_methods_supported":["S256"],"client_id_metadata_document_supported":true"#)
        }
        await world.expectError(ResourceSignInRequest(resourceURL: ResourceWorld.resource, clientMetadataURL: document)) { error in
            error.disposition == .usage && !"\(error.title) \(error.detail)".contains("pw-secret")
        }
        #expect(world.world.files.withLock { $0.providers }.isEmpty)
        #expect(world.world.browserOpened.withLock { $0 }.isEmpty)
        #expect(throws: Never.self) { try SignInToResource.checkClientMetadataURL("http://127.0.0.1:8080/authdeck.json") }
    }

    @Test("No registration endpoint and no metadata document: refused with what to do")
    func noRegistration() async {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["GET https://as.example/.well-known/oauth-authorization-server"] = ResourceWorld.json(#"{"issuer":"https://as.example","authorization_endpoint":"https://as.example/authorize","token_endpoint":"https://as.example/token","response_types_supported":["code"],"code_challenge_methods_supported":["S256"],"client_id_metadata_document_supported":true}"#)
        }
        await world.expectError { $0.detail.contains("--client-metadata-url") }
    }

    @Test("A refresh of the resource's token names the resource (RFC 8707 §2.2)")
    func refreshCarriesResource() async throws {
        let world = ResourceWorld()
        let (_, outcome) = try await world.signIn()
        world.routes.withLock { $0["POST https://as.example/token"] = ResourceWorld.json(#"{"access_token":"at-2","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-2"}"#) }
        _ = try await RefreshAccount(world.environment()).run(outcome.record.id, force: true)
        let refresh = try #require(world.sent("POST", "https://as.example/token").last)
        #expect(world.form(refresh)["grant_type"] == "refresh_token")
        #expect(world.form(refresh)["resource"] == ResourceWorld.resource)
    }
}
