// The commands against the real local provider (Tests/IdentityProvider), each in its own
// temporary home; the browser is the provider's stand-in as $BROWSER.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object")
}

/// RFC 3339 UTC with seconds (`2026-11-30T10:20:49Z`), as every `--json` time is written.
func parseRFC3339(_ value: Any?) -> Date? {
    guard let text = value as? String, text.hasSuffix("Z") else { return nil }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text)
}

/// A signed-in home on the shared provider, alice through the browser stand-in.
func signedInHome(_ idp: LocalIdentityProvider, user: String = "alice") async throws -> CLIHome {
    let home = try CLIHome(provider: idp, user: user)
    try await home.addLocalProvider(idp)
    try await home.login(user: user)
    return home
}

// Serialized: concurrent token requests make the local provider answer HTTP 500 (see the report).
@Suite("CLI commands against the real local provider", .serialized)
struct LiveCommandTests {
    @Test("status --json: documented schema (types, RFC 3339 UTC times, seconds), exit 0 when healthy")
    func statusJSONSchema() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let (result, status) = try await home.statusJSON()
        #expect(result.exitCode == 0, "\(result)")
        let store = try #require(status["store"] as? [String: Any])
        #expect(store["backend"] as? String == "vault")
        #expect(store["insecure"] as? Bool == false)
        #expect(store["locked"] as? Bool == false)
        #expect(parseRFC3339(status["generatedAt"]) != nil)
        let accounts = try #require(status["accounts"] as? [[String: Any]])
        #expect(accounts.count == 1)
        let account = accounts[0]
        #expect(status["activeAccount"] as? String == account["id"] as? String)
        for key in ["id", "handle", "provider", "issuer", "subject", "displayName", "username", "email", "status", "storage", "signedInAt"] {
            #expect(account[key] is String, "\(key) is a string")
        }
        for key in ["active", "needsAttention", "plainHTTPLoopback"] { #expect(account[key] is Bool, "\(key) is a bool") }
        #expect(account["handle"] as? String == "local/alice")
        #expect(account["alias"] is NSNull)
        #expect(account["active"] as? Bool == true)
        #expect(account["status"] as? String == "valid")
        #expect(account["plainHTTPLoopback"] as? Bool == true)
        #expect(account["lastRefreshAt"] is NSNull)
        #expect(parseRFC3339(account["signedInAt"]) != nil)
        let access = try #require(account["accessToken"] as? [String: Any])
        let expiresAt = try #require(parseRFC3339(access["expiresAt"]))
        let secondsLeft = try #require(access["secondsLeft"] as? Int)
        #expect(abs(Double(secondsLeft) - expiresAt.timeIntervalSinceNow) < 5)
        #expect(secondsLeft > 3000 && secondsLeft <= 3600)
        #expect((access["scopes"] as? [String])?.contains("openid") == true)
        let tokens = try #require(account["accessTokens"] as? [[String: Any]])
        #expect(tokens.count == 1 && tokens[0]["resource"] is NSNull && tokens[0]["tokenType"] as? String == "Bearer")
        let refresh = try #require(account["refreshToken"] as? [String: Any])
        #expect(refresh["present"] as? Bool == true)
        let idToken = try #require(account["idToken"] as? [String: Any])
        #expect(parseRFC3339(idToken["expiresAt"]) != nil)
        #expect((idToken["signature"] as? [String: Any])?["verified"] as? Bool == true)
        #expect((account["scopes"] as? [String])?.contains("email") == true)
        // No secret in the metadata output.
        let token = try await home.run(["token"])
        #expect(!result.stdout.contains(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test("token --min-valid refreshes a token that would expire too soon (fresh token, new expiry in status)")
    func tokenMinValidRefreshes() async throws {
        let idp = try await LocalIdentityProvider.start(accessTokenLifetime: 20)
        defer { Task { await idp.stop() } }
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let first = try await home.run(["token", "--min-valid", "5"])
        #expect(first.exitCode == 0, "\(first)")
        let (_, before) = try await home.statusJSON()
        let beforeExpiry = try #require(parseRFC3339(((before["accounts"] as? [[String: Any]])?.first?["accessToken"] as? [String: Any])?["expiresAt"]))
        let second = try await home.run(["token", "--min-valid", "5"])
        #expect(second.stdout == first.stdout, "still valid for 5 s: the cached token, no refresh")

        // More than the token's whole lifetime (20 s): a warning, half the lifetime instead, no refresh on every call.
        let tooLong = try await home.run(["token", "--min-valid", "30"])
        #expect(tooLong.exitCode == 0 && tooLong.stdout == first.stdout, "\(tooLong)")
        #expect(tooLong.stderr.contains("whole lifetime"), "\(tooLong)")

        try await Task.sleep(for: .seconds(1.5))
        let refreshed = try await home.run(["token", "--min-valid", "19"])
        #expect(refreshed.exitCode == 0, "\(refreshed)")
        let token = refreshed.stdout.trimmingCharacters(in: .newlines)
        #expect(!token.isEmpty && refreshed.stdout != first.stdout, "a 20 s token 1.5 s old does not stay valid for 19 s: refreshed")
        let (_, after) = try await home.statusJSON()
        let account = try #require((after["accounts"] as? [[String: Any]])?.first)
        let afterExpiry = try #require(parseRFC3339((account["accessToken"] as? [String: Any])?["expiresAt"]))
        #expect(afterExpiry > beforeExpiry)
        #expect(parseRFC3339(account["lastRefreshAt"]) != nil)

        // The provider knows the new token; the old one was replaced.
        let api = try await home.run(["api", idp.endpoints.userinfo.absoluteString])
        #expect(api.exitCode == 0, "\(api)")
    }

    @Test("token --exec-credential: a Kubernetes client.authentication.k8s.io/v1 ExecCredential")
    func execCredential() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let plain = try await home.run(["token"])
        let result = try await home.run(["token", "--exec-credential"])
        #expect(result.exitCode == 0, "\(result)")
        let credential = try jsonObject(result.stdout)
        // The ExecCredential v1 type: apiVersion, kind, status{token, expirationTimestamp (RFC 3339)}; no spec on output.
        #expect(Set(credential.keys) == ["apiVersion", "kind", "status"])
        #expect(credential["apiVersion"] as? String == "client.authentication.k8s.io/v1")
        #expect(credential["kind"] as? String == "ExecCredential")
        let status = try #require(credential["status"] as? [String: Any])
        #expect(Set(status.keys).isSubset(of: ["token", "expirationTimestamp", "clientCertificateData", "clientKeyData"]))
        #expect(status["token"] as? String == plain.stdout.trimmingCharacters(in: .newlines))
        let expiry = try #require(parseRFC3339(status["expirationTimestamp"]))
        #expect(expiry > Date())

        let json = try jsonObject(try await home.run(["token", "--json"]).stdout)
        #expect(json["type"] as? String == "access_token")
        #expect(json["token"] as? String == status["token"] as? String)
        #expect(json["secondsLeft"] is Int && parseRFC3339(json["expiresAt"]) == expiry)
    }

