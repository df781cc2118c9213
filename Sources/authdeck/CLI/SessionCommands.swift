import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import Synchronization

// gh's shape: per command an options struct made from the parsed arguments (validated before
// anything runs) and a run function over the live session.

// MARK: - login

struct LoginOptions {
    var provider: String?
    var device: Bool
    var scopes: [String]
    var audience: String?
    var resources: [String]
    var name: String?
    var noBrowser: Bool

    init(_ parsed: ParsedCommand) {
        provider = parsed.positional("provider")
        device = parsed.flag("device")
        scopes = parsed.values("scope")
        audience = parsed.value("audience")
        resources = parsed.values("resource")
        name = parsed.value("name")
        noBrowser = parsed.flag("noBrowser")
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        if parsed.flag("device") && parsed.flag("noBrowser") { return "--device never opens a browser; drop --no-browser" }
        if let name = parsed.value("name"), let problem = AccountResolution.aliasProblem(name) { return problem }
        return nil
    }
}

func loginRun(_ options: LoginOptions, _ context: CLIContext) async throws -> Int32 {
    let app = context.app
    let providerID: ProviderID
    switch context.result({ () throws(AppError) in try SignIn(app).resolveProvider(options.provider) }) {
    case .success(let id): providerID = id
    case .failure(let error):
        // `authdeck login alice`: an account where a provider goes.
        if error.disposition == .usage, let name = options.provider, let snapshot = try? context.snapshot(),
           let record = try? AccountResolution.resolve(name, accounts: snapshot.accounts, active: nil, environmentAccount: nil) {
            throw CLIFailure(usageMessage: "'\(name)' is an account (\(AccountResolution.handle(record))), not a provider",
                             hint: "login takes a provider: 'authdeck login \(record.providerID.rawValue)' signs in to \(record.providerID.rawValue) again (as \(record.displayName) or another user).")
        }
        // A typo of a provider's name: the nearest one (edit distance, as for commands).
        if error.disposition == .usage, let name = options.provider, let snapshot = try? context.snapshot(),
           let guess = ArgumentParser.closest(to: name, among: snapshot.providers.map(\.id.rawValue)) {
            throw CLIFailure(error, hint: "Did you mean 'authdeck login \(guess)'?")
        }
        throw CLIFailure(error)
    }
    let snapshot = try context.snapshot()
    for note in options.name.map({ AccountResolution.aliasConflicts($0, among: snapshot.accounts) }) ?? [] {
        Output.err("note: \(note)")
    }
    try context.unlock()
    let request = SignInRequest(providerID: providerID, flow: options.device ? .device : .browser, extraScopes: options.scopes,
                                audience: options.audience, resources: options.resources, alias: options.name, noBrowser: options.noBrowser)
    let (result, interrupted) = await Interrupt.cancellable { () async -> Result<SignInOutcome, AppError> in
        do throws(AppError) { return .success(try await SignIn(app).run(request) { progress in reportSignInProgress(progress) }) } catch { return .failure(error) }
    }
    if interrupted {
        Output.err("Sign-in cancelled; nothing was stored.")
        return ExitCode.interrupted
    }
    switch result {
    case .success(let outcome):
        let record = outcome.record
        for warning in record.tokenWarnings ?? [] { Output.err("warning: \(warning)") }
        Output.err("Signed in as \(record.displayName) (\(AccountResolution.handle(record)))\(outcome.becameActive ? "; it is the active account" : "; switch to it with 'authdeck switch \(record.alias ?? AccountResolution.handle(record))'").")
        Output.err(storedInText(snapshot.credentialStore))
        return ExitCode.ok
    case .failure(let error):
        if error.disposition == .cancelled {
            Output.err("Sign-in cancelled; nothing was stored.")
            return ExitCode.interrupted
        }
        throw CLIFailure(error, hint: error.disposition == .needsSignIn ? "Start the sign-in again." : nil)
    }
}

/// Where a sign-in's tokens went and why that store ("Tokens stored in the Secret Service
/// (keyring): a Secret Service answered on the session bus; recorded in …/store.json.").
func storedInText(_ store: StoreInfo) -> String {
    "Tokens stored in \(store.label)\(store.reason.map { ": \($0)" } ?? "")."
}

