import FoundationEssentials
import TextSupport

/// One HTTP request as a value. Built by the engine's request builders and sent by an
/// ``HTTPClient`` (the live one is libcurl in `AuthEngineLive`).
///
/// Headers keep their order and case as built; tests assert the full set exactly.
public struct HTTPRequest: Sendable, Equatable {
    public enum Method: String, Sendable, Equatable {
        case get = "GET", post = "POST", delete = "DELETE", put = "PUT", patch = "PATCH", head = "HEAD"
    }

    public var method: Method
    public var url: URL
    /// Header name/value pairs in order. Names as sent on the wire.
    public var headers: [HTTPHeader]
    public var body: Data?
    /// Whether the client may follow 3xx redirects. Token, revocation and introspection
    /// requests never do (the default); discovery and userinfo may.
    public var followRedirects: Bool
    /// The limit for the whole exchange (connect, send, wait, read), overriding the client's
    /// configured total timeout; nil: the client's. A refresh request sets one longer than the
    /// UI's patience (`RefreshAccount.requestTimeout`), so a slow provider's answer is not lost.
    public var timeout: Duration?

    public init(method: Method, url: URL, headers: [HTTPHeader] = [], body: Data? = nil, followRedirects: Bool = false, timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.followRedirects = followRedirects
        self.timeout = timeout
    }
}

/// One header line. `value` may hold a credential (`Authorization`); ``description`` redacts it.
public struct HTTPHeader: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
    public var description: String {
        name.lowercased() == "authorization" || name.lowercased() == "cookie" ? "\(name): <redacted>" : "\(name): \(value)"
    }
}

/// An HTTP response as a value. `headers` names are lower-cased; a repeated header keeps the
/// last value, except `www-authenticate`, whose lines the live client joins with `, ` (RFC 9110 §5.3).
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) })
        self.body = body
    }
    /// The media type of `Content-Type` without parameters, lower-cased (`application/json`).
    /// An empty header, or one that starts with `;`, has the empty media type (found by fuzzing:
    /// splitting with empty pieces omitted trapped on `""` and read `;application/json` as JSON).
    public var mediaType: String? {
        headers["content-type"].map {
            String($0.prefix(while: { $0 != ";" })).trimmingWhitespace().lowercased()
        }
    }
}

/// Network-level failure: nothing OAuth-shaped came back.
public enum TransportError: Error, Sendable, Equatable {
    /// Connect or total timeout; `seconds` is the limit that was hit.
    case timeout(url: String, seconds: Double)
    /// DNS, refused connection, proxy failure: the request never reached the server. `detail`
    /// is libcurl's message (no secrets).
    case connection(url: String, detail: String)
    /// The connection broke after the request may have been sent (reset, closed, a partial
    /// answer): the server may have acted on it. `detail` is libcurl's message.
    case interrupted(url: String, detail: String)
    /// Certificate not trusted, name mismatch, handshake failure.
    case tls(url: String, detail: String)
    /// The response body exceeded the limit (bytes).
    case responseTooLarge(url: String, limit: Int)
    /// A plain-HTTP URL that is not on a loopback address (127.0.0.0/8, ::1).
    case insecureURL(String)
    /// The request was cancelled by the caller.
    case cancelled

    /// The host name that did not resolve (DNS: libcurl's "Could not resolve host"), else nil.
    public var unresolvedHost: String? {
        guard case .connection(let url, let detail) = self, detail.lowercased().contains("could not resolve host") else { return nil }
        return URLComponents(string: url)?.host ?? "the host"
    }

    /// Whether the server may have received (and acted on) the request: false only when it
    /// certainly never left (refused before sending, no connection, TLS handshake failed). A
    /// timeout counts as "may have": a stalled server can still answer a queued request later.
    /// A refresh (RFC 6749 §6) whose request may have arrived has an unknown outcome: the
    /// provider may have rotated the refresh token.
    public var requestMayHaveArrived: Bool {
        switch self {
        case .connection, .tls, .insecureURL: false
        case .timeout, .interrupted, .responseTooLarge, .cancelled: true
        }
    }

    /// The request's URL as the error names it (without its query; with the transport's note,
    /// such as the proxy in use), or nil for a cancelled request.
    public var url: String? {
        switch self {
        case .timeout(let url, _), .connection(let url, _), .interrupted(let url, _), .tls(let url, _), .responseTooLarge(let url, _): url
        case .insecureURL(let url): url
        case .cancelled: nil
        }
    }
}

/// The engine's HTTP dependency, as a struct of closures (swift-dependencies style).
/// The live value (`AuthEngineLive.CurlHTTPClient`) verifies TLS, applies timeouts and size
/// limits and never follows redirects unless ``HTTPRequest/followRedirects`` is set.
public struct HTTPClient: Sendable {
    public var send: @Sendable (HTTPRequest) async throws(TransportError) -> HTTPResponse
    public init(send: @escaping @Sendable (HTTPRequest) async throws(TransportError) -> HTTPResponse) {
        self.send = send
    }
}
