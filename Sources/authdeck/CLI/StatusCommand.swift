import AppCore
import AppCoreLive
import AuthEngine
import CredentialStore
import CredentialStoreLive
import FoundationEssentials
import QuickToken
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

// gh's shape: per command an options struct made from the parsed arguments (validated before
// anything runs) and a run function over the live session (one file per verb).

// MARK: - status

struct StatusOptions {
    var json: Bool
    /// `--changes`: each account's last refresh's changes (``RefreshChanges``) below its lines.
    var changes = false
    /// `prompt`'s FORMAT: the status as `--json` computes (and keeps) it, printed as one prompt line (PromptSegment).
    var prompt: String?
    init(_ parsed: ParsedCommand) {
        json = parsed.flag("json")
        changes = parsed.flag("changes")
    }
    init(prompt format: String) {
        json = true
        prompt = format
    }
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
            // OIDC Core §2 `acr` and `auth_time` (RFC 9470 step-up): the age is the reader's to compute (a kept answer ages).
            let authentication = AuthenticationContext(record)
            idToken = .object(["expiresAt": time(info.expiresAt), "secondsLeft": left(info.expiresAt), "signature": signature,
                               "acr": .text(authentication?.acr), "authTime": time(authentication?.authTime)])
        }
        var object: [String: JSONValue] = [
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
            "machine": .bool(record.isMachine == true),
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
            "lastRefreshChanges": record.lastRefreshChanges?.json { .string(Times.rfc3339($0)) } ?? .null,
        ]
        // A provider made for a protected resource (`login URL`): the resource, its server and client.
        if let bound = provider?.protectedResource {
            object["protectedResource"] = .object(omittingNil: [
                "resource": .string(bound.resource), "metadataURL": .string(bound.metadataURL),
                "authorizationServer": .text(provider?.issuer?.absoluteString), "client": .string(bound.clientOrigin.rawValue),
                "sharedFrom": bound.sharedFrom.map { .string($0.rawValue) },
                "registration": bound.registration.map { registration in
                    .object(["registeredAt": .string(Times.rfc3339(registration.registeredAt)),
                             "registrationClientURI": .text(registration.registrationClientURI?.absoluteString),
                             "clientSecretExpiresAt": time(registration.clientSecretExpiresAt)])
                },
            ])
        }
        return .object(object)
    }

    /// The objects of ``json(now:)`` whose `secondsLeft` counts down, below `base` (this row's
    /// path in the document), with the expiry each counts to (QuickStatus's timers).
    func timers(at base: [JSONValue]) -> [(path: [JSONValue], expiresAt: Date)] {
        var timers: [(path: [JSONValue], expiresAt: Date)] = []
        if let at = record.accessTokenExpiresAt { timers.append((base + [.string("accessToken")], at)) }
        for (index, token) in record.accessTokens.enumerated() {
            if let at = token.expiresAt { timers.append((base + [.string("accessTokens"), .int(index)], at)) }
        }
        if let at = record.refreshTokenExpiresAt { timers.append((base + [.string("refreshToken")], at)) }
        if let at = record.idToken?.expiresAt { timers.append((base + [.string("idToken")], at)) }
        return timers
    }

    /// The resource line of a provider made for a protected resource.
    static func resourceText(_ provider: ProviderConfig?) -> String? {
        guard let bound = provider?.protectedResource else { return nil }
        return "    resource: \(bound.resource) through \(provider?.issuer?.absoluteString ?? "?"); client \(bound.clientDescription)"
    }

    func text(now: Date) -> [String] {
        let marker = active ? "*" : " "
        var name = "\(marker) \(AccountResolution.handle(record))"
        if let alias = record.alias { name += " (\(alias))" }
        var lines = ["\(name): \(record.displayName)\(record.email.map { " <\($0)>" } ?? "")\(record.isMachine == true ? " (machine)" : "")"]
        var state = "    status: \(status.label(now: now))"
        if active { state += ", active" }
        switch chosenBy {
        case .gitConfig?, .rule?: state += " (\(chosenBy?.label ?? ""))"
        default: break
        }
        lines.append(state)
        let issuer = record.shownIssuer(provider: provider).map { ", issuer \($0)" } ?? ", configured by endpoints (no issuer)"
        lines.append("    provider: \(record.providerID.rawValue)\(provider?.isLoopbackHTTP == true ? " (plain HTTP on loopback)" : "")\(issuer)")
        if let resource = Self.resourceText(provider) { lines.append(resource) }
        lines.append("    subject: \(record.subject)")
        for token in record.accessTokens {
            let label = token.resource.map { "access token for \(TokenAudience.displayName(ofKey: $0))" } ?? "access token"
            let format = token.format.map { ", \($0.label)" } ?? ""
            if !status.accessTokenUsable {
                lines.append("    \(label): \(AccountStatus.unusableAccessTokenText)\(format)")
            } else if let expiresAt = token.expiresAt {
                lines.append("    \(label): expires \(Times.rfc3339(expiresAt)) (\(TimeText.relative(expiresAt, now: now)))\(format)")
            } else {
                lines.append("    \(label): \(AccessTokenInfo.noExpiryText(provider: provider))\(format)")
            }
        }
        if record.isMachine == true {
            lines.append("    refresh token: none (a machine account: a new client-credentials request renews the token)")
        } else if record.hasRefreshToken {
            let expiry = record.refreshTokenExpiresAt.map { ", expires \(Times.rfc3339($0)) (\(TimeText.relative($0, now: now)))" } ?? ""
            lines.append("    refresh token: yes\(expiry)")
        } else {
            lines.append("    refresh token: none")
        }
        if let thumbprint = record.boundDPoPThumbprint { lines.append("    token binding: DPoP, key \(thumbprint)") }
        if let authentication = AuthenticationContext(record) {
            let at = authentication.authTime.map { " (\(Times.rfc3339($0)))" } ?? ""
            lines.append("    authentication: \(authentication.text(now: now))\(at)")
        }
        lines.append("    scopes: \(record.grantedScopesText)")
        lines.append("    storage: \(record.storage.rawValue)")
        return lines
    }

    /// `status --changes`: "    changed on the last refresh:" and ``RefreshChanges/lines(time:)``, or that there was none.
    func changesText(now: Date) -> [String] {
        guard let changes = record.lastRefreshChanges else { return ["    changed on the last refresh: no refresh yet"] }
        let lines = changes.lines { "\(Times.rfc3339($0)) (\(TimeText.relative($0, now: now)))" }
        return ["    changed on the last refresh:"] + lines.map { "      " + $0 }
    }
}