@Sendable func reportSignInProgress(_ progress: SignInProgress) {
    switch progress {
    case .discovering:
        break
    case .waitingForBrowser(let url, let opened):
        if opened {
            Output.err("Opened the browser to sign in; waiting for it to finish (Ctrl-C cancels).")
            Output.err("If nothing opened, visit:\n  \(url.absoluteString)")
        } else {
            Output.err("Open this URL in a browser to sign in (Ctrl-C cancels):\n  \(url.absoluteString)")
        }
    case .exchangingCode:
        Output.err("Exchanging the authorization code…")
    case .deviceCode(let display):
        Output.err("To sign in, visit \(display.verificationURI.absoluteString)")
        Output.err("and enter the code: \(display.userCode)")
        if let complete = display.verificationURIComplete {
            Output.err("(or open \(complete.absoluteString))")
        }
        for note in display.notes { Output.err("note: \(note)") }
        if Output.stderrIsTerminal, let qr = DeviceQRCode.terminalText(for: (display.verificationURIComplete ?? display.verificationURI).absoluteString) {
            Output.err(qr)
        }
        Output.err("The code expires at \(Times.rfc3339(display.expiresAt)); waiting for approval (Ctrl-C cancels)…")
    case .devicePending:
        break
    case .deviceSlowDown(let interval):
        Output.err("The provider asked to poll more slowly (every \(interval.components.seconds)s).")
    case .verifying:
        break
    }
}

// MARK: - logout

struct LogoutOptions {
    var account: String?
    var localOnly: Bool
    var noEndSession: Bool
    var revokeGrant: Bool
    init(_ parsed: ParsedCommand) {
        account = parsed.positional("account")
        localOnly = parsed.flag("localOnly")
        noEndSession = parsed.flag("noEndSession")
        revokeGrant = parsed.flag("revokeGrant")
    }
}

func logoutRun(_ options: LogoutOptions, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    let record = try context.account(options.account, in: snapshot)
    let signOutOptions = SignOutOptions(localOnly: options.localOnly, endSession: !options.noEndSession && !options.localOnly,
                                        revokeGrant: options.revokeGrant)
    try context.run { () throws(AppError) in try SignOut(context.app).prepare(signOutOptions) }
    let failures = FailureCounter()
    let outcome = await SignOut(context.app).run(record.id, options: signOutOptions) { step in
        switch step.outcome {
        case .done(let text): Output.err("✓ \(step.step.rawValue): \(text)")
        case .skipped(let text): Output.err("- \(step.step.rawValue): skipped (\(text))")
        case .failed(let error):
            failures.add()
            Output.err("✗ \(step.step.rawValue): \(error.description)")
        }
    }
    guard outcome.removed else {
        throw CLIFailure("\(AccountResolution.describe(record)) was not removed", hint: "Fix the error above and run 'authdeck logout' again, or use --local-only to only delete the local secrets.")
    }
    if failures.count > 0 {
        Output.err("Logged out \(AccountResolution.describe(record)) locally, but a step failed: the tokens may stay valid at the provider until they expire.")
        return ExitCode.failure
    }
    Output.err("Logged out \(AccountResolution.describe(record)).")
    return ExitCode.ok
}

final class FailureCounter: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

// MARK: - status

struct StatusOptions {
    var json: Bool
    init(_ parsed: ParsedCommand) { json = parsed.flag("json") }
}

/// One account's row in `status`, computed once for both the text and the JSON output.
struct StatusRow {
    var record: AccountRecord
    var provider: ProviderConfig?
    var active: Bool
    var status: AccountStatus
    /// Where the choice of the default account came from (marked when a place chose it: git config, a rule).
    var chosenBy: AccountSource?

