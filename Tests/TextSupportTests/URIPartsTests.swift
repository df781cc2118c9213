import Testing
import TextSupport

/// RFC 3986 §3 as the credential helpers and `login URL` read a URL: the authority ends at the first
/// `/`, `?` or `#`; what browsers and HTTP libraries read differently is no URI at all.
@Suite("URIParts: RFC 3986 §3 split of a URL that decides where a secret goes")
struct URIPartsTests {
    @Test("RFC 3986 §3.2: the host comes from the authority only; ?, # end it (evil.test?.gcr.io is evil.test)",
          arguments: [
              ("https://evil.test?.gcr.io", "evil.test"), ("https://evil.test#.gcr.io", "evil.test"), ("https://evil.test/.gcr.io", "evil.test"),
              ("https://gcr.io", "gcr.io"), ("https://eu.gcr.io:443/v2/", "eu.gcr.io:443"), ("http://[::1]:5000/v2", "[::1]:5000"),
              ("https://alice@github.com/o/r.git", "github.com"), ("HTTPS://GCR.IO", "gcr.io"),
          ])
    func hostFromAuthority(_ text: String, _ expected: String) throws {
        let parts = try #require(URIParts(text))
        #expect(parts.hostAndPort == expected)
    }

    @Test("RFC 3986 §3.1: the scheme is case-insensitive (HTTP://gcr.io is http)")
    func schemeCase() throws {
        #expect(try #require(URIParts("HTTP://gcr.io")).scheme == "http")
        #expect(try #require(URIParts("hTtPs://gcr.io")).scheme == "https")
    }

    @Test("No URI: a backslash, a space or control character, two @, a percent-encoded host, a bad port, no authority",
          arguments: [
              "https://evil.test\\.gcr.io", "https://evil.test\\@gcr.io", "https://evil .gcr.io", "https://evil\t.gcr.io", "https://a@b@gcr.io",
              "https://evil%2e.gcr.io", "https://gcr.io:99999", "https://gcr.io:4x3", "https://", "https:gcr.io", "gcr.io", "://gcr.io",
              "https://[::1", "https://[::1]x", "https://:443", "1https://gcr.io", "https://[evil.test]",
          ])
    func refused(_ text: String) {
        #expect(URIParts(text) == nil, "\(text.debugDescription)")
    }

    @Test("RFC 3986 §3.2.1: userinfo is found, and left out of withoutUserinfo")
    func userinfo() throws {
        let parts = try #require(URIParts("http://user:pass@127.0.0.1:8080/mcp?x=1#f"))
        #expect(parts.userinfo == "user:pass")
        #expect(parts.withoutUserinfo == "http://127.0.0.1:8080/mcp?x=1#f")
        #expect(parts.path == "/mcp")
        #expect(parts.query == "x=1")
        #expect(parts.fragment == "f")
        #expect(try #require(URIParts("https://@host/")).userinfo == "")
        #expect(try #require(URIParts("https://host/a@b")).userinfo == nil, "an @ in the path is not userinfo")
    }

    @Test("hostAndPort: a git host= value is exactly one authority (no userinfo, path, query or fragment)")
    func hostAndPort() {
        #expect(URIParts.hostAndPort("gcr.io")?.host == "gcr.io")
        #expect(URIParts.hostAndPort("GitHub.com:8443")?.hostAndPort == "github.com:8443")
        #expect(URIParts.hostAndPort("[::1]:3000")?.host == "[::1]")
        for bad in ["evil.test?.gcr.io", "evil.test#.gcr.io", "evil.test\\.gcr.io", "a@gcr.io", "gcr.io/x", "", "gcr.io:"] {
            #expect(URIParts.hostAndPort(bad) == nil, "\(bad.debugDescription)")
        }
    }
}
