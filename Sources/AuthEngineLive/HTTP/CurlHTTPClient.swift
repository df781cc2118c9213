import AuthEngine
import CCurl
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import TextSupport

/// Per-provider settings of the live HTTP client.
public struct CurlHTTPConfiguration: Sendable, Equatable {
    /// A PEM file of extra CA certificates to trust for this provider (`CURLOPT_CAINFO`), e.g. a
    /// private provider's CA. The system trust store (`/etc/ssl/certs`) stays trusted. When nil,
    /// `SSL_CERT_FILE` from the environment is used the same way if it is set.
    public var caBundlePath: String?
    /// Limit for establishing the connection (TCP + TLS), in seconds.
    public var connectTimeout: Double
    /// Limit for the whole exchange including all followed redirects, in seconds; a request's
    /// own ``HTTPRequest/timeout`` replaces it (token refreshes: longer than the UI's patience).
    public var totalTimeout: Double
    /// Largest accepted response body, in bytes; larger ones fail with
    /// `TransportError.responseTooLarge`.
    public var maximumResponseBytes: Int
    /// Sent as `User-Agent` unless the request sets one.
    public var userAgent: String
    /// Most 3xx responses followed for a request with `followRedirects`; the last 3xx response
    /// is returned when the limit is reached.
    public var maximumRedirects: Int

    public static let defaultUserAgent = "authdeck/\(AuthEngineLiveVersion.string)"

    public init(
        caBundlePath: String? = nil,
        connectTimeout: Double = 10,
        totalTimeout: Double = 30,
        maximumResponseBytes: Int = 1 << 20,
        userAgent: String = CurlHTTPConfiguration.defaultUserAgent,
        maximumRedirects: Int = 5
    ) {
        self.caBundlePath = caBundlePath
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maximumResponseBytes = maximumResponseBytes
        self.userAgent = userAgent
        self.maximumRedirects = maximumRedirects
    }
}

/// Version string used in the default `User-Agent` (`authdeck/<version>`).
public enum AuthEngineLiveVersion {
    public static let string = "0.1.0"
}

/// The live ``HTTPClient`` on libcurl.
///
/// - TLS (1.2 or later) is always verified (`CURLOPT_SSL_VERIFYPEER`/`VERIFYHOST` on); an extra
///   CA bundle may be configured per provider.
/// - Only `https` URLs are sent, and plain `http` only to a literal loopback address
///   (127.0.0.0/8, `[::1]`); anything else throws `TransportError.insecureURL` before any network
///   traffic. The URL is parsed by libcurl's own URL parser, the one that also sends it.
/// - Redirects are followed only when `HTTPRequest.followRedirects` is set; each hop is checked
///   like the first URL, `Authorization` and `Cookie` are dropped when the origin changes, and
///   301/302/303 turn a POST into a GET without body (303 any method but HEAD).
/// - Proxies come from the environment as libcurl reads them (`http_proxy`, `https_proxy`/
///   `HTTPS_PROXY`, `all_proxy`, `no_proxy`/`NO_PROXY`), except for loopback targets, which are
///   always reached directly (traffic that never leaves the machine).
/// - The blocking transfer runs on a thread of its own, never on the Swift cooperative pool; Task
///   cancellation aborts it (`TransportError.cancelled`) within about a second.
/// - Nothing is logged; errors carry the URL without its query (followed by "through the proxy
///   http://host:port from HTTPS_PROXY" when one was configured for it, never its credentials)
///   and libcurl's message.
public enum CurlHTTPClient {
    /// An ``HTTPClient`` with `configuration`.
    public static func live(configuration: CurlHTTPConfiguration = CurlHTTPConfiguration()) -> HTTPClient {
        HTTPClient { request async throws(TransportError) -> HTTPResponse in
            try await send(request, configuration: configuration)
        }
    }

    /// Sends `request` and returns the response (any status). Throws ``TransportError``.
    public static func send(_ request: HTTPRequest, configuration: CurlHTTPConfiguration) async throws(TransportError) -> HTTPResponse {
        let curl = try Curl.loaded(for: CurlURL.displayString(of: request.url.absoluteString))
        // Refuse insecure URLs before touching the network or a thread.
        _ = try CurlURL.checked(request.url.absoluteString, curl)
        if Task.isCancelled { throw .cancelled }
        let cancellation = CancellationFlag()
        let result: Result<HTTPResponse, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                DedicatedThread.run(name: "authdeck.http") {
                    continuation.resume(returning: CurlExchange(curl: curl, configuration: configuration, cancellation: cancellation).run(request))
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }

}

/// Set from the Task cancellation handler, read by libcurl's progress callback.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func cancel() { flag.store(true, ordering: .relaxed) }
    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// State shared with libcurl's callbacks during one transfer (used on the transfer thread only,
/// except `cancellation`).
private final class TransferState {
    let maximumBytes: Int
    let cancellation: CancellationFlag
    var body = Data()
    var headers: [String: String] = [:]
    var exceededLimit = false

