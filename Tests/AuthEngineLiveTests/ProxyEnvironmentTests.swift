import Testing
@testable import AuthEngineLive

/// Which proxy libcurl takes from the environment for a request, as a transport
/// error names it — never with its user name or password.
@Suite("The proxy a request goes through (libcurl's environment rules)")
struct ProxyEnvironmentTests {
    @Test("https uses https_proxy / HTTPS_PROXY, then all_proxy; http only lower-case http_proxy; credentials never shown", arguments: [
        ("https", ["HTTPS_PROXY": "http://u:p@proxy.corp:3128"], "through the proxy http://proxy.corp:3128 from HTTPS_PROXY"),
        ("https", ["https_proxy": "proxy.corp:8080", "HTTPS_PROXY": "http://other:1"], "through the proxy http://proxy.corp:8080 from https_proxy"),
        ("https", ["ALL_PROXY": "socks5://user:secret@[::1]:1080"], "through the proxy socks5://[::1]:1080 from ALL_PROXY"),
        ("http", ["HTTP_PROXY": "http://ignored:1"], nil),
        ("http", ["http_proxy": "http://proxy.corp:3128"], "through the proxy http://proxy.corp:3128 from http_proxy"),
        ("https", [:], nil),
    ] as [(String, [String: String], String?)])
    func chosenProxy(_ scheme: String, _ environment: [String: String], _ expected: String?) {
        #expect(ProxyEnvironment.note(scheme: scheme, host: "op.example.test", isLoopback: false, environment: environment) == expected)
    }

    @Test("no_proxy (then NO_PROXY): *, the host, or a domain it is in (leading dot optional) goes direct; loopback always direct")
    func exclusions() {
        let proxy = ["HTTPS_PROXY": "http://proxy.corp:3128"]
        for list in ["*", "op.example.test", "example.test", ".example.test", "a.test, example.test"] {
            #expect(ProxyEnvironment.note(scheme: "https", host: "op.example.test", isLoopback: false, environment: proxy.merging(["no_proxy": list]) { $1 }) == nil, "\(list)")
        }
        #expect(ProxyEnvironment.note(scheme: "https", host: "op.example.test", isLoopback: false, environment: proxy.merging(["NO_PROXY": "xample.test"]) { $1 }) != nil)
        #expect(ProxyEnvironment.note(scheme: "https", host: "op.example.test", isLoopback: false, environment: proxy.merging(["no_proxy": "other.test", "NO_PROXY": "example.test"]) { $1 }) != nil,
                "no_proxy wins over NO_PROXY, as in libcurl")
        #expect(ProxyEnvironment.note(scheme: "http", host: "127.0.0.1", isLoopback: true, environment: ["http_proxy": "http://proxy.corp:3128"]) == nil)
    }
}
