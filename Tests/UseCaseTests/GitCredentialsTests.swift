import AppCore
import AuthEngine
import Foundation
import Synchronization
import Testing

/// git's credential helper over the stub world: which account, the token, and
/// `erase` as "refresh once".
@Suite("git credential helper (use case, stub environment)")
struct GitCredentialsTests {
    static func served(_ world: StubWorld, host: String = "git.example.com", username: String? = "oauth2") {
        world.files.withLock { $0.providers[0].gitHosts = [CredentialHost(host: host, username: username)] }
    }

    static func request(_ host: String = "git.example.com", scheme: String = "https", username: String? = nil, password: String? = nil) -> GitCredentialRequest {
        GitCredentialRequest(protocolName: scheme, host: host, username: username, password: password.map(HelperPassword.init))
    }

    @Test("get: a host no provider serves gets nothing; a served one the stored token and the host's username, with no request")
    func get() async throws {
        let world = StubWorld()
        Self.served(world)
        _ = try await signedIn(world)
        let requests = world.provider.total
        let env = world.environment()
        #expect(try await GitCredentials(env).get(Self.request("github.com"), environmentAccount: nil) == nil)
        let credential = try #require(try await GitCredentials(env).get(Self.request("GIT.example.com"), environmentAccount: nil))
        #expect(credential.username == "oauth2")
        #expect(credential.token.exposedValue == world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        #expect(credential.expiresAt != nil)
        #expect(world.provider.total == requests)
    }

    @Test("get: plain http only for loopback; a token about to expire is refreshed first")
    func httpAndExpiry() async throws {
        let world = StubWorld()
        Self.served(world)
        _ = try await signedIn(world)
        await #expect(throws: CredentialHelperFailure.self) { try await GitCredentials(world.environment()).get(Self.request(scheme: "http"), environmentAccount: nil) }
        Self.served(world, host: "127.0.0.1:9418")
        #expect(try await GitCredentials(world.environment()).get(Self.request("127.0.0.1:9418", scheme: "http"), environmentAccount: nil) != nil)
        let old = try #require(world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        world.advance(3600 - 30)
        let credential = try #require(try await GitCredentials(world.environment()).get(Self.request("127.0.0.1:9418", scheme: "http"), environmentAccount: nil))
        #expect(credential.token.exposedValue != old)
        #expect(world.provider.count("/token") == 2, "the sign-in and one refresh")
    }

    @Test("Which account: the URL's username, else the directory's choice, else the only one; several with no choice answer nothing")
    func whichAccount() async throws {
        let world = StubWorld()
        Self.served(world, username: nil)
        let alice = try await signedIn(world, as: "alice").record
        let bob = try await signedIn(world, as: "bob").record
        world.files.withLock { $0.active = nil }
        let env = world.environment()
        await #expect(throws: CredentialHelperFailure.self, "two accounts, no choice") { try await GitCredentials(env).get(Self.request(), environmentAccount: nil) }
        #expect(try await GitCredentials(env).get(Self.request(username: "bob"), environmentAccount: nil)?.account.id == bob.id)
        #expect(try await GitCredentials(env).get(Self.request(), environmentAccount: "alice")?.account.id == alice.id)
        world.bindings.withLock { $0 = [DirectoryBinding(directory: "/repo", account: bob.id)] }
        world.directory.withLock { $0 = "/repo" }
        let credential = try await GitCredentials(env).get(Self.request(), environmentAccount: nil)
        #expect(credential?.account.id == bob.id && credential?.username == bob.username, "the login when the host names no username")
        world.bindings.withLock { $0 = [DirectoryBinding(directory: "/repo", account: "op/gone")] }
        do {
            _ = try await GitCredentials(env).get(Self.request(), environmentAccount: nil)
            Issue.record("a rule to a removed account answered")
        } catch {
            guard case .resolution(.ruleAccountMissing(let directory, _), _) = error else { Issue.record("\(error)"); return }
            #expect(directory == "/repo")
        }
    }

    @Test("erase: the rejected token is refreshed once, under the lock; the same rejection again sends nothing; an account needing sign-in answers nothing")
    func erase() async throws {
        let world = StubWorld()
        Self.served(world)
        _ = try await signedIn(world)
        let rejected = try #require(world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        let env = world.environment()
        #expect(try await GitCredentials(env).erase(Self.request(password: rejected), environmentAccount: nil) != nil)
        #expect(world.provider.count("/token") == 2)
        let renewed = try #require(world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        #expect(renewed != rejected)
        _ = try await GitCredentials(world.environment()).erase(Self.request(password: rejected), environmentAccount: nil)
        #expect(world.provider.count("/token") == 2, "another client's report of the same rejection sends nothing")
        #expect(try await GitCredentials(env).erase(Self.request(), environmentAccount: nil) == nil, "no password: nothing to do")
        #expect(try await GitCredentials(env).get(Self.request(), environmentAccount: nil)?.token.exposedValue == renewed)
        world.files.withLock { $0.accounts[0].needsSignInSince = world.now }
        await #expect(throws: CredentialHelperFailure.self) { try await GitCredentials(world.environment()).get(Self.request(), environmentAccount: nil) }
        #expect(world.files.withLock { $0.accounts.count } == 1, "never signed out")
    }