    init(maximumBytes: Int, cancellation: CancellationFlag) {
        self.maximumBytes = maximumBytes
        self.cancellation = cancellation
    }
}

/// One request, possibly over several redirect hops, on the calling (dedicated) thread.
private struct CurlExchange {
    let curl: Curl
    let configuration: CurlHTTPConfiguration
    let cancellation: CancellationFlag

    func run(_ original: HTTPRequest) -> Result<HTTPResponse, TransportError> {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(totalTimeout(original), 0.001) * 1e9)
        var request = original
        var redirects = 0
        while true {
            let url: CurlURL
            do { url = try CurlURL.checked(request.url.absoluteString, curl) } catch { return .failure(error) }
            let hop = perform(request, url: url, deadline: deadline)
            guard case .success(let (response, location)) = hop else {
                return hop.map(\.0)
            }
            guard request.followRedirects, [301, 302, 303, 307, 308].contains(response.status),
                  let location, redirects < configuration.maximumRedirects
            else { return .success(response) }
            redirects += 1
            let next: CurlURL
            do { next = try CurlURL.checked(location, curl) } catch { return .failure(error) }
            guard let nextURL = URL(string: location) else { return .failure(.insecureURL(next.display)) }
            request = redirected(request, to: nextURL, status: response.status, sameOrigin: next.origin == url.origin)
        }
    }