    /// The `--json` object (schema in README "Commands").
    func json(now: Date) -> JSONValue {
        func time(_ date: Date?) -> JSONValue { .time(date) }
        func left(_ date: Date?) -> JSONValue { .integer(date.map { Times.secondsLeft($0, now: now) }) }
        let tokens: [JSONValue] = record.accessTokens.map { token in
            .object(["resource": .text(token.resource), "expiresAt": time(token.expiresAt), "secondsLeft": left(token.expiresAt),
                     "issuedAt": .string(Times.rfc3339(token.issuedAt)), "tokenType": .string(token.tokenType), "scopes": .strings(token.scopes),
                     "format": .text(token.format?.rawValue)])
        }
        var idToken: JSONValue = .null
        if let info = record.idToken {
            let signature: JSONValue = switch info.signature {
            case .verified(let algorithm, let keyID): .object(["verified": .bool(true), "algorithm": .string(algorithm), "keyId": .text(keyID)])
            case .notVerified(let reason): .object(["verified": .bool(false), "reason": .string(reason)])
            }
            idToken = .object(["expiresAt": time(info.expiresAt), "secondsLeft": left(info.expiresAt), "signature": signature])
        }
        return .object([
            "id": .string(record.id.rawValue),
            "handle": .string(AccountResolution.handle(record)),
            "alias": .text(record.alias),
            "provider": .string(record.providerID.rawValue),
            "issuer": .text(record.shownIssuer(provider: provider)),
            "plainHTTPLoopback": .bool(provider?.isLoopbackHTTP ?? false),
            "subject": .string(record.subject),
            "displayName": .string(record.displayName),
            "username": .text(record.username),
            "email": .text(record.email), "emailVerified": .flag(record.emailVerified), "privateEmail": .flag(record.isPrivateEmail),
            "active": .bool(active),
            "status": .string(status.label(now: now)),
            "needsAttention": .bool(status.needsAttention),
            "accessToken": .object([
                "expiresAt": time(record.accessTokenExpiresAt), "secondsLeft": left(record.accessTokenExpiresAt),
                "scopes": .strings(record.grantedScopes),
            ]),
            "accessTokens": .array(tokens),
            "refreshToken": .object(["present": .bool(record.hasRefreshToken), "expiresAt": time(record.refreshTokenExpiresAt),
                                     "secondsLeft": left(record.refreshTokenExpiresAt)]),
            "idToken": idToken, "dpop": dpopStatusJSON(record),
            "scopes": .strings(record.grantedScopes),
            "storage": .string(record.storage.rawValue),
            "signedInAt": .string(Times.rfc3339(record.signedInAt)),
            "lastRefreshAt": time(record.lastRefreshAt), "refreshSentAt": time(record.refreshSentAt),
        ])
    }

    func text(now: Date) -> [String] {
        let marker = active ? "*" : " "
        var name = "\(marker) \(AccountResolution.handle(record))"
        if let alias = record.alias { name += " (\(alias))" }
        var lines = ["\(name): \(record.displayName)\(record.email.map { " <\($0)>" } ?? "")"]
        var state = "    status: \(status.label(now: now))"
        if active { state += ", active" }
        switch chosenBy {
        case .gitConfig?, .rule?: state += " (\(chosenBy?.label ?? ""))"
        default: break
        }
        lines.append(state)
        let issuer = record.shownIssuer(provider: provider).map { ", issuer \($0)" } ?? ", configured by endpoints (no issuer)"
        lines.append("    provider: \(record.providerID.rawValue)\(provider?.isLoopbackHTTP == true ? " (plain HTTP on loopback)" : "")\(issuer)")
        lines.append("    subject: \(record.subject)")
        for token in record.accessTokens {
            let label = token.resource.map { "access token for \($0)" } ?? "access token"
            let format = token.format.map { ", \($0.label)" } ?? ""
            if !status.accessTokenUsable {
                lines.append("    \(label): \(AccountStatus.unusableAccessTokenText)\(format)")
            } else if let expiresAt = token.expiresAt {
                lines.append("    \(label): expires \(Times.rfc3339(expiresAt)) (\(TimeText.relative(expiresAt, now: now)))\(format)")
            } else {
                lines.append("    \(label): \(AccessTokenInfo.noExpiryText(provider: provider))\(format)")
            }
        }
        if record.hasRefreshToken {
            lines.append("    refresh token: yes\(record.refreshTokenExpiresAt.map { ", expires \(Times.rfc3339($0)) (\(TimeText.relative($0, now: now)))" } ?? "")")
        } else {
            lines.append("    refresh token: none")
        }
        if let thumbprint = record.boundDPoPThumbprint { lines.append("    token binding: DPoP, key \(thumbprint)") }
        lines.append("    scopes: \(record.grantedScopesText)")
        lines.append("    storage: \(record.storage.rawValue)")
        return lines
    }
}

