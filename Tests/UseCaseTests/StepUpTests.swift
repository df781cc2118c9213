import AppCore
import AuthEngine
import Foundation
import Synchronization
import Testing

/// A resource at `https://rs.test/admin` that answers `challenge` (401, RFC 9470 §3) to the first access token it sees
/// (or to every one, `always`), and 200 to another.
final class StepUpResource: Sendable {
    let challenge: String
    let always: Bool
    let tokens = Mutex<[String]>([])
    init(_ challenge: String, always: Bool = false) {
        self.challenge = challenge
        self.always = always
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let token = request.headers.first { $0.name == "Authorization" }?.value ?? ""
        let first = tokens.withLock { seen in
            seen.append(token)
            return seen[0]
        }
        if always || token == first { return HTTPResponse(status: 401, headers: ["www-authenticate": challenge]) }
        return HTTPResponse(status: 200, body: Data("{}".utf8))
    }

    func environment(_ world: StubWorld) -> AppEnvironment {
        var env = world.environment()
        let stub = env.http
        env.http = { provider in
            HTTPClient { (request: HTTPRequest) throws(TransportError) -> HTTPResponse in
                request.url.host == "rs.test" ? self.handle(request) : try await stub(provider).send(request)
            }
        }
        return env
    }
}

/// The sign-ins a story's `api` loop made.
final class SignInLog: Sendable {
    let requests = Mutex<[SignInRequest]>([])
    var count: Int { requests.withLock { $0.count } }
}

@Suite("Step-up sign-in (RFC 9470; use case, stub environment)")
struct StepUpTests {
    static let url = URL(string: "https://rs.test/admin")!
    static let challenge = #"Bearer error="insufficient_user_authentication", acr_values="gold platinum", max_age=300, scope="mcp:admin""#

    /// `api`'s loop with a sign-in that counts itself.
    func call(_ env: AppEnvironment, _ id: AccountID, canSignIn: Bool = true,
              signIns: SignInLog) async throws(AppError) -> CallAPI.SteppedResponse {
        try await CallAPI(env).runSteppingUp(id, method: .get, url: Self.url, headers: [], body: nil, canSignIn: canSignIn) {
            (request) async throws(AppError) in
            signIns.requests.withLock { $0.append(request) }
            _ = try await SignIn(env).run(request, progress: { _ in })
        }
    }

    @Test("One sign-in with acr_values, max_age and the union of held and asked scopes; the stronger grant replaces the old; the retry passes")
    func stepsUpOnce() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let held = alice.record.grantedScopes.isEmpty ? alice.record.requestedScopes : alice.record.grantedScopes
        let resource = StepUpResource(Self.challenge)
        world.provider.script.withLock { $0.authTime = Int(world.now.timeIntervalSince1970); $0.extraClaimsJSON = #"{"acr":"platinum"}"# }
        let signIns = SignInLog()
        let result = try await call(resource.environment(world), alice.record.id, signIns: signIns)
        #expect(result.response.status == 200 && result.decision == .notAsked)
        #expect(signIns.count == 1)
        let url = try #require(world.browserOpened.withLock { $0.last })
        // application/x-www-form-urlencoded: `+` is a space.
        let query = (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [])
            .map { ($0.name, $0.value?.replacingOccurrences(of: "+", with: " ").removingPercentEncoding) }
        #expect(query.first { $0.0 == "acr_values" }?.1 == "gold platinum")
        #expect(query.first { $0.0 == "max_age" }?.1 == "300")
        let scope = Set((query.first { $0.0 == "scope" }?.1 ?? "").split(separator: " ").map(String.init))
        #expect(scope.isSuperset(of: held) && scope.contains("mcp:admin"), "never fewer than held: \(scope)")
        let record = try #require(world.accounts.first { $0.id == alice.record.id })
        #expect(AuthenticationContext(record)?.acr == "platinum")
        #expect(world.accounts.count == 1, "the same account, its grant replaced")
        #expect(resource.tokens.withLock { $0.count } == 2 && resource.tokens.withLock { $0[0] != $0[1] })
    }

