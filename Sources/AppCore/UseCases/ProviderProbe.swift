import AuthEngine
import FoundationEssentials

/// Whether `provider add` checks the provider before saving it.
public enum ProviderProbeChoice: Sendable, Equatable {
    /// Fetch the discovery document (OIDC Discovery 1.0 §4, RFC 8414 §3) with
    /// ``ProviderAdmin/probeTimeout`` and refuse when it fails.
    case discovery
    /// Save without any network (`--no-probe`: offline, or a provider not up yet).
    case skip
}

extension ProviderAdmin {
    /// The probe's limit: short, the user is waiting at the prompt (seconds).
    public static let probeTimeout: Duration = .seconds(10)

    /// Saves a new provider after probing it (unless `probe` is `.skip`); nothing is saved when
    /// the probe fails.
    /// - Throws: what ``add(_:clientSecret:)`` throws; for a failed probe an ``AppError``
    ///   (disposition `.other`, exit 1) naming what failed — DNS, connect, timeout, TLS, HTTP
    ///   status, not JSON, issuer mismatch — what to do, and "add --no-probe to add it anyway".
    public func add(_ provider: ProviderConfig, clientSecret: ClientSecret?, probe: ProviderProbeChoice) async throws(AppError) {
        if probe == .discovery {
            try ensureNameFree(provider.id)
            try await self.probe(provider)
        }
        try add(provider, clientSecret: clientSecret)
    }

    /// Fetches `provider`'s discovery document and checks it as sign-in would (HTTP 200, JSON,
    /// the same `issuer` code unit for code unit, the required members). A provider with manual
    /// endpoints (no issuer) has nothing to fetch: no request.
    /// - Throws: ``AppError`` as described at ``add(_:clientSecret:probe:)``.
    public func probe(_ provider: ProviderConfig) async throws(AppError) {
        guard let issuer = provider.issuer?.absoluteString else { return }
        var request: HTTPRequest
        do { request = try Discovery.makeRequest(issuer: issuer) } catch { throw ErrorMapping.appError(error) }
        request.timeout = Self.probeTimeout
        let url = request.url.absoluteString
        let response: HTTPResponse
        do {
            response = try await env.http(provider).send(request)
        } catch {
            throw Self.probeFailure(provider, url: url, ErrorMapping.appError(AuthError.transport(error)), Self.explain(error, provider: provider))
        }
        do {
            _ = try ProviderAccess.readDiscovery(response, provider: provider, issuer: issuer, requestURL: request.url)
        } catch {
            throw Self.probeFailure(provider, url: url, ErrorMapping.appError(error), Self.explain(error, issuer: issuer, url: url))
        }
    }

    func ensureNameFree(_ id: ProviderID) throws(AppError) {
        if try env.files.providers().contains(where: { $0.id == id }) {
            throw AppError(title: "A provider named '\(id)' exists already",
                           detail: "Remove it first with 'authdeck provider remove \(id)', or choose another name.", disposition: .usage)
        }
    }

    private static func probeFailure(_ provider: ProviderConfig, url: String, _ error: AppError, _ what: (failed: String, todo: String)) -> AppError {
        AppError(title: "Provider '\(provider.id)' not added: its discovery document failed (\(what.failed))",
                 detail: "GET \(url): \(error.title)\(error.detail.isEmpty ? "" : ". \(error.detail)") \(what.todo) Add --no-probe to add it anyway (offline, or a provider that is not up yet).",
                 specReference: error.specReference, disposition: .other)
    }

    /// What failed and what to do, for a transport failure.
    private static func explain(_ error: TransportError, provider: ProviderConfig) -> (failed: String, todo: String) {
        let host = provider.issuer.map { url in (url.host ?? "the host") + (url.port.map { ":\($0)" } ?? "") } ?? "the host"
        switch error {
        case .connection(_, let detail) where detail.lowercased().contains("resolve"):
            return ("DNS", "The host name \(host) does not resolve: check the --issuer for a typo, and your DNS or proxy (HTTPS_PROXY).")
        case .connection:
            return ("connect", "Nothing accepted a connection at \(host): check the port, that the provider is running, and your proxy (HTTPS_PROXY, NO_PROXY).")
        case .timeout:
            return ("timeout", "No answer within \(Int(probeTimeout.timeInterval)) s: check the network, a firewall or your proxy.")
        case .tls:
            return ("TLS", "The TLS handshake or certificate failed: for a private CA give its PEM bundle with --ca-bundle PATH (or SSL_CERT_FILE).")
        case .interrupted:
            return ("connection broke", "The connection broke mid-answer: try again; if it persists, check a proxy in between.")
        case .responseTooLarge:
            return ("too large", "The answer is not a discovery document: check the --issuer URL.")
        case .insecureURL:
            return ("plain HTTP", "Only loopback addresses may use http: use the provider's https issuer.")
        case .cancelled:
            return ("cancelled", "The probe was interrupted.")
        }
    }

    /// What failed and what to do, for a response that is not the discovery document.
    private static func explain(_ error: AuthError, issuer: String, url: String) -> (failed: String, todo: String) {
        switch error {
        case .httpStatus(let failure):
            return ("HTTP \(failure.status)", "No discovery document at \(url): check the --issuer (the provider's issuer identifier, exactly as it publishes it), or give the endpoints by hand (--token-endpoint, --authorization-endpoint).")
        case .protocolViolation(.unexpectedContentType), .protocolViolation(.malformedJSON):
            return ("not JSON", "The answer is not a JSON discovery document: the --issuer probably points at a web page, not at the provider's issuer.")
        case .protocolViolation(.issuerMismatch(_, let actual)):
            return ("issuer mismatch", "The document names the issuer '\(actual)', not '\(issuer)'; issuers compare code unit for code unit: use --issuer \(actual) if that is the provider you mean.")
        default:
            return ("invalid document", "The discovery document breaks a rule sign-in relies on: see above, and check the --issuer.")
        }
    }
}