/// The status of `record` as loaded in `snapshot` (a refresh held by another process included).
private func status(of record: AccountRecord, in snapshot: LoadedSnapshot, now: Date, _ context: CLIContext) -> AccountStatus {
    var account = AccountState(record: record)
    account.refreshingElsewhere = snapshot.refreshingElsewhere.contains(record.id)
    return account.status(now: now, policy: context.app.policy, storeLocked: snapshot.credentialStore.isLocked,
                          storeDamaged: snapshot.credentialStore.damage != nil)
}

func statusRun(_ options: StatusOptions, _ context: CLIContext) async throws -> Int32 {
    // Damaged files are shown ("store damaged", the file named), not thrown.
    let snapshot = try context.run { () throws(AppError) in try LoadAccounts(context.app).overview() }
    for warning in snapshot.warnings { Output.err("warning: \(warning)") }
    let damage = snapshot.allDamage
    let now = context.now()
    // The one resolution (AUTHDECK_ACCOUNT, git config, the directory rule, active); one that
    // fails (a name matching nothing, a rule to an account that is gone) is said, nothing is marked.
    var choice: ResolvedAccount?
    if !snapshot.accounts.isEmpty {
        do {
            choice = try AccountResolution.choose(nil, accounts: snapshot.accounts, active: snapshot.activeAccountID,
                                                  environmentAccount: context.environment["AUTHDECK_ACCOUNT"], place: snapshot.place)
        } catch .noDefault {
        } catch {
            Output.err("warning: \(CLIFailure(error, providers: snapshot.providers).message)")
        }
    }
    for note in snapshot.place.notes { Output.err("note: \(note)") }
    let active = choice?.record.id
    let rows = snapshot.accounts.map { record in
        StatusRow(record: record, provider: snapshot.providers.first { $0.id == record.providerID }, active: record.id == active,
                  status: status(of: record, in: snapshot, now: now, context), chosenBy: record.id == active ? choice?.source : nil)
    }
    if let problem = snapshot.credentialStore.problem {
        Output.err("warning: the credential store could not be asked (\(problem)); the accounts' secrets may be out of reach")
    }
    if snapshot.credentialStore.isInsecure {
        Output.err("warning: secrets are stored in PLAINTEXT (\(snapshot.credentialStore.name) store); use the encrypted vault (AUTHDECK_STORE=vault) or a Secret Service keyring to protect them")
    }
    if options.json {
        Output.json(.object([
            "store": .object(["backend": .string(snapshot.credentialStore.name), "insecure": .bool(snapshot.credentialStore.isInsecure),
                              "locked": .bool(snapshot.credentialStore.isLocked),
                              "reason": .text(snapshot.credentialStore.reason), "problem": .text(snapshot.credentialStore.problem),
                              "damaged": .array(damage.map { .object(["file": .string($0.file), "damage": .string($0.damage)]) })]),
            "activeAccount": .text(active?.rawValue),
            "activeAccountSource": .text(choice?.source.label),
            "generatedAt": .string(Times.rfc3339(now)),
            "accounts": .array(rows.map { $0.json(now: now) }),
        ]))
    } else if rows.isEmpty && damage.isEmpty {
        Output.err("No account is signed in. \(CLIFailure.signInAdvice(snapshot.providers))")
    } else {
        var lines: [String] = []
        for row in rows { lines += row.text(now: now) }
        let store = snapshot.credentialStore
        lines.append("storage backend: \(store.name)\(store.isInsecure ? " (INSECURE)" : "")\(store.isLocked ? " (locked)" : "")\(store.reason.map { " — \($0)" } ?? "")")
        lines += damage.map { "store damaged: \($0.file): \($0.damage)" }
        let gitURLs = SetupGit(context.app).installedURLs()
        if !gitURLs.isEmpty { lines.append("git credential helper for: \(commaList(gitURLs)) (authdeck setup-git)") }
        Output.out(lines.joined(separator: "\n") + "\n")
    }
    if !damage.isEmpty {
        Output.err("error: store damaged: \(damage.map(\.file).joined(separator: ", ")) cannot be read; nothing was changed. Run 'authdeck doctor' to see what is damaged and 'authdeck doctor --repair' to move it aside.")
        return ExitCode.storeDamaged
    }
    if snapshot.credentialStore.isLocked && !rows.isEmpty { return ExitCode.storeLocked }
    if snapshot.credentialStore.problem != nil && !rows.isEmpty { return ExitCode.failure }
    if rows.contains(where: { $0.status == .needsSignIn }) { return ExitCode.needsSignIn }
    if rows.contains(where: { $0.status.needsAttention }) { return ExitCode.failure }
    return ExitCode.ok
}