/// The status of `record` as loaded in `snapshot` (a refresh held by another process included).
private func status(of record: AccountRecord, in snapshot: LoadedSnapshot, now: Date, _ context: CLIContext) -> AccountStatus {
    var account = AccountState(record: record)
    account.refreshingElsewhere = snapshot.refreshingElsewhere.contains(record.id)
    return account.status(now: now, policy: context.app.policy, storeLocked: snapshot.credentialStore.isLocked,
                          fileDamaged: snapshot.credentialStore.damage != nil)
}

func statusRun(_ options: StatusOptions, _ context: CLIContext) async throws -> Int32 {
    if let socket = agentSocket(context) { return try remoteStatusRun(json: options.json, socket, context) }
    // What the inputs are before they are read: an answer is kept only if they are the same after
    // it (a write by another process in between would otherwise be kept under the new marks).
    let inputsBefore = options.json ? QuickStatus.inputs(XDGPaths(environment: context.environment)).map(QuickStatus.fingerprint) : []
    // Damaged files are shown ("file damaged", the file named), not thrown.
    let snapshot = try context.run { () throws(AppError) in try LoadAccounts(context.app).overview() }
    for warning in snapshot.warnings { Output.err("warning: \(warning)") }
    let damage = snapshot.allDamage
    let now = context.now()
    // The one resolution (AUTHDECK_ACCOUNT, git config, the directory rule, active); one that
    // fails (a name matching nothing, a rule to an account that is gone) is said, nothing is marked.
    var choice: ResolvedAccount?
    var warned = !snapshot.warnings.isEmpty || !snapshot.place.notes.isEmpty
    if !snapshot.accounts.isEmpty {
        do {
            choice = try AccountResolution.choose(nil, accounts: snapshot.accounts, active: snapshot.activeAccountID,
                                                  environmentAccount: context.environment["AUTHDECK_ACCOUNT"], place: snapshot.place)
        } catch .noDefault {
        } catch {
            Output.err("warning: \(CLIFailure(error, providers: snapshot.providers).message)")
            warned = true
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
        Output.err("warning: secrets are stored in PLAINTEXT (\(snapshot.credentialStore.name) store);"
            + " use the encrypted vault (AUTHDECK_STORE=vault) or a Secret Service keyring to protect them")
    }
    let exitCode = statusExitCode(rows, snapshot)
    if options.json {
        let document: JSONValue = .object([
            "store": .object(["backend": .string(snapshot.credentialStore.name), "insecure": .bool(snapshot.credentialStore.isInsecure),
                              "locked": .bool(snapshot.credentialStore.isLocked),
                              "reason": .text(snapshot.credentialStore.reason), "problem": .text(snapshot.credentialStore.problem),
                              "damaged": .array(damage.map { .object(["file": .string($0.file), "damage": .string($0.damage)]) })]),
            "activeAccount": .text(active?.rawValue),
            "activeAccountSource": .text(choice?.source.label),
            "generatedAt": .string(Times.rfc3339(now)),
            "accounts": .array(rows.map { $0.json(now: now) }),
        ])
        if let format = options.prompt {
            Output.raw(Data(PromptSegment.output(statusJSON: Array(document.serialized()), format: format).utf8))
        } else {
            Output.json(document)
        }
        let quiet = !warned && damage.isEmpty && snapshot.credentialStore.problem == nil && !snapshot.credentialStore.isInsecure
        if quiet { keepStatus(document, rows: rows, exitCode: exitCode, snapshot: snapshot, inputsBefore: inputsBefore, now: now, context) }
    } else if rows.isEmpty && damage.isEmpty {
        Output.err("No account is signed in. \(CLIFailure.signInAdvice(snapshot.providers))")
    } else {
        var lines: [String] = []
        for row in rows { lines += row.text(now: now) + (options.changes ? row.changesText(now: now) : []) }
        let store = snapshot.credentialStore
        let marks = (store.isInsecure ? " (INSECURE)" : "") + (store.isLocked ? " (locked)" : "")
        lines.append("storage backend: \(store.name)\(marks)\(store.reason.map { " — \($0)" } ?? "")")
        lines += damage.map { "file damaged: \($0.file): \($0.damage)" }
        let gitURLs = SetupGit(context.app).installedURLs()
        if !gitURLs.isEmpty { lines.append("git credential helper for: \(commaList(gitURLs)) (authdeck setup-git)") }
        Output.out(lines.joined(separator: "\n") + "\n")
    }
    if !damage.isEmpty {
        Output.err("error: file damaged: \(damage.map(\.file).joined(separator: ", ")) cannot be read; nothing was changed."
            + " Run 'authdeck doctor' to see what is damaged and 'authdeck doctor --repair' to move it aside.")
    }
    return exitCode
}

/// `status`'s exit status (README "Exit codes") for `rows` as loaded in `snapshot`.
private func statusExitCode(_ rows: [StatusRow], _ snapshot: LoadedSnapshot) -> Int32 {
    if !snapshot.allDamage.isEmpty { return ExitCode.fileDamaged }
    if snapshot.credentialStore.isLocked && !rows.isEmpty { return ExitCode.storeLocked }
    if snapshot.credentialStore.problem != nil && !rows.isEmpty { return ExitCode.failure }
    if rows.contains(where: { $0.status == .needsSignIn }) { return ExitCode.needsSignIn }
    if rows.contains(where: { $0.status.needsAttention }) { return ExitCode.failure }
    return ExitCode.ok
}

/// Leaves `document` (a `status --json` that said nothing on stderr) for the launcher to answer
/// with while it holds (QuickStatus): only when the call is plain (QuickAnswer's conditions, for
/// this process's variables and directory), the vault holds the secrets and opens without a
/// prompt, no refresh is under way, and every input is as authdeck wrote it and the same as
/// before it was read (`inputsBefore`, ``QuickStatus/fingerprint(_:)`` of each). Best effort: a
/// status that cannot be kept is answered by the full program next time.
private func keepStatus(_ document: JSONValue, rows: [StatusRow], exitCode: Int32, snapshot: LoadedSnapshot, inputsBefore: [String?],
                        now: Date, _ context: CLIContext) {
    let paths = XDGPaths(environment: context.environment)
    let file = QuickStatus.file(paths)
    // A kept status that no longer holds is removed, whatever follows.
    var kept = false
    defer { if !kept { unlink(file) } }
    guard snapshot.credentialStore.backend == .vault, !snapshot.credentialStore.isLocked,
          !rows.contains(where: { $0.record.refreshSentAt != nil }), let directory = ThisProcess.currentDirectory() else { return }
    guard QuickAnswer.isPlain(variables: context.environment.map { "\($0.key)=\($0.value)" }, directory: directory) else { return }
    var inputs: [JSONValue] = []
    for (path, before) in zip(QuickStatus.inputs(paths), inputsBefore) {
        guard let mark = QuickStatus.fingerprint(path), let before, before.utf8.elementsEqual(mark.utf8) else { return }
        inputs.append(.object(["path": .string(path), "mark": .string(mark)]))
    }
    let until = rows.compactMap { AccountState(record: $0.record).statusUnchangedUntil(now: now, policy: context.app.policy) }.min()
    let timers = rows.enumerated().flatMap { index, row in row.timers(at: [.string("accounts"), .int(index)]) }
    let keep: JSONValue = .object([
        "inputs": .array(inputs), "storeNamed": .text(context.environment["AUTHDECK_STORE"]), "since": .number(now.timeIntervalSince1970),
        "until": until.map { .number($0.timeIntervalSince1970) } ?? .null, "exitCode": .int(Int(exitCode)),
        "timers": .array(timers.map { .object(["path": .array($0.path), "expiresAt": .number($0.expiresAt.timeIntervalSince1970)]) }),
        "document": document,
    ])
    do throws(SecretStoreError) {
        try PrivateFiles.ensureDirectory(paths.cacheDirectory)
        try PrivateFiles.writeAtomically(keep.serialized() + Data("\n".utf8), to: file, durable: false)
        kept = true
    } catch {}
}
