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
    ///   status, not JSON, issuer mismatch — with the facts in ``AppError/probe`` (the front end
    ///   says what to do).
    public func add(_ provider: ProviderConfig, clientSecret: ClientSecret?, clientKey: JWSKeyPair? = nil,
                    probe: ProviderProbeChoice) async throws(AppError) {
        if probe == .discovery {
            try ensureNameFree(provider.id)
            try await self.probe(provider)
        }
        try add(provider, clientSecret: clientSecret, clientKey: clientKey)
    }

    /// Fetches `provider`'s discovery document and checks it as sign-in would (HTTP 200, JSON,
    /// the same `issuer` code unit for code unit, the required members). A provider with manual
    /// endpoints (no issuer) has nothing to fetch: no request.
    /// - Throws: ``AppError`` as described at ``add(_:clientSecret:probe:)``, its title saying the
    ///   provider was not `action` ("added", "changed").
    public func probe(_ provider: ProviderConfig, action: String = "added") async throws(AppError) {
        guard let issuer = provider.issuer?.absoluteString else { return }
        var request: HTTPRequest
        do { request = try Discovery.makeRequest(issuer: issuer) } catch { throw ErrorMapping.appError(error) }
        request.timeout = Self.probeTimeout
        let url = request.url.absoluteString
        let response: HTTPResponse
        do {
            response = try await env.http(provider).send(request)
        } catch {
            let (cause, facts) = Self.explain(error, provider: provider)
            // The transport names the URL with its note (the proxy configured for the request).
            let named = error.url.flatMap { $0.utf8.starts(with: url.utf8) ? $0 : nil } ?? url
            throw Self.probeFailure(provider, action, url: named, ErrorMapping.appError(AuthError.transport(error)), cause, facts: facts)
        }
        do {
            _ = try ProviderAccess.readDiscovery(response, provider: provider, issuer: issuer, requestURL: request.url)
        } catch {
            let cause = Self.explain(error, issuer: issuer)
            let facts: String? = if case .httpStatus(let status) = cause { "answered HTTP \(status)" } else { nil }
            throw Self.probeFailure(provider, action, url: url, ErrorMapping.appError(error), cause, facts: facts)
        }
    }

    /// `id` can name a new provider: ``ProviderID/nameProblem(_:)`` has nothing to say, and no
    /// provider has that name, or one that looks the same (canonically equivalent: `é` as one code
    /// point or as `e` + U+0301).
    /// - Throws: ``AppError`` (`.usage`) naming the problem or the provider in the way.
    func ensureNameFree(_ id: ProviderID) throws(AppError) {
        if let problem = ProviderID.nameProblem(id.rawValue) {
            throw AppError(title: "'\(id)' cannot name a provider: \(problem)",
                           detail: "Choose a name of visible characters without spaces or '/', such as 'work' or 'github-enterprise'.",
                           disposition: .usage)
        }
        let providers = try env.files.providers()
        if providers.contains(where: { $0.id == id }) {
            throw AppError(title: "A provider named '\(id)' exists already",
                           detail: "Remove it first with 'authdeck provider remove \(id)', or choose another name.", disposition: .usage)
        }
        if let lookalike = providers.first(where: { $0.id.rawValue == id.rawValue }) {
            throw AppError(title: "'\(id)' looks the same as the provider '\(lookalike.id)' but is spelled with other characters",
                           detail: "Use 'authdeck login \(lookalike.id)' for that provider, or choose a name that looks different.",
                           disposition: .usage)
        }
    }

    private static func probeFailure(_ provider: ProviderConfig, _ action: String, url: String, _ error: AppError,
                                     _ cause: ProviderProbeFailure.Cause,
                                     facts: String? = nil) -> AppError {
        let failure = ProviderProbeFailure(url: url, cause: cause)
        let what = facts ?? (error.detail.isEmpty ? error.title : "\(error.title). \(error.detail)")
        var appError = AppError(title: "Provider '\(provider.id)' not \(action): its discovery document failed (\(failure.label))",
                                detail: "GET \(url): \(what)", specReference: error.specReference, disposition: .other)
        appError.probe = failure
        return appError
    }

    /// What failed, for a transport failure; libcurl's own words as the facts (the URL is said once).
    private static func explain(_ error: TransportError, provider: ProviderConfig) -> (cause: ProviderProbeFailure.Cause, facts: String?) {
        let host = provider.issuer.map { url in (url.host ?? "the host") + (url.port.map { ":\($0)" } ?? "") } ?? "the host"
        switch error {
        case .connection(_, let detail) where error.unresolvedHost != nil: return (.hostNotFound(host: host), detail)
        case .connection(_, let detail): return (.noConnection(host: host), detail)
        case .timeout(_, let seconds): return (.timeout(seconds: Int(seconds.rounded(.up))), "no answer within \(Int(seconds.rounded(.up))) s")
        case .tls(_, let detail): return (.tls, detail)
        case .interrupted(_, let detail): return (.interrupted, detail)
        case .responseTooLarge: return (.tooLarge, nil)
        case .insecureURL: return (.plainHTTP, nil)
        case .cancelled: return (.cancelled, nil)
        }
    }

    /// What failed, for a response that is not the discovery document.
    private static func explain(_ error: AuthError, issuer: String) -> ProviderProbeFailure.Cause {
        switch error {
        case .httpStatus(let failure): .httpStatus(failure.status)
        case .protocolViolation(.unexpectedContentType), .protocolViolation(.malformedJSON): .notJSON
        case .protocolViolation(.issuerMismatch(_, let actual)): .issuerMismatch(published: actual, configured: issuer)
        default: .invalidDocument
        }
    }
}