// MARK: - switch

func switchRun(_ query: String, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    let record: AccountRecord
    do {
        record = try AccountResolution.resolve(query, accounts: snapshot.accounts, active: snapshot.activeAccountID, environmentAccount: nil)
    } catch {
        throw CLIFailure(error, providers: snapshot.providers)
    }
    _ = try context.run { () throws(AppError) in try SwitchAccount(context.app).run(record.id) }
    Output.err("Switched to \(AccountResolution.describe(record)).")
    if let pinned = context.environment["AUTHDECK_ACCOUNT"], !pinned.isEmpty {
        Output.err("note: AUTHDECK_ACCOUNT=\(pinned) still selects an account in this shell")
    }
    return ExitCode.ok
}

// MARK: - token

/// The largest `--min-valid`: ten years, in seconds.
let maximumMinValid: Double = 315_360_000

struct TokenOptions {
    var account: String?
    var minValid: Double
    /// Whether `--min-valid` was given (its warnings are shown only then).
    var minValidGiven: Bool
    var resource: String?
    var idToken: Bool
    var json: Bool
    var execCredential: Bool

    init(_ parsed: ParsedCommand) {
        account = parsed.positional("account")
        minValid = parsed.value("minValid").flatMap(Double.init) ?? 60
        minValidGiven = parsed.value("minValid") != nil
        resource = parsed.value("resource") ?? parsed.value("organization").map(TokenAudience.organizationKey)
        idToken = parsed.flag("idToken")
        json = parsed.flag("json")
        execCredential = parsed.flag("execCredential")
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        if let text = parsed.value("minValid"), Double(text).map({ $0 >= 0 && $0 <= maximumMinValid }) != true {
            return "--min-valid must be a number of seconds from 0 to \(Int(maximumMinValid)) (10 years), got '\(text)'"
        }
        if let resource = parsed.value("resource"), (try? validateResourceIndicator(resource)) == nil {
            return "--resource '\(resource)' must be an absolute URI without a fragment (RFC 8707 §2)"
        }
        if parsed.flag("json") && parsed.flag("execCredential") { return "--json and --exec-credential are two output formats; choose one" }
        if parsed.flag("idToken") && parsed.value("resource") != nil { return "--resource selects an access token; it cannot be used with --id-token" }
        return nil
    }
}

func tokenRun(_ options: TokenOptions, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    let record = try context.account(options.account, in: snapshot)
    let tokens = TokenForScripts(context.app)
    let minimumValidity = Duration.milliseconds(Int64(options.minValid * 1000))
    let token: String
    let expiresAt: Date?
    if options.idToken {
        let issued = try await context.run { () async throws(AppError) in try await tokens.idToken(record.id, minimumValidity: minimumValidity, notices: Output.refreshNotice) }
        if options.minValidGiven { for warning in issued.warnings { Output.err("warning: \(warning)") } }
        (token, expiresAt) = (issued.value.exposedValue, issued.expiresAt)
    } else {
        let issued = try await context.run { () async throws(AppError) in
            try await tokens.accessToken(record, minimumValidity: minimumValidity, resource: options.resource, notices: Output.refreshNotice)
        }
        printTokenNotes(issued.warnings, minValidGiven: options.minValidGiven, tokenType: issued.tokenType, refusedIDToken: issued.refusedIDToken)
        (token, expiresAt) = (issued.value.exposedValue, issued.expiresAt)
    }
    if options.execCredential {
        let status = JSONValue.object(omittingNil: ["token": .string(token), "expirationTimestamp": expiresAt.map { .string(Times.rfc3339($0)) }])
        Output.json(.object(["apiVersion": .string("client.authentication.k8s.io/v1"), "kind": .string("ExecCredential"), "status": status]))
    } else if options.json {
        Output.json(.object([
            "account": .string(AccountResolution.handle(record)),
            "type": .string(options.idToken ? "id_token" : "access_token"),
            "resource": .text(options.resource),
            "token": .string(token),
            "expiresAt": .time(expiresAt),
            "secondsLeft": .integer(expiresAt.map { Times.secondsLeft($0, now: context.now()) }),
        ]))
    } else {
        Output.line(token)
    }
    return ExitCode.ok
}