    @Test("--json text as jansson writes it: true/false not 1/0, whole seconds without '.0', null members kept, two-space indentation, sorted")
    func jsonTextShape() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let status = try await home.run(["status", "--json"]).stdout
        #expect(status.hasPrefix("{\n  \"accounts\": [\n") && status.hasSuffix("}\n"), "\(status)")
        #expect(status.contains(#""active": true,"#) && status.contains(#""needsAttention": false,"#) && status.contains(#""insecure": false,"#))
        #expect(status.contains(#""alias": null,"#) && !status.contains(#"" : "#))
        #expect(status.range(of: #""secondsLeft": [0-9]+,"#, options: .regularExpression) != nil)
        #expect(status.range(of: #""secondsLeft": [0-9]+\.[0-9]"#, options: .regularExpression) == nil)
        let credential = try await home.run(["token", "--exec-credential"]).stdout
        #expect(credential.hasPrefix("{\n  \"apiVersion\": \"client.authentication.k8s.io/v1\",\n  \"kind\": \"ExecCredential\",\n  \"status\": {\n"), "\(credential)")
        let json = try await home.run(["token", "--json"]).stdout
        #expect(json.contains(#""resource": null,"#) && json.range(of: #""secondsLeft": [0-9]+,"#, options: .regularExpression) != nil, "\(json)")
    }

    @Test("api calls the provider's userinfo endpoint with the bearer token; -i puts the status on stderr")
    func apiUserinfo() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let result = try await home.run(["api", "-i", idp.endpoints.userinfo.absoluteString])
        #expect(result.exitCode == 0, "\(result)")
        let claims = try jsonObject(result.stdout)
        #expect(claims["preferred_username"] as? String == "alice")
        #expect(result.stderr.hasPrefix("HTTP 200"))
        // Without a token the same endpoint refuses: the header is what made it work.
        let refused = try await home.run(["api", idp.endpoints.userinfo.absoluteString], extra: ["AUTHDECK_ACCOUNT": "nobody"])
        #expect(refused.exitCode == 2 && refused.stderr.contains("$AUTHDECK_ACCOUNT"), "an unknown account, named with where it came from: \(refused)")

        // POST with a body from stdin (OIDC Core 5.3.1: userinfo accepts POST).
        let post = try await home.run(["api", "-X", "POST", "-d", "@-", "-H", "Content-Type: application/x-www-form-urlencoded",
                                       idp.endpoints.userinfo.absoluteString], stdin: Data())
        #expect(post.exitCode == 0, "\(post)")
        #expect(try jsonObject(post.stdout)["sub"] is String)
        // An HTTP error status exits 1 (the body still goes to stdout).
        let missing = try await home.run(["api", idp.issuer.appendingPathComponent("no-such-api/").absoluteString])
        #expect(missing.exitCode == 1, "\(missing)")
        // Plain http off loopback is refused before any token is sent.
        let insecure = try await home.run(["api", "http://api.example.com/"])
        #expect(insecure.exitCode == 2, "\(insecure)")

        let userinfo = try await home.run(["userinfo", "--json"])
        #expect(try jsonObject(userinfo.stdout)["email"] as? String == "alice@example.test")
        let introspection = try jsonObject(try await home.run(["introspect", "--json"]).stdout)
        #expect(introspection["active"] as? Bool == true)
    }

    @Test("decode --verify accepts a valid ID token from the local provider (OIDC Core 3.1.3.7)")
    func decodeVerifyAccepts() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let idToken = try await home.run(["token", "--id-token"])
        #expect(idToken.exitCode == 0)
        let result = try await home.run(["decode", "--json", "--verify", "--issuer", idp.issuer.absoluteString, "--audience", idp.nativeClient.clientID],
                                        stdin: Data(idToken.stdout.utf8))
        #expect(result.exitCode == 0, "\(result)")
        let decoded = try jsonObject(result.stdout)
        #expect(decoded["kind"] as? String == "jws")
        #expect((decoded["header"] as? [String: Any])?["alg"] as? String == "RS256")
        #expect((decoded["claims"] as? [String: Any])?["iss"] as? String == idp.issuer.absoluteString)
        #expect(parseRFC3339((decoded["times"] as? [String: Any])?["exp"]) != nil)
        #expect((decoded["verification"] as? [String: Any])?["valid"] as? Bool == true)
        // Without --verify: decoded, and said to be unverified.
        let plain = try await home.run(["decode", "-"], stdin: Data(idToken.stdout.utf8))
        #expect(plain.exitCode == 0 && plain.stdout.contains("not verified"))
    }

    struct Rejection: Sendable, CustomStringConvertible {
        var name: String
        var rule: String
        var description: String { "\(name) → \(rule)" }
    }

    @Test("decode --verify rejects with exit 1 and names the rule", arguments: [
        Rejection(name: "OIDC Core 3.1.3.7 step 3: wrong audience", rule: "audienceMismatch"),
        Rejection(name: "OIDC Core 3.1.3.7 step 11: wrong nonce", rule: "nonceMismatch"),
        Rejection(name: "Sign in with Apple: wrong hashed nonce", rule: "nonceMismatch"),
        Rejection(name: "OIDC Core 3.1.3.7 step 6: bad signature (a flipped byte)", rule: "signatureInvalid"),
        Rejection(name: "RFC 8725 3.1: alg none", rule: "algorithmNotAllowed"),
    ])
    func decodeVerifyRejects(_ rejection: Rejection) async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let idToken = try await home.run(["token", "--id-token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = idToken.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        var token = idToken
        let issuer = idp.issuer.absoluteString
        var audience = idp.nativeClient.clientID
        var extra: [String] = []
        switch rejection.rule {
        case "audienceMismatch": audience = "someone-else"
        case "nonceMismatch":
            extra = rejection.name.contains("hashed") ? ["--nonce-sha256", "raw-nonce-from-the-app"] : ["--nonce", "not-the-nonce"]
        case "signatureInvalid":
            var signature = Array(parts[2])
            let index = signature.count / 2
            signature[index] = signature[index] == "A" ? "B" : "A"
            token = [parts[0], parts[1], String(signature)].joined(separator: ".")
        case "algorithmNotAllowed":
            let header = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            token = "\(header).\(parts[1])."
        default: break
        }
        let result = try await home.run(["decode", "--json", "--verify", "--issuer", issuer, "--audience", audience] + extra, stdin: Data(token.utf8))
        #expect(result.exitCode == 1, "\(result)")
        let verification = try #require(try jsonObject(result.stdout)["verification"] as? [String: Any])
        #expect(verification["valid"] as? Bool == false)
        #expect(verification["rule"] as? String == rejection.rule, "\(verification)")
        #expect(result.stderr.contains("error: "), "the error goes to stderr too")
    }

    @Test("decode --verify rejects an expired ID token (OIDC Core 3.1.3.7 step 9)")
    func decodeVerifyRejectsExpired() async throws {
        // An ID token the provider signed, back-dated to have expired two minutes ago: past the
        // 30 s of clock skew validation allows, without waiting for one to expire.
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome()
        defer { home.remove() }
        let now = Int(Date().timeIntervalSince1970)
        let grant = try await idp.mintGrant(prefix: "expired", accessTokenExpiresAt: now + 3600, idTokenExpiresAt: now - 120)
        let result = try await home.run(["decode", "--json", "--verify", "--issuer", idp.issuer.absoluteString, "--audience", idp.nativeClient.clientID],
                                        stdin: Data(grant.idToken.exposedValue.utf8))
        #expect(result.exitCode == 1, "\(result)")
        let verification = try #require(try jsonObject(result.stdout)["verification"] as? [String: Any])
        #expect(verification["rule"] as? String == "expired", "\(verification)")
    }

    @Test("decode recognises opaque tokens and JWEs without claiming to read them")
    func decodeKinds() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let opaque = try await home.run(["decode", "--json", "-"], stdin: Data("gho_16C7e42F292c6912E7710c838347Ae178B4a".utf8))
        #expect(opaque.exitCode == 0)
        #expect(try jsonObject(opaque.stdout)["kind"] as? String == "opaque")
        let header = Data(#"{"alg":"RSA-OAEP","enc":"A256GCM"}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let jwe = try await home.run(["decode", "--json", "\(header).a.b.c.d"])
        #expect(try jsonObject(jwe.stdout)["kind"] as? String == "jwe")
    }

    @Test("Ctrl-C during a browser login cancels it: exit 130, listener closed, nothing stored")
    func interruptLogin() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        try await home.addLocalProvider(idp)
        let login = try home.start(["login", "--no-browser"])
        let port = await login.waitForStderr(#"redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A([0-9]+)%2F"#)
        let listenerPort = try #require(port.flatMap(Int.init), "the URL on stderr: \(login.stderrText)")
        #expect(canConnect(port: listenerPort), "the loopback listener is up while waiting")
        login.signal(SIGINT)
        let result = await login.wait(timeout: 10)
        #expect(result.exitCode == 130, "\(result)")
        #expect(result.stderr.contains("nothing was stored"))
        #expect(!canConnect(port: listenerPort), "the listener is closed")
        let (_, status) = try await home.statusJSON()
        #expect((status["accounts"] as? [Any])?.isEmpty == true)
    }
}