    @Test("OIDC Core §3.1.2.1: max_age sent and no auth_time in the new ID token: refused by name, the old grant kept")
    func noAuthTimeRefused() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let before = world.storedSecrets()?.defaultAccessToken?.token.exposedValue
        world.provider.script.withLock { $0.authTime = nil; $0.extraClaimsJSON = #"{"acr":"gold"}"# }
        let signIns = SignInLog()
        let error = await #expect(throws: AppError.self) {
            try await call(StepUpResource(Self.challenge).environment(world), alice.record.id, signIns: signIns)
        }
        #expect(error?.detail.contains("auth_time") == true || error?.title.contains("auth_time") == true, "\(String(describing: error))")
        #expect(world.storedSecrets()?.defaultAccessToken?.token.exposedValue == before, "the earlier grant stays")
        #expect(world.accounts.first?.idToken == alice.record.idToken)
    }

    @Test("acr_values asked and a lower acr comes back: 'Authentication not strong enough', the old grant kept")
    func lowerACRRefused() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let before = world.storedSecrets()?.defaultAccessToken?.token.exposedValue
        world.provider.script.withLock { $0.authTime = Int(world.now.timeIntervalSince1970); $0.extraClaimsJSON = #"{"acr":"silver"}"# }
        let signIns = SignInLog()
        let error = await #expect(throws: AppError.self) {
            try await call(StepUpResource(Self.challenge).environment(world), alice.record.id, signIns: signIns)
        }
        #expect(error?.title == "Authentication not strong enough" && error?.disposition == .securityRelevant, "\(String(describing: error))")
        #expect(world.storedSecrets()?.defaultAccessToken?.token.exposedValue == before)
        #expect(world.accounts.count == 1 && AuthenticationContext(world.accounts[0])?.acr == nil)
    }

    @Test("Retry cap: a resource that asks again after the step-up gets no second sign-in (askedAgain)")
    func retryCapOfOne() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.authTime = Int(world.now.timeIntervalSince1970); $0.extraClaimsJSON = #"{"acr":"gold"}"# }
        let resource = StepUpResource(Self.challenge, always: true)
        let signIns = SignInLog()
        let result = try await call(resource.environment(world), alice.record.id, signIns: signIns)
        guard case .askedAgain = result.decision else { Issue.record("\(result.decision)"); return }
        #expect(signIns.count == StepUp.maximumPerRequest)
        #expect(resource.tokens.withLock { $0.count } == 2)
    }

    @Test("No person here (a script): no sign-in; the decision names the login command with --scope, --acr-values and --max-age")
    func scriptsGetTheCommand() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let signIns = SignInLog()
        let result = try await call(StepUpResource(Self.challenge).environment(world), alice.record.id, canSignIn: false, signIns: signIns)
        guard case .needsPerson(let plan) = result.decision else { Issue.record("\(result.decision)"); return }
        #expect(signIns.count == 0)
        #expect(plan.command.hasPrefix("authdeck login op --scope '") && plan.command.hasSuffix(" --acr-values 'gold platinum' --max-age 300"),
                "\(plan.command)")
        #expect(plan.missingScopes == ["mcp:admin"])
    }

    @Test("Scope union: insufficient_scope keeps every held scope and adds the asked ones once; no acr or max_age asked")
    func scopeUnion() async throws {
        let world = StubWorld()
        var record = try await signedIn(world).record
        record.grantedScopes = ["openid", "mcp:read"]
        let answer = HTTPResponse(status: 403, headers: ["www-authenticate": #"Bearer error="insufficient_scope", scope="mcp:read mcp:admin""#])
        let decision = StepUp.decide(answer, record: record, provider: nil, stepUpsDone: 0, canSignIn: true)
        guard case .signIn(let plan) = decision else { Issue.record("\(decision)"); return }
        #expect(plan.scopes == ["openid", "mcp:read", "mcp:admin"] && plan.missingScopes == ["mcp:admin"])
        #expect(plan.request.extraScopes == plan.scopes && plan.request.stepUp == nil && plan.request.flow == .browser)
        // A challenge naming fewer scopes than held still asks for all held ones.
        let fewer = HTTPResponse(status: 403, headers: ["www-authenticate": #"Bearer error="insufficient_scope", scope="x""#])
        guard case .signIn(let smaller) = StepUp.decide(fewer, record: record, provider: nil, stepUpsDone: 0, canSignIn: true) else {
            Issue.record("no plan")
            return
        }
        #expect(smaller.scopes == ["openid", "mcp:read", "x"])
        // NQCHAR allows `'`: the printed command quotes it, so a copied line runs authdeck only.
        let hostile = HTTPResponse(status: 403, headers: ["www-authenticate": #"Bearer error="insufficient_scope", scope="a';touch${IFS}x;'""#])
        guard case .signIn(let quoted) = StepUp.decide(hostile, record: record, provider: nil, stepUpsDone: 0, canSignIn: true) else {
            Issue.record("no plan")
            return
        }
        #expect(quoted.command == #"authdeck login op --scope 'openid mcp:read a'\'';touch${IFS}x;'\'''"#, "\(quoted.command)")
    }

    @Test("A step-up signed in as another user stores nothing: the earlier grant stays")
    func anotherUserRefused() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.authTime = Int(world.now.timeIntervalSince1970); $0.extraClaimsJSON = #"{"acr":"gold"}"# }
        world.approveInBrowser(as: "mallory")
        let signIns = SignInLog()
        let error = await #expect(throws: AppError.self) {
            try await call(StepUpResource(Self.challenge).environment(world), alice.record.id, signIns: signIns)
        }
        #expect(error?.title == "The step-up sign-in was another user", "\(String(describing: error))")
        #expect(world.accounts.map(\.id) == [alice.record.id] && world.storedSecrets("mallory") == nil)
    }
}
