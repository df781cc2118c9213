import AuthEngine
import CCurl
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import TextSupport

/// A URL parsed by libcurl (`CURLU`), checked for scheme and host.
final class CurlURL {
    let curl: Curl
    let handle: OpaquePointer
    let scheme: String
    /// Host as libcurl sees it; IPv6 literals keep their brackets.
    let host: String
    let port: String
    let isLoopback: Bool
    /// The URL without query, fragment or user info, for error values.
    let display: String

    private init(curl: Curl, handle: OpaquePointer, scheme: String, host: String, port: String, isLoopback: Bool, display: String) {
        self.curl = curl
        self.handle = handle
        self.scheme = scheme
        self.host = host
        self.port = port
        self.isLoopback = isLoopback
        self.display = display
    }

    deinit { curl.urlCleanup(handle) }

    var origin: String { "\(scheme)://\(host.lowercased()):\(port)" }

    /// Parses `string` and refuses anything but `https`, or `http` to a loopback literal.
    static func checked(_ string: String, _ curl: Curl) throws(TransportError) -> CurlURL {
        guard let handle = curl.url() else { throw .connection(url: "", detail: "out of memory") }
        guard curl.urlSet(handle, CURLUPART_URL, string, 0) == CURLUE_OK else {
            curl.urlCleanup(handle)
            throw .insecureURL(displayString(of: string))
        }
        let scheme = (part(curl, handle, CURLUPART_SCHEME) ?? "").lowercased()
        let host = part(curl, handle, CURLUPART_HOST) ?? ""
        let port = part(curl, handle, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)) ?? ""
        let path = part(curl, handle, CURLUPART_PATH) ?? "/"
        let loopback = isLoopbackLiteral(host)
        let display = "\(scheme)://\(host)\(part(curl, handle, CURLUPART_PORT).map { ":\($0)" } ?? "")\(path)"
        let url = CurlURL(curl: curl, handle: handle, scheme: scheme, host: host, port: port, isLoopback: loopback, display: display)
        guard !host.isEmpty, scheme == "https" || (scheme == "http" && loopback) else {
            throw .insecureURL(display)
        }
        return url
    }

    private static func part(_ curl: Curl, _ handle: OpaquePointer, _ what: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl.urlGet(handle, what, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl.free(value) }
        return String(cString: value)
    }

    /// 127.0.0.0/8 in strict dotted-quad form, or `[::1]`. Names (even `localhost`) are not
    /// literals: they could resolve anywhere.
    static func isLoopbackLiteral(_ host: String) -> Bool {
        if host.hasPrefix("[") && host.hasSuffix("]") {
            var address = in6_addr()
            let literal = String(host.dropFirst().dropLast())
            guard inet_pton(AF_INET6, literal, &address) == 1 else { return false }
            return withUnsafeBytes(of: &address) { bytes in
                bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
            }
        }
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return false }
        return UInt32(bigEndian: address.s_addr) >> 24 == 127
    }

    /// Scheme, host and path only (no query or user info), for refusing unparseable input.
    static func displayString(of string: String) -> String {
        guard var components = URLComponents(string: string) else { return "(unparseable URL)" }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.string ?? "(unparseable URL)"
    }
}