extension LiveCommandTests {
    @Test("Ctrl-C while the device flow waits for approval: exit 130, nothing stored (RFC 8628 3.4 polling stops)")
    func interruptDeviceLogin() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        try await home.addLocalProvider(idp)
        let login = try home.start(["login", "--device"])
        let code = await login.waitForStderr(#"enter the code: (\S+)"#)
        #expect(code != nil, "\(login.stderrText)")
        login.signal(SIGINT)
        let result = await login.wait(timeout: 10)
        #expect(result.exitCode == 130, "\(result)")
        // Approving now finds nobody polling; still nothing is stored.
        _ = try await idp.approveDevice(userCode: code ?? "", user: "bob")
        let (_, status) = try await home.statusJSON()
        #expect((status["accounts"] as? [Any])?.isEmpty == true)
    }
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

extension LiveCommandTests {
    /// Times, distances and ports masked so the golden stays stable.
    static func normalized(_ text: String, port: Int) -> String {
        var out = text.replacingOccurrences(of: ":\(port)/", with: ":PORT/")
        for (pattern, replacement) in [
            (#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"#, "<time>"),
            (#"\((in |)[0-9dhms ]+( ago|)\)"#, "(<relative>)"),
            (#"authenticated [^(\n]+ \("#, "authenticated <age> ("),
        ] {
            out = out.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return out
    }

    @Test("status (text): one signed-in account on the plain-HTTP loopback provider, as a golden")
    func statusTextGolden() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let status = try await home.run(["status"])
        #expect(status.exitCode == 0)
        try assertSnapshot(Self.normalized(status.stdout, port: idp.port), named: "status-one-account")
        // The endpoints discovery found, marked as such (the configured ones are not).
        let show = try await home.run(["provider", "show", "local"])
        try assertSnapshot(Self.normalized(show.stdout, port: idp.port), named: "provider-show-local")
        let json = try jsonObject(try await home.run(["provider", "show", "local", "--json"]).stdout)
        let discovered = try #require(json["discovered"] as? [String: Any], "\(json)")
        #expect(discovered["token"] as? String == idp.endpoints.token.absoluteString)
        #expect(discovered["jwks"] as? String == idp.endpoints.jwks.absoluteString)
        #expect(discovered["pushedAuthorizationRequest"] is NSNull)
        #expect(json["discoveryError"] is NSNull)
        #expect((json["endpoints"] as? [String: Any])?["token"] is NSNull, "not configured")
        // A provider whose discovery fails: shown, with why, exit 0.
        _ = try await home.run(["provider", "add", "--no-probe", "down", "--issuer", "http://127.0.0.1:1/o", "--client-id", "c"])
        let down = try await home.run(["provider", "show", "down"])
        #expect(down.exitCode == 0 && down.stdout.contains("discovered endpoints: unknown, discovery failed: "), "\(down)")
    }

    @Test("status exits 0 while an idle access token has expired but its refresh token is fine (not 'needs attention'); token refreshes it")
    func statusExpiredNeedsAttention() async throws {
        // The sign-in's access token lives 1 s (a refreshed one an hour): expired at once.
        let idp = try await LocalIdentityProvider.start(signInAccessTokenLifetime: 1)
        defer { Task { await idp.stop() } }
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let (_, signedIn) = try await home.statusJSON()
        let expiresAt = try #require(parseRFC3339(((signedIn["accounts"] as? [[String: Any]])?.first?["accessToken"] as? [String: Any])?["expiresAt"]))
        // expiresAt is printed in whole seconds: a second past it, the token has surely expired.
        let wait = expiresAt.timeIntervalSinceNow + 1.2
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
        let (expired, status) = try await home.statusJSON()
        let account = try #require((status["accounts"] as? [[String: Any]])?.first)
        #expect(account["status"] as? String == "expired")
        #expect(account["needsAttention"] as? Bool == false, "the refresh token renews it on the next use")
        #expect(((account["accessToken"] as? [String: Any])?["secondsLeft"] as? Int ?? 0) < 0)
        #expect(expired.exitCode == 0, "\(expired)")
        let text = try await home.run(["status"])
        #expect(text.exitCode == 0, "\(text)")
        let token = try await home.run(["token"])
        #expect(token.exitCode == 0, "\(token)")
        let (healthy, after) = try await home.statusJSON()
        #expect(healthy.exitCode == 0, "\(healthy)")
        let refreshed = try #require((after["accounts"] as? [[String: Any]])?.first)
        #expect(refreshed["needsAttention"] as? Bool == false, "\(refreshed["status"] ?? "")")
        #expect(((refreshed["accessToken"] as? [String: Any])?["secondsLeft"] as? Int ?? 0) > 0)
    }
}