    /// The request's own limit when it sets one, else the configured total timeout, in seconds.
    private func totalTimeout(_ request: HTTPRequest) -> Double {
        request.timeout.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 } ?? configuration.totalTimeout
    }

    private func redirected(_ request: HTTPRequest, to url: URL, status: Int, sameOrigin: Bool) -> HTTPRequest {
        var next = request
        next.url = url
        let becomesGET = (status == 303 && request.method != .head) || ((status == 301 || status == 302) && request.method == .post)
        if becomesGET {
            next.method = .get
            next.body = nil
            next.headers.removeAll { ["content-type", "content-length"].contains($0.name.lowercased()) }
        }
        if !sameOrigin {
            next.headers.removeAll { ["authorization", "cookie"].contains($0.name.lowercased()) }
        }
        return next
    }

    /// One hop. Returns the response and the absolute redirect target libcurl computed, if any.
    private func perform(_ request: HTTPRequest, url: CurlURL, deadline: UInt64) -> Result<(HTTPResponse, String?), TransportError> {
        let display = url.display
        let now = DispatchTime.now().uptimeNanoseconds
        guard now < deadline else { return .failure(.timeout(url: display, seconds: totalTimeout(request))) }
        let remainingMilliseconds = max(1, Int((deadline - now) / 1_000_000))

        for header in request.headers where !isSafeHeader(header) {
            return .failure(.connection(url: display, detail: "refused to send header \(header.name): it contains a line break or control character"))
        }

        guard let easy = curl.easyInit() else { return .failure(.connection(url: display, detail: "curl_easy_init failed")) }
        defer { curl.easyCleanup(easy) }

        let state = TransferState(maximumBytes: configuration.maximumResponseBytes, cancellation: cancellation)
        let statePointer = Unmanaged.passUnretained(state).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl.slistFreeAll(headerList) }
        var names = Set<String>()
        for header in request.headers {
            names.insert(header.name.lowercased())
            // "Name;" sends an empty header; "Name: value" a normal one.
            let line = header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
            headerList = curl.slistAppend(headerList, line)
        }
        // No `Expect: 100-continue` round trip, and no Content-Type the caller did not set.
        if !names.contains("expect") { headerList = curl.slistAppend(headerList, "Expect:") }
        if request.body != nil, !names.contains("content-type") { headerList = curl.slistAppend(headerList, "Content-Type:") }

        var code: CURLcode = withExtendedLifetime(url) {
            errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
                var setup = CURLE_OK
                func set(_ result: CURLcode) { if setup == CURLE_OK { setup = result } }
                set(authdeck_curl_setopt_pointer(curl.setopt, easy, CURLOPT_CURLU, UnsafeMutableRawPointer(url.handle)))
                set(authdeck_curl_setopt_pointer(curl.setopt, easy, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorPointer.baseAddress!)))
                set(authdeck_curl_setopt_string(curl.setopt, easy, CURLOPT_PROTOCOLS_STR, "http,https"))
                set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_NOSIGNAL, 1))
                set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_FOLLOWLOCATION, 0))
                set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_SSL_VERIFYPEER, 1))
                set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_SSL_VERIFYHOST, 2))
                set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2))
                if let bundle = configuration.caBundlePath ?? environmentCABundle() {
                    set(authdeck_curl_setopt_string(curl.setopt, easy, CURLOPT_CAINFO, bundle))
                }
                if url.isLoopback {
                    set(authdeck_curl_setopt_string(curl.setopt, easy, CURLOPT_PROXY, ""))
                }
                set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(configuration.connectTimeout * 1000))))
                set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_TIMEOUT_MS, remainingMilliseconds))
                set(authdeck_curl_setopt_off_t(curl.setopt, easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maximumResponseBytes)))
                if !names.contains("user-agent") {
                    set(authdeck_curl_setopt_string(curl.setopt, easy, CURLOPT_USERAGENT, configuration.userAgent))
                }
                set(authdeck_curl_setopt_slist(curl.setopt, easy, CURLOPT_HTTPHEADER, headerList))

                switch request.method {
                case .get where request.body != nil:
                    // Setting a body would otherwise turn the request into a POST.
                    set(authdeck_curl_setopt_string(curl.setopt, easy, CURLOPT_CUSTOMREQUEST, "GET"))
                case .get:
                    set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_HTTPGET, 1))
                case .head:
                    set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_NOBODY, 1))
                case .post:
                    set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_POST, 1))
                default:
                    set(authdeck_curl_setopt_string(curl.setopt, easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
                }
                if let body = request.body, request.method != .head {
                    set(authdeck_curl_setopt_off_t(curl.setopt, easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                    // COPYPOSTFIELDS copies the bytes; NUL bytes are fine because the size is set first.
                    set(body.withUnsafeBytes { bytes in
                        let start = bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)
                        return authdeck_curl_setopt_pointer(curl.setopt, easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: start))
                    })
                } else if request.method == .post {
                    set(authdeck_curl_setopt_off_t(curl.setopt, easy, CURLOPT_POSTFIELDSIZE_LARGE, 0))
                    set(authdeck_curl_setopt_string(curl.setopt, easy, CURLOPT_COPYPOSTFIELDS, ""))
                }

                set(authdeck_curl_setopt_data_callback(curl.setopt, easy, CURLOPT_WRITEFUNCTION, curlWriteBody))
                set(authdeck_curl_setopt_pointer(curl.setopt, easy, CURLOPT_WRITEDATA, statePointer))
                set(authdeck_curl_setopt_data_callback(curl.setopt, easy, CURLOPT_HEADERFUNCTION, curlWriteHeader))
                set(authdeck_curl_setopt_pointer(curl.setopt, easy, CURLOPT_HEADERDATA, statePointer))
                set(authdeck_curl_setopt_long(curl.setopt, easy, CURLOPT_NOPROGRESS, 0))
                set(authdeck_curl_setopt_xferinfo_callback(curl.setopt, easy, curlProgress))
                set(authdeck_curl_setopt_pointer(curl.setopt, easy, CURLOPT_XFERINFODATA, statePointer))
                guard setup == CURLE_OK else { return setup }
                return withExtendedLifetime(state) { curl.easyPerform(easy) }
            }
        }
        if cancellation.isCancelled && code != CURLE_OK { code = CURLE_ABORTED_BY_CALLBACK }

        guard code == CURLE_OK else {
            let detail = errorBuffer.first == 0
                ? (curl.easyStrerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)")
                : String(decoding: errorBuffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var failure = transportError(code, detail: detail, url: display, state: state, easy: easy, totalTimeout: totalTimeout(request))
            // Say so when a proxy was configured for this request (never its credentials).
            if let note = ProxyEnvironment.note(scheme: url.scheme, host: url.host, isLoopback: url.isLoopback,
                                                environment: ProcessInfo.processInfo.environment) {
                failure = failure.annotatingURL(note)
            }
            return .failure(failure)
        }

        var status = 0
        _ = authdeck_curl_getinfo_long(curl.getinfo, easy, CURLINFO_RESPONSE_CODE, &status)
        var redirectTarget: UnsafeMutablePointer<CChar>?
        var location: String?
        if authdeck_curl_getinfo_string(curl.getinfo, easy, CURLINFO_REDIRECT_URL, &redirectTarget) == CURLE_OK, let redirectTarget {
            location = String(cString: redirectTarget)
        }
        return .success((HTTPResponse(status: status, headers: state.headers, body: state.body), location))
    }

    private func transportError(_ code: CURLcode, detail: String, url: String, state: TransferState, easy: UnsafeMutableRawPointer,
                                totalTimeout: Double) -> TransportError {
        switch code {
        case CURLE_ABORTED_BY_CALLBACK where state.cancellation.isCancelled:
            return .cancelled
        case CURLE_WRITE_ERROR where state.exceededLimit, CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(url: url, limit: configuration.maximumResponseBytes)
        case CURLE_OPERATION_TIMEDOUT:
            var connectTime: curl_off_t = 0
            _ = authdeck_curl_getinfo_off_t(curl.getinfo, easy, CURLINFO_APPCONNECT_TIME_T, &connectTime)
            var tcpConnectTime: curl_off_t = 0
            _ = authdeck_curl_getinfo_off_t(curl.getinfo, easy, CURLINFO_CONNECT_TIME_T, &tcpConnectTime)
            let connected = connectTime > 0 || (tcpConnectTime > 0 && url.hasPrefix("http:"))
            return .timeout(url: url, seconds: connected ? totalTimeout : min(configuration.connectTimeout, totalTimeout))
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_USE_SSL_FAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CLIENTCERT:
            return .tls(url: url, detail: detail)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            // The request may have been sent: the server may have acted on it.
            return .interrupted(url: url, detail: detail)
        default:
            return .connection(url: url, detail: detail)
        }
    }

    private func isSafeHeader(_ header: HTTPHeader) -> Bool {
        let nameOK = !header.name.isEmpty && header.name.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7f && $0 != ":" }
        let valueOK = header.value.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7f) }
        return nameOK && valueOK
    }

    private func environmentCABundle() -> String? {
        guard let path = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !path.isEmpty else { return nil }
        return path
    }
}

