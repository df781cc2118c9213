import AppCore
import AuthEngine
import AuthEngineLive
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// MARK: - api's step-up (RFC 9470): the sign-in a resource asked for, and the words when it is not made

/// The one step-up sign-in of `api` (``StepUp``): said first, then the browser flow with the plan's request, as `login`.
/// - Throws: ``AppError`` from the sign-in (nothing stored; the earlier grant stays); `.cancelled` on Ctrl-C.
func stepUpSignIn(_ request: SignInRequest, resource: URL, _ context: CLIContext) async throws(AppError) {
    var asked: [String] = []
    if let stepUp = request.stepUp {
        if !stepUp.acrValues.isEmpty { asked.append("acr \(stepUp.acrValues.joined(separator: " or "))") }
        if let maxAge = stepUp.maxAge { asked.append("an authentication at most \(maxAge) s old") }
    }
    asked.append("scopes \(request.extraScopes.joined(separator: " "))")
    Output.err("\(Output.visible(resource.absoluteString)) asks for a stronger sign-in (\(Output.visible(asked.joined(separator: ", "))));"
               + " signing in once more.")
    try LoadAccounts(context.app).unlock()
    let (result, interrupted) = await Interrupt.cancellable { () async -> Result<SignInOutcome, AppError> in
        do throws(AppError) {
            let reader = TerminalLineReader()
            defer { reader?.close() }
            let pasted = reader.map { reader in PastedLines { await PasteInstructions.nextLine(reader) } }
            return .success(try await SignIn(context.app).run(request, pasted: pasted) { progress in reportSignInProgress(progress) })
        } catch {
            return .failure(error)
        }
    }
    if interrupted { throw AppError(title: "Step-up sign-in cancelled", detail: "Nothing was stored; the earlier grant stays.",
                                    disposition: .cancelled) }
    switch result {
    case .success(let outcome): Output.err("Stepped up \(AccountResolution.handle(outcome.record)); sending the request again.")
    case .failure(let error): throw error
    }
}

/// The failure a step-up decision about `api`'s last answer means, if any: `.needsPerson` exits ``ExitCode/stepUpRequired``
/// with the login command; asked again after the one step-up, or a challenge that cannot be followed, exit 1.
func stepUpFailure(_ decision: StepUpDecision, method: HTTPRequest.Method, url: URL, status: Int) throws {
    let answered = "\(method.rawValue) \(url.absoluteString) answered HTTP \(status)"
    switch decision {
    case .notAsked, .signIn: return
    case .needsPerson(let plan):
        throw CLIFailure("\(answered) \(plan.challenge.kind.rawValue): \(stepUpWants(plan))",
                         hint: "No terminal to sign in from. Sign in with what it asks, then run this again: \(plan.command)",
                         exitCode: ExitCode.stepUpRequired)
    case .askedAgain(let plan):
        throw CLIFailure("\(answered) \(plan.challenge.kind.rawValue) again after a step-up sign-in: \(stepUpWants(plan))",
                         hint: "authdeck steps up once per request. The provider may not grant what the resource asks for this client;"
                             + " 'authdeck status' shows the account's acr and scopes.")
    case .invalid(let problem):
        throw CLIFailure("\(answered) with a step-up challenge that cannot be followed: its \(problem.parameter) is \(problem.problem)",
                         hint: "The resource's WWW-Authenticate header is malformed (RFC 9470 §3); nothing was signed in.")
    }
}

/// "the token lacks mcp:admin" / "acr gold, an authentication at most 60 s old": what the plan asks, in words.
private func stepUpWants(_ plan: StepUpPlan) -> String {
    var wants: [String] = []
    if !plan.challenge.acrValues.isEmpty { wants.append("acr \(plan.challenge.acrValues.joined(separator: " or "))") }
    if let maxAge = plan.challenge.maxAge { wants.append("an authentication at most \(maxAge) s old") }
    if !plan.missingScopes.isEmpty { wants.append("the token lacks \(plan.missingScopes.joined(separator: " "))") }
    if wants.isEmpty { wants.append("it needs the scopes it names (\(plan.scopes.joined(separator: " ")))") }
    return Output.visible(wants.joined(separator: "; "))
}