    @Test("docker: the ServerURL parsed as RFC 3986, then matched: evil.test?.gcr.io, #.gcr.io and \\.gcr.io get no token; HTTP://gcr.io is http",
          arguments: ["https://evil.test?.gcr.io", "https://evil.test#.gcr.io", "evil.test?.gcr.io", "https://evil.test/.gcr.io",
                      "https://evil.test\\.gcr.io", "https://evil.test%2F.gcr.io", "HTTP://gcr.io", "http://eu.gcr.io", "hTTp://eu.gcr.io/v2/"])
    func dockerServerURLs(_ serverURL: String) async throws {
        let world = StubWorld()
        world.files.withLock { $0.providers[0].containerRegistries = [CredentialHost(host: "gcr.io"), CredentialHost(host: "*.gcr.io")] }
        _ = try await signedIn(world)
        let env = world.environment()
        do {
            let request = try DockerCredentialRequest.parse(Array(serverURL.utf8))
            #expect(try await DockerCredentials(env).get(request, environmentAccount: nil) == nil, "a token for \(serverURL)")
        } catch {
            // Refused (not a URL, or plain http off loopback): no token either.
        }
        #expect(try await DockerCredentials(env).get(DockerCredentialRequest.parse(Array("HTTPS://EU.gcr.io/v2/".utf8)), environmentAccount: nil) != nil)
    }

    @Test("git: a host= that is not one RFC 3986 authority (evil.test?.gcr.io, #, \\, userinfo) gets no token; the same parser as docker's",
          arguments: ["evil.test?.gcr.io", "evil.test#.gcr.io", "evil.test\\.gcr.io", "evil.test/.gcr.io", "a@x.gcr.io", "evil.test%2F.gcr.io"])
    func gitHostValues(_ host: String) async throws {
        let world = StubWorld()
        Self.served(world, host: "*.gcr.io")
        _ = try await signedIn(world)
        let env = world.environment()
        do {
            #expect(try await GitCredentials(env).get(Self.request(host), environmentAccount: nil) == nil, "a token for \(host)")
        } catch {
        }
        #expect(try await GitCredentials(env).get(Self.request("EU.gcr.io"), environmentAccount: nil) != nil)
        let viaURL = try GitCredentialRequest.parse(Array("url=https://evil.test?.gcr.io/x\n".utf8))
        #expect(viaURL.host == "evil.test", "url= splits its authority as RFC 3986 does")
    }
}

@Suite("setup-git's hosts (use case)")
struct SetupGitHostsTests {
    @Test("A URL whose host no provider lists among its git hosts is unserved (matched as git-credential matches: a *. pattern, ASCII case)")
    func unservedURLs() throws {
        let world = StubWorld()
        world.files.withLock {
            $0.providers[0].gitHosts = [CredentialHost(host: "git.example.com", username: nil), CredentialHost(host: "*.corp.example", username: nil)]
        }
        let urls = ["https://git.example.com", "https://GIT.example.com", "https://a.corp.example", "https://other.example", "https://corp.example"]
        #expect(try SetupGit(world.environment()).unservedURLs(urls) == ["https://other.example", "https://corp.example"])
    }

    @Test("setup-git --host https://u:pw@HOST is refused before git runs, the password shown nowhere (it would go into the git config)")
    func setupGitHostCredentialsRefused() throws {
        let world = StubWorld()
        let ran = Mutex(false)
        world.git.withLock { $0 = { _, _ in ran.withLock { $0 = true }; return nil } }
        let setup = SetupGit(world.environment())
        for step in 0..<3 {
            do {
                let urls = ["https://u:s3cret-pw@git.example"]
                _ = step == 0 ? try setup.unservedURLs(urls) : step == 1 ? try setup.uninstall(urls, scope: .global, executable: "/bin/authdeck")
                    : try setup.install(urls, scope: .global, executable: "/bin/authdeck")
                Issue.record("a URL with a password was written to the git config")
            } catch {
                #expect(error.disposition == .usage && error.title.contains("user name or password"), "\(error.title)")
                #expect(!"\(error.title) \(error.detail)".contains("s3cret-pw"))
            }
        }
        #expect(!ran.withLock { $0 })
    }
}
