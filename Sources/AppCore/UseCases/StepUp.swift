import AuthEngine
import FoundationEssentials

/// A resource's step-up challenge (``StepUpChallenge``: RFC 9470 §3 `insufficient_user_authentication`, RFC 6750 §3.1
/// `insufficient_scope`) for one account: the sign-in that answers it and the one command that does the same by hand.
public struct StepUpPlan: Equatable, Sendable {
    public var challenge: StepUpChallenge
    public var account: AccountID
    /// The challenge's scopes the grant does not hold.
    public var missingScopes: [String]
    /// The grant's scopes and the challenge's, each once: never fewer than held (MCP step-up: the union).
    public var scopes: [String]
    /// The sign-in: the account's provider, browser flow, ``scopes``, the challenge's `acr_values`/`max_age`.
    public var request: SignInRequest
    /// `authdeck login TARGET --scope '…' [--acr-values '…'] [--max-age N]`: the resource URL for a provider made for one.
    public var command: String
}

/// What to do about a resource's answer (one rule for `api` and every caller of ``CallAPI/runSteppingUp``).
public enum StepUpDecision: Equatable, Sendable {
    /// Not a step-up challenge: the answer is the caller's.
    case notAsked
    /// Sign in once with the plan, then repeat the request.
    case signIn(StepUpPlan)
    /// A step-up is asked, but no person is here to sign in (a script, `--no-browser`): the plan's command, by name.
    case needsPerson(StepUpPlan)
    /// Asked again after ``StepUp/maximumPerRequest`` step-ups for this request: not followed (no sign-in loop).
    case askedAgain(StepUpPlan)
    /// The challenge cannot be followed (``StepUpChallenge/Invalid``).
    case invalid(StepUpChallenge.Invalid)
}

/// The step-up rule (RFC 9470 §4-§5; OIDC Core §3.1.2.1, §2 `acr`/`auth_time`).
public enum StepUp {
    /// Step-up sign-ins for one request.
    public static let maximumPerRequest = 1

    /// The decision for `response` to a request made with `record`'s token.
    /// - Parameters:
    ///   - stepUpsDone: step-up sign-ins already made for this request (``maximumPerRequest`` caps them).
    ///   - canSignIn: whether a person is here to sign in (a terminal, no `--no-browser`).
    public static func decide(_ response: HTTPResponse, record: AccountRecord, provider: ProviderConfig?, stepUpsDone: Int,
                              canSignIn: Bool) -> StepUpDecision {
        let challenge: StepUpChallenge
        do {
            guard let found = try StepUpChallenge.from(response) else { return .notAsked }
            challenge = found
        } catch {
            return .invalid(error)
        }
        let plan = plan(challenge, record: record, provider: provider)
        if stepUpsDone >= maximumPerRequest { return .askedAgain(plan) }
        return canSignIn ? .signIn(plan) : .needsPerson(plan)
    }

    /// The plan for `challenge`: the union of the held scopes (granted, else requested) and the asked ones.
    public static func plan(_ challenge: StepUpChallenge, record: AccountRecord, provider: ProviderConfig?) -> StepUpPlan {
        let held = ScopeSet(record.grantedScopes.isEmpty ? record.requestedScopes : record.grantedScopes)
        let asked = ScopeSet(challenge.scope)
        let union = held.adding(asked).values
        let requirement = challenge.kind == .insufficientUserAuthentication
            ? StepUpRequirement(acrValues: challenge.acrValues, maxAge: challenge.maxAge, subject: record.subject)
            : nil
        let request = SignInRequest(providerID: record.providerID, flow: .browser, extraScopes: union, alias: record.alias, stepUp: requirement)
        // `login URL` takes scopes; acr_values and max_age go with the provider's name (its account is signed in already).
        let target = requirement == nil ? provider?.protectedResource?.resource ?? record.providerID.rawValue : record.providerID.rawValue
        // A resource's values may hold `'` (RFC 6749 §3.3 NQCHAR does): quoted for a POSIX shell, so the line copied runs only authdeck.
        var command = "authdeck login \(target) --scope \(shellQuoted(union.joined(separator: " ")))"
        if let requirement {
            if !requirement.acrValues.isEmpty { command += " --acr-values \(shellQuoted(requirement.acrValues.joined(separator: " ")))" }
            if let maxAge = requirement.maxAge { command += " --max-age \(maxAge)" }
        }
        return StepUpPlan(challenge: challenge, account: record.id, missingScopes: asked.values.filter { !held.contains($0) },
                          scopes: union, request: request, command: command)
    }

    /// `value` as one POSIX shell word: in single quotes, each `'` as `'\''`.
    static func shellQuoted(_ value: String) -> String {
        "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// After a step-up sign-in's ID token passed the engine's checks (`acr` one of `acr_values`, `auth_time` within
    /// `max_age`): it must exist when either was asked, and name the account stepped up. Runs before anything is stored.
    /// - Throws: ``AppError`` (`.securityRelevant`): no ID token to check; another user signed in.
    static func checkIdentity(_ verified: VerifiedIDToken?, requirement: StepUpRequirement) throws(AppError) {
        if requirement.needsIDToken, verified == nil {
            throw AppError(title: "The step-up sign-in brought no ID token",
                           detail: "The resource asked for acr_values or max_age; without an ID token neither `acr` nor `auth_time`"
                               + " can be checked, so nothing was stored and the earlier grant stays. Sign in with the openid scope.",
                           specReference: "OIDC Core §3.1.2.1, RFC 9470 §4", disposition: .securityRelevant)
        }
        if let expected = requirement.subject, let subject = verified?.claims.subject, !subject.exactlyEquals(expected) {
            throw AppError(title: "The step-up sign-in was another user",
                           detail: "The resource asked \(expected)'s grant to be stepped up, but the ID token names another `sub`."
                               + " Nothing was stored; the earlier grant stays. Sign in again as the same user.",
                           specReference: "RFC 9470 §4", disposition: .securityRelevant)
        }
    }
}

extension CallAPI {
    /// What ``runSteppingUp`` ended with: the last answer, the decision about it, and the step-up made, if any.
    public struct SteppedResponse: Sendable {
        public var response: HTTPResponse
        public var decision: StepUpDecision
        public var steppedUp: StepUpPlan?
    }

    /// ``run(_:method:url:headers:body:)``, following a step-up challenge at most ``StepUp/maximumPerRequest`` times:
    /// `signIn` runs the plan's request (the front end's sign-in, with its progress and pasted lines), then the request is
    /// sent again with the account's new token. The decision about the last answer is returned for the front end to word.
    /// - Throws: ``AppError`` from the request or the sign-in (the earlier grant then stays: nothing is stored unverified).
    public func runSteppingUp(_ id: AccountID, method: HTTPRequest.Method, url: URL, headers: [HTTPHeader], body: Data?, canSignIn: Bool,
                              signIn: (SignInRequest) async throws(AppError) -> Void) async throws(AppError) -> SteppedResponse {
        var done = 0
        var stepped: StepUpPlan?
        while true {
            let response = try await run(id, method: method, url: url, headers: headers, body: body)
            let record = try Accounts(env: env).record(id)
            let provider = try? ProviderAccess(env: env).provider(record.providerID)
            let decision = StepUp.decide(response, record: record, provider: provider, stepUpsDone: done, canSignIn: canSignIn)
            guard case .signIn(let plan) = decision else { return SteppedResponse(response: response, decision: decision, steppedUp: stepped) }
            try await signIn(plan.request)
            done += 1
            stepped = plan
        }
    }
}
