import FoundationEssentials

/// How the client authenticates at the token, revocation and introspection endpoints
/// (RFC 6749 §2.3.1; `token_endpoint_auth_method` of RFC 7591 §2).
public enum ClientAuthentication: Sendable, Equatable, CustomStringConvertible {
    /// `none`: a public client sends only `client_id` in the body.
    case none
    /// `client_secret_basic`: HTTP Basic with form-urlencoded id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic(ClientSecret)
    /// `client_secret_post`: `client_id` and `client_secret` in the body.
    case clientSecretPost(ClientSecret)
    /// `private_key_jwt` or a federated assertion: `client_id`, `client_assertion_type`
    /// (``ClientAssertionJWT/assertionType``) and this `client_assertion` in the body
    /// (RFC 7521 §4.2, RFC 7523 §2.2). Good for one request: made fresh for each.
    case clientAssertion(ClientAssertion)

    public var description: String {
        switch self {
        case .none: "none"
        case .clientSecretBasic: "client_secret_basic"
        case .clientSecretPost: "client_secret_post"
        case .clientAssertion: "client_assertion"
        }
    }
}

/// The registered client as the engine needs it.
public struct ClientConfiguration: Sendable, Equatable {
    /// `client_id` (RFC 6749 §2.2).
    public var clientID: String
    /// Client authentication at the token endpoint.
    public var authentication: ClientAuthentication
    /// Extra request headers per provider, e.g. GitHub's `Accept: application/json`. A header
    /// with the same name (case-insensitive) as a built one replaces it.
    public var extraHeaders: [HTTPHeader]
    /// Extra authorization-request parameters (e.g. Google `access_type=offline`).
    public var extraAuthorizationParameters: [FormParameter]
    /// Audiences besides `client_id` an ID token may name (OIDC Core §3.1.3.7 step 3; e.g. an
    /// Auth0 API identifier). Compared exactly.
    public var additionalTrustedAudiences: Set<String> = []
    /// The issuer is a multi-tenant Microsoft Entra authority even off Microsoft's login hosts
    /// (an emulator): a literal `{tenantid}` in its discovery issuer is the token's `tid`.
    public var multiTenantEntra = false

    public init(clientID: String, authentication: ClientAuthentication = .none, extraHeaders: [HTTPHeader] = [],
                extraAuthorizationParameters: [FormParameter] = []) {
        self.clientID = clientID
        self.authentication = authentication
        self.extraHeaders = extraHeaders
        self.extraAuthorizationParameters = extraAuthorizationParameters
    }

    /// A public client has no secret (RFC 6749 §2.1): it never accepts HS* ID tokens.
    public var isPublic: Bool { authentication == .none }
}

extension ClientConfiguration {
    /// Adds client authentication to a form request: `client_id` in the body for `none`,
    /// `Authorization: Basic base64(urlencode(id):urlencode(secret))` for basic, or
    /// `client_id` + `client_secret` in the body for post.
    func authenticate(headers: inout [HTTPHeader], form: inout [FormParameter]) {
        switch authentication {
        case .none:
            form.append(FormParameter("client_id", clientID))
        case .clientSecretBasic(let secret):
            let pair = FormEncoding.encode(clientID) + ":" + FormEncoding.encode(secret.exposedValue)
            headers.append(HTTPHeader("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
        case .clientSecretPost(let secret):
            form.append(FormParameter("client_id", clientID))
            form.append(FormParameter("client_secret", secret.exposedValue))
        case .clientAssertion(let assertion):
            form.append(FormParameter("client_id", clientID))
            form.append(FormParameter("client_assertion_type", ClientAssertionJWT.assertionType))
            form.append(FormParameter("client_assertion", assertion.exposedValue))
        }
    }

    /// A `POST` form request to `url` with client authentication and the provider's extra headers.
    func makeFormRequest(url: URL, parameters: [FormParameter]) throws(AuthError) -> HTTPRequest {
        try URLPolicy.requireSecure(url)
        var headers = [HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json")]
        var form = parameters.filter { !$0.value.isEmpty }
        authenticate(headers: &headers, form: &form)
        return HTTPRequest(method: .post, url: url, headers: merging(headers), body: FormEncoding.body(form), followRedirects: false)
    }

    /// `headers` with ``extraHeaders`` applied (same name replaces, new names appended).
    func merging(_ headers: [HTTPHeader]) -> [HTTPHeader] {
        var result = headers
        for extra in extraHeaders {
            if let index = result.firstIndex(where: { $0.name.lowercased() == extra.name.lowercased() }) {
                result[index] = extra
            } else {
                result.append(extra)
            }
        }
        return result
    }
}
