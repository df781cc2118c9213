import FoundationEssentials

/// The proxy a request goes through, as libcurl picks it from the environment (libcurl's
/// `ENVIRONMENT` rules): `https_proxy` / `HTTPS_PROXY` for https, `http_proxy` (lower case
/// only) for http, else `all_proxy` / `ALL_PROXY`; none when `no_proxy` / `NO_PROXY` is `*` or
/// names the host or a domain it is in, and none for loopback targets (the client sets no proxy
/// for them). Used to say, in a transport error, that a proxy was configured for the request.
enum ProxyEnvironment {
    /// `through the proxy http://host:port from HTTPS_PROXY` for a request to `scheme`/`host`,
    /// or nil when it goes direct. The proxy is shown as scheme, host and port only: its user
    /// name and password never appear (`http://user:secret@proxy:3128` → `http://proxy:3128`).
    static func note(scheme: String, host: String, isLoopback: Bool, environment: [String: String]) -> String? {
        guard !isLoopback else { return nil }
        let scheme = scheme.lowercased()
        let names = (scheme == "https" ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]) + ["all_proxy", "ALL_PROXY"]
        guard let name = names.first(where: { !(environment[$0] ?? "").isEmpty }), let value = environment[name] else { return nil }
        if let exclusions = environment["no_proxy"] ?? environment["NO_PROXY"], excludes(exclusions, host: host) { return nil }
        return "through the proxy \(shown(value)) from \(name)"
    }

    /// Whether a `no_proxy` list (comma-separated host names or domains, a leading `.`
    /// optional; `*` for every host) excludes `host`.
    static func excludes(_ list: String, host: String) -> Bool {
        let host = host.lowercased().trimming(where: { $0 == "[" || $0 == "]" })
        for entry in list.split(separator: ",") {
            var name = entry.trimming(where: { $0 == " " || $0 == "\t" }).lowercased()
            if name == "*" { return true }
            if name.hasPrefix(".") { name.removeFirst() }
            name = name.trimming(where: { $0 == "[" || $0 == "]" })
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// `value` as scheme://host:port, without user information (a value libcurl takes without
    /// a scheme, `proxy:3128`, is read as http); "a proxy" when it cannot be read.
    static func shown(_ value: String) -> String {
        let text = value.contains("://") ? value : "http://" + value
        guard let url = URL(string: text), let scheme = url.scheme, let host = url.host, !host.isEmpty else { return "(unreadable)" }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)\(url.port.map { ":\($0)" } ?? "")"
    }
}