// MARK: - refresh, userinfo, introspect

/// `refresh [ACCOUNT] [--resource URI]`: every access token the account holds (the same use case
/// as the accounts screen's `r`), or only the one for `resource`.
func refreshRun(_ query: String?, resource: String?, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    let record = try context.account(query, in: snapshot)
    if let resource, !record.accessTokens.contains(where: { $0.resource.exactlyEquals(resource) }) {
        let held = record.accessTokens.compactMap(\.resource)
        throw CLIFailure("\(AccountResolution.describe(record)) holds no access token for the resource '\(resource)'",
                         hint: held.isEmpty ? "It holds only its default token: refresh without --resource, or sign in with --resource \(resource)."
                             : "It holds tokens for: \(held.joined(separator: ", ")). Or sign in with --resource \(resource).",
                         exitCode: ExitCode.usage)
    }
    let refresh = { () async throws(AppError) -> AccountRecord in
        if let resource { return try await RefreshAccount(context.app).run(record, resource: resource, force: true, notices: Output.refreshNotice) }
        return try await RefreshAccount(context.app).runAll(record.id, manual: true, notices: Output.refreshNotice)
    }
    switch await context.result(refresh) {
    case .success(let updated):
        let expiry = updated.accessTokenExpiresAt.map { "; the access token expires \(Times.rfc3339($0)) (\(TimeText.relative($0, now: context.now())))" } ?? ""
        Output.err("Refreshed \(AccountResolution.describe(updated))\(expiry).")
        for warning in updated.tokenWarnings ?? [] { Output.err("warning: \(warning)") }
        if let change = updated.scopeChange, !change.added.isEmpty || !change.removed.isEmpty {
            Output.err("Scopes changed: added [\(change.added.joined(separator: " "))], removed [\(change.removed.joined(separator: " "))]")
        }
        return ExitCode.ok
    case .failure(let error):
        throw CLIFailure(error)
    }
}

func userinfoRun(_ query: String?, json: Bool, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    let record = try context.account(query, in: snapshot)
    switch await context.result({ () async throws(AppError) in try await ShowUserInfo(context.app).run(record.id) }) {
    case .success(let claims):
        if json {
            Output.json(claims)
        } else if case .object(let members) = claims {
            Output.out(ClaimsText.lines(members, provider: snapshot.providers.first { $0.id == record.providerID }, now: context.now()).joined(separator: "\n") + "\n")
        }
        return ExitCode.ok
    case .failure(let error):
        throw CLIFailure(error)
    }
}

func introspectRun(_ query: String?, json: Bool, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    let record = try context.account(query, in: snapshot)
    switch await context.result({ () async throws(AppError) in try await IntrospectAccessToken(context.app).run(record.id) }) {
    case .success(let response):
        if json {
            Output.json(response)
        } else if case .object(let members) = response {
            Output.out(ClaimsText.lines(members, provider: snapshot.providers.first { $0.id == record.providerID }, now: context.now()).joined(separator: "\n") + "\n")
        }
        return ExitCode.ok
    case .failure(let error):
        throw CLIFailure(error, hint: error.title.contains("Not supported") ? "Configure it with 'authdeck provider add NAME … --introspection-endpoint URL'." : nil)
    }
}

