import AuthEngine
import Foundation
import Testing

@Suite("A redirect pasted back (RFC 8252 §7.3 by hand)")
struct PastedRedirectParsingTests {
    static let redirectURI = URL(string: "http://127.0.0.1:8765/callback")!

    func parse(_ line: String) -> Result<PastedRedirect, PastedRedirectProblem> { parsePastedRedirect(line, redirectURI: Self.redirectURI) }

    @Test("The whole address: a GET on the redirect path with its parameters, decoded; a fragment and white space dropped")
    func wholeAddress() {
        let expected = RedirectCallback(method: "GET", path: "/callback", parameters: [("code", "a b/c"), ("state", "s1"), ("iss", "https://op")])
        #expect(parse(" http://127.0.0.1:8765/callback?code=a+b%2Fc&state=s1&iss=https%3A%2F%2Fop#frag\n") == .success(.callback(expected)))
        #expect(parse("?code=x&state=s") == .success(.callback(RedirectCallback(method: "GET", path: "/callback",
                                                                                  parameters: [("code", "x"), ("state", "s")]))))
        #expect(parse("code=x&state=s") == .success(.callback(RedirectCallback(method: "GET", path: "/callback",
                                                                                 parameters: [("code", "x"), ("state", "s")]))))
    }

    @Test("Another port, host, path or scheme is another redirect URI: refused, compared code unit for code unit")
    func otherRedirectURIs() {
        for other in ["http://127.0.0.1:8766/callback", "http://localhost:8765/callback", "http://127.0.0.1:8765/callback/",
                      "https://127.0.0.1:8765/callback", "http://127.0.0.1:8765/Callback", "http://[::1]:8765/callback"] {
            #expect(parse(other + "?code=x&state=s") == .failure(.otherRedirectURI(expected: Self.redirectURI.absoluteString, actual: other)))
        }
    }

    @Test("The code alone (Google's have a slash); nothing, a stray word, or text with spaces or control characters, is no redirect")
    func codeAloneAndJunk() {
        #expect(parse("SplxlOBeZQQYbYS6WxSbIA") == .success(.codeAlone(AuthorizationCode("SplxlOBeZQQYbYS6WxSbIA"))))
        #expect(parse("4/0AX4XfWh-abcdefgh") == .success(.codeAlone(AuthorizationCode("4/0AX4XfWh-abcdefgh"))))
        #expect(parse("   ") == .failure(.empty))
        #expect(parse("q") == .failure(.tooShort))
        #expect(parse("junk") == .failure(.tooShort))
        #expect(parse("two words") == .failure(.unreadable))
        #expect(parse("code\u{1B}[2J") == .failure(.unreadable))
        #expect(parse("cödé") == .failure(.unreadable))
    }

    @Test("Part of an address (no scheme, a host, /callback) is refused, never sent as a code; an error redirect's query is a redirect")
    func partsAndErrors() {
        for part in ["127.0.0.1:8765/callback?code=x&state=s&iss=i", "localhost:8765/callback?code=x", "[::1]:8765/callback?code=x",
                     "/callback?code=x&state=s", "abcdefgh?x", "abcdefgh#x"] {
            #expect(parse(part) == .failure(.partOfAnAddress), "\(part)")
        }
        #expect(parse("error=access_denied&state=s") == .success(.callback(RedirectCallback(
            method: "GET", path: "/callback", parameters: [("error", "access_denied"), ("state", "s")]))))
        #expect(parse("iss=https%3A%2F%2Fop&code=x") == .success(.callback(RedirectCallback(
            method: "GET", path: "/callback", parameters: [("iss", "https://op"), ("code", "x")]))))
    }

    @Test("A fragment is cut first, as a browser does: …/callback#frag?code=… has no query")
    func fragmentFirst() {
        #expect(parse("http://127.0.0.1:8765/callback#frag?code=x&state=s") == .success(.callback(RedirectCallback(
            method: "GET", path: "/callback", parameters: []))))
    }
}