/// Why `provider add`'s discovery probe failed: the facts, on ``AppError/probe``. Each front end
/// words what to do in its own terms (the CLI names `--issuer` and `--no-probe`; the TUI's form
/// its fields).
public struct ProviderProbeFailure: Equatable, Sendable {
    public enum Cause: Equatable, Sendable {
        /// The issuer's host name does not resolve (DNS).
        case hostNotFound(host: String)
        /// Nothing accepted a connection at the host and port.
        case noConnection(host: String)
        /// No answer within the probe's limit.
        case timeout(seconds: Int)
        /// The TLS handshake or the certificate failed.
        case tls
        /// The connection broke mid-answer.
        case interrupted
        /// The answer was too large to be a discovery document.
        case tooLarge
        /// Plain http on a host that is not loopback.
        case plainHTTP
        /// The probe was cancelled.
        case cancelled
        /// An HTTP status other than 200 (no document at the well-known URL).
        case httpStatus(Int)
        /// The answer is not a JSON document (a web page).
        case notJSON
        /// The document names another issuer (OIDC Discovery §4.3: compared code unit for code unit).
        case issuerMismatch(published: String, configured: String)
        /// The document breaks another rule sign-in relies on.
        case invalidDocument
    }

    /// The well-known URL that was fetched.
    public var url: String
    public var cause: Cause

    public init(url: String, cause: Cause) {
        self.url = url
        self.cause = cause
    }

    /// What failed, in a word or two: "DNS", "connect", "HTTP 404", "issuer mismatch".
    public var label: String {
        switch cause {
        case .hostNotFound: "DNS"
        case .noConnection: "connect"
        case .timeout: "timeout"
        case .tls: "TLS"
        case .interrupted: "connection broke"
        case .tooLarge: "too large"
        case .plainHTTP: "plain HTTP"
        case .cancelled: "cancelled"
        case .httpStatus(let status): "HTTP \(status)"
        case .notJSON: "not JSON"
        case .issuerMismatch: "issuer mismatch"
        case .invalidDocument: "invalid document"
        }
    }
}