// MARK: - libcurl callbacks (C function pointers: no captures)

private let curlWriteBody: authdeck_curl_data_callback = { buffer, size, count, userData in
    let state = Unmanaged<TransferState>.fromOpaque(userData!).takeUnretainedValue()
    let length = size * count
    guard state.body.count + length <= state.maximumBytes else {
        state.exceededLimit = true
        return 0 // makes libcurl fail with CURLE_WRITE_ERROR
    }
    if let buffer, length > 0 {
        state.body.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: length)
    }
    return length
}

private let curlWriteHeader: authdeck_curl_data_callback = { buffer, size, count, userData in
    let state = Unmanaged<TransferState>.fromOpaque(userData!).takeUnretainedValue()
    let length = size * count
    guard let buffer else { return length }
    let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: length), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        // A new response starts (100 Continue, proxy CONNECT, ...): keep only the last one's headers.
        state.headers = [:]
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].trimmingWhitespace().lowercased()
        let value = line[line.index(after: colon)...].trimmingWhitespaceAndNewlines()
        // WWW-Authenticate is a list (RFC 9110 §11.6.1): its field lines join with ", " (§5.3),
        // so a challenge in a second line is kept; any other repeated header keeps the last.
        if name == "www-authenticate", let earlier = state.headers[name] {
            state.headers[name] = earlier + ", " + value
        } else if !name.isEmpty {
            state.headers[name] = value
        }
    }
    return length
}

private let curlProgress: authdeck_curl_xferinfo_callback = { userData, _, _, _, _ in
    let state = Unmanaged<TransferState>.fromOpaque(userData!).takeUnretainedValue()
    return state.cancellation.isCancelled ? 1 : 0
}

extension TransportError {
    /// The same error with `(note)` after its URL (what a person reads first).
    func annotatingURL(_ note: String) -> TransportError {
        switch self {
        case .timeout(let url, let seconds): .timeout(url: "\(url) (\(note))", seconds: seconds)
        case .connection(let url, let detail): .connection(url: "\(url) (\(note))", detail: detail)
        case .interrupted(let url, let detail): .interrupted(url: "\(url) (\(note))", detail: detail)
        case .tls(let url, let detail): .tls(url: "\(url) (\(note))", detail: detail)
        case .responseTooLarge, .insecureURL, .cancelled: self
        }
    }
}
