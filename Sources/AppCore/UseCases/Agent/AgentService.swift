import AuthEngine
import FoundationEssentials
import Synchronization

/// What `authdeck agent` decides for one request from the socket — the same rules as the local
/// commands: which account (``Places/choose(_:in:environmentAccount:place:)`` over the served accounts, with
/// the remote's ACCOUNT argument, `AUTHDECK_ACCOUNT` and its directory's git config and rule, ``AgentRequest/place``),
/// which token (``TokenForScripts``: the stored one while it stays valid, else the one refresh path under the
/// account's lock, the rotation persisted first).
///
/// Rules of the agent alone: only the served accounts are seen (named at start, else the active
/// account); a DPoP-bound account is refused (RFC 9449: its token is worthless without a proof
/// made with the key, which stays here); an ID token only with ``Policy/allowIDToken``; with
/// ``Policy/confirm`` each first use of an account by a remote program (host, program name and resource) is
/// asked (``ask``: no answer means no) and remembered for the agent's life; every request is
/// recorded (``record``), allowed or not.
public struct AgentService: Sendable {
    public struct Policy: Sendable {
        /// The served accounts (resolved when the agent starts).
        public var accounts: [AccountID]
        public var allowIDToken: Bool
        public var confirm: Bool
        public init(accounts: [AccountID], allowIDToken: Bool = false, confirm: Bool = false) {
            self.accounts = accounts
            self.allowIDToken = allowIDToken
            self.confirm = confirm
        }
    }

    /// Who is asking: what the kernel says of the socket's peer (`SO_PEERCRED`) and what the request says.
    public struct Peer: Sendable, Equatable {
        public var pid: Int32
        public var uid: UInt32
        public init(pid: Int32, uid: UInt32) {
            self.pid = pid
            self.uid = uid
        }
    }

    /// The `--confirm` question: shown on this machine's terminal.
    public struct Question: Sendable, Equatable {
        public var host: String
        public var command: String
        public var account: String
        /// The RFC 8707 resource indicator asked for, if any.
        public var resource: String?
        public init(host: String, command: String, account: String, resource: String? = nil) {
            self.host = host
            self.command = command
            self.account = account
            self.resource = resource
        }
    }

    /// One line of the agent's log (`authdeck agent --log`).
    public struct LogEntry: Sendable, Equatable {
        public var time: Date
        public var peer: Peer
        public var host: String
        public var command: String
        public var account: String?
        /// `allowed`, or the failure's code (`denied`, `refused`, …).
        public var outcome: String
        public var reason: String?
        /// The RFC 8707 resource indicator asked for, if any.
        public var resource: String?

        public init(time: Date, peer: Peer, host: String, command: String, account: String?, outcome: String, reason: String? = nil,
                    resource: String? = nil) {
            self.resource = resource
            self.time = time
            self.peer = peer
            self.host = host
            self.command = command
            self.account = account
            self.outcome = outcome
            self.reason = reason
        }
    }

    let env: AppEnvironment
    let policy: Policy
    let ask: @Sendable (Question) async -> Bool
    let record: @Sendable (LogEntry) -> Void
    /// The (account, host, program) uses already allowed under `--confirm`.
    let allowed = AllowedUses()

    /// The uses `--confirm` allowed, shared by every copy of the service.
    final class AllowedUses: Sendable {
        let keys = Mutex<Set<String>>([])
        func withLock<T>(_ body: (inout Set<String>) -> T) -> T { keys.withLock { body(&$0) } }
    }

    public init(env: AppEnvironment, policy: Policy, ask: @escaping @Sendable (Question) async -> Bool,
                record: @escaping @Sendable (LogEntry) -> Void) {
        self.env = env
        self.policy = policy
        self.ask = ask
        self.record = record
    }

    /// The accounts an agent started with `names` serves: each one the name resolves to (as a
    /// local ACCOUNT argument), else the default account (`AUTHDECK_ACCOUNT`, the active one, the only one).
    /// - Throws: `.usage` naming the name that matches no account or several.
    public static func servedAccounts(_ names: [String], environmentAccount: String?, env: AppEnvironment) throws(AppError) -> [AccountID] {
        let snapshot = try LoadAccounts(env).run()
        func resolve(_ query: String?) throws(AppError) -> AccountID {
            do {
                return try AccountResolution.resolve(query, accounts: snapshot.accounts, active: snapshot.activeAccountID,
                                                     environmentAccount: environmentAccount).id
            } catch {
                throw AppError(title: "The agent cannot serve \(query.map { "'\($0)'" } ?? "a default account")", detail: "\(error)",
                               disposition: .usage)
            }
        }
        if names.isEmpty { return [try resolve(nil)] }
        var ids: [AccountID] = []
        for name in names { let id = try resolve(name); if !ids.contains(id) { ids.append(id) } }
        return ids
    }

    /// The answer to one request; never throws (a failure is an answer the remote shows).
    public func answer(_ request: AgentRequest, peer: Peer) async -> AgentAnswer {
        // The remote's words, bounded: a request cannot fill the log.
        var entry = LogEntry(time: env.now(), peer: peer, host: String(request.host.prefix(255)), command: String(request.command.prefix(512)),
                             account: nil, outcome: "allowed", resource: request.resource.map { String($0.prefix(512)) })
        let answer: AgentAnswer
        do {
            answer = try await decide(request, entry: &entry)
        } catch {
            answer = .failure(error)
            entry.outcome = error.code.rawValue
            entry.reason = error.title
        }
        record(entry)
        return answer
    }

    /// The environment a request sees: the served accounts only (the default one the local active
    /// account when served, else the first named), and the remote's place as the request gives it
    /// (else none: the agent's own directory and git config say nothing about the remote's). Writes go to the real files.
    func served(_ request: AgentRequest) -> AppEnvironment {
        var served = env
        let ids = policy.accounts, files = env.files
        served.files.accounts = { () throws(AppError) in try files.accounts().filter { ids.contains($0.id) } }
        served.files.activeAccount = { () throws(AppError) in
            let active = try? files.activeAccount()
            return active.flatMap { ids.contains($0) ? $0 : nil } ?? ids.first
        }
        served.place = request.place.map(PlaceClient.fixed) ?? PlaceClient.none
        served.git = .none
        return served
    }

    private func decide(_ request: AgentRequest, entry: inout LogEntry) async throws(AgentAnswer.Failure) -> AgentAnswer {
        let env = served(request)
        let snapshot: LoadedSnapshot
        do { snapshot = try LoadAccounts(env).run() } catch { throw Self.failure(error) }
        switch request.operation {
        case .accounts:
            // The one a `token` with the same ACCOUNT and AUTHDECK_ACCOUNT would get (`which`), if any.
            let chosen = try? Places(env).choose(request.account, in: snapshot, environmentAccount: request.environmentAccount).record.id
            return .accounts(snapshot.accounts.map { record in
                let info = record.accessTokens.first { $0.resource == nil }
                return AgentAnswer.ServedAccount(handle: AccountResolution.handle(record), id: record.id.rawValue, alias: record.alias,
                                                 expiresAt: info?.expiresAt,
                                                 tokenType: info?.tokenType, needsSignIn: record.needsSignInSince != nil,
                                                 isDefault: record.id == chosen)
            })
        case .token:
            let record: AccountRecord
            do {
                record = try Places(env).choose(request.account, in: snapshot, environmentAccount: request.environmentAccount).record
            } catch {
                throw Self.unsettled(error)
            }
            entry.account = AccountResolution.handle(record)
            try await allow(record, request)
            return try await token(record, request, env: env)
        case .gitCredentialGet, .gitCredentialErase, .dockerCredentialGet:
            return try await helper(request, entry: &entry, env: env)
        }
    }

    /// Refuses a DPoP-bound account and, with `--confirm`, asks for a first use.
    private func allow(_ record: AccountRecord, _ request: AgentRequest) async throws(AgentAnswer.Failure) {
        let handle = AccountResolution.handle(record)
        if record.isSenderConstrained { throw Self.dpopBound(handle) }
        guard policy.confirm else { return }
        let program = request.command.split(separator: " ").first.map(String.init) ?? request.command
        let key = "\(record.id.rawValue)\u{0}\(request.host)\u{0}\(program)\u{0}\(request.resource ?? "")"
        if allowed.withLock({ $0.contains(key) }) { return }
        guard await ask(Question(host: request.host, command: request.command, account: handle, resource: request.resource)) else {
            throw AgentAnswer.Failure(.denied, "The use of \(handle) was not allowed on the agent's machine (answered no, or not in time)")
        }
        allowed.withLock { _ = $0.insert(key) }
    }

    private func token(_ record: AccountRecord, _ request: AgentRequest, env: AppEnvironment) async throws(AgentAnswer.Failure) -> AgentAnswer {
        let handle = AccountResolution.handle(record)
        if request.idToken && !policy.allowIDToken {
            throw AgentAnswer.Failure(.refused, "The agent does not hand out ID tokens",
                                      nextStep: "Start the agent with --allow-id-token to allow it.")
        }
        let tokens = TokenForScripts(env)
        let minimumValidity = Duration.milliseconds(Int64(request.minimumValidity * 1000))
        do {
            if request.idToken {
                let issued = try await tokens.idToken(record.id, minimumValidity: minimumValidity)
                return .token(.init(account: handle, token: AccessToken(issued.value.exposedValue), kind: "id_token", tokenType: "id_token",
                                    expiresAt: issued.expiresAt, warnings: issued.warnings))
            }
            let issued = try await tokens.accessToken(record, minimumValidity: minimumValidity, resource: request.resource)
            guard !issued.tokenType.equalsIgnoringASCIICase("DPoP") else { throw Self.dpopBound(handle) }
            return .token(.init(account: handle, token: issued.value, tokenType: issued.tokenType, expiresAt: issued.expiresAt,
                                warnings: issued.warnings))
        } catch let failure as AgentAnswer.Failure {
            throw failure
        } catch {
            throw Self.failure(ErrorMapping.appError(error))
        }
    }

    /// git's and docker's requests, decided by their helpers' own rules (``GitCredentials``,
    /// ``HostAccounts``) over the served accounts.
    private func helper(_ request: AgentRequest, entry: inout LogEntry, env: AppEnvironment) async throws(AgentAnswer.Failure) -> AgentAnswer {
        let input = Array((request.helperInput ?? "").utf8)
        do {
            let found: (AccountRecord, CredentialHost)?
            if request.operation == .dockerCredentialGet {
                found = try DockerCredentials(env).account(try DockerCredentialRequest.parse(input), environmentAccount: request.environmentAccount)
            } else {
                let git = try GitCredentialRequest.parse(input)
                if request.operation == .gitCredentialErase {
                    // An erase refreshes: under --confirm it is a use like any other.
                    if policy.confirm, let (record, _) = try GitCredentials(env).account(git, environmentAccount: request.environmentAccount) {
                        entry.account = AccountResolution.handle(record)
                        try await allow(record, request)
                    }
                    let refreshed = try await GitCredentials(env).erase(git, environmentAccount: request.environmentAccount)
                    entry.account = refreshed.map(AccountResolution.handle)
                    return .nothing
                }
                found = try GitCredentials(env).account(git, environmentAccount: request.environmentAccount)
            }
            guard let (record, host) = found else { return .nothing }
            entry.account = AccountResolution.handle(record)
            try await allow(record, request)
            let credential = try await HostAccounts(env: env).credential(record, host: host)
            var issued = AgentAnswer.IssuedToken(account: AccountResolution.handle(record), token: credential.token, tokenType: "Bearer",
                                                 expiresAt: credential.expiresAt)
            issued.username = credential.username
            return .token(issued)
        } catch let failure as AgentAnswer.Failure {
            throw failure
        } catch let failure as CredentialHelperFailure {
            switch failure {
            case .problem(let error): throw Self.failure(error)
            case .resolution(let error, _): throw Self.unsettled(error)
            }
        } catch let error as CredentialRequestError {
            throw AgentAnswer.Failure(.badRequest, "The helper's request: \(error.description)")
        } catch {
            throw Self.failure(ErrorMapping.appError(error))
        }
    }

    /// No served account settled: a rule of the remote's that names one not served is said as such (never another account).
    static func unsettled(_ error: AccountResolutionError) -> AgentAnswer.Failure {
        let next = "Name one of the forwarded accounts (authdeck status lists them)."
        switch error {
        case .ruleAccountMissing(let directory, let account):
            return AgentAnswer.Failure(.usage, "The rule for \(directory) names \(account), which the agent does not serve",
                                       nextStep: "Bind a forwarded one there with 'authdeck bind ACCOUNT --dir \(directory)' (authdeck status"
                                           + " lists them), or start the agent with --account for it.")
        case .rulesUnreadable(let problem):
            return AgentAnswer.Failure(.usage, "The remote's directory rules cannot be read (\(problem))", nextStep: next)
        default:
            return AgentAnswer.Failure(.usage, "The agent's accounts do not settle it: \(error)", nextStep: next)
        }
    }

    /// RFC 9449: a bound token is worthless without a proof made with its key, which stays here.
    static func dpopBound(_ handle: String) -> AgentAnswer.Failure {
        AgentAnswer.Failure(.refused, "The token of \(handle) is bound to a key on the agent's machine (DPoP, RFC 9449): it is not forwarded",
                            nextStep: "Proofs can only be made where the key is: use it there, or sign in with the provider's dpop setting 'never'.")
    }

    static func failure(_ error: AppError) -> AgentAnswer.Failure {
        let code: AgentAnswer.Failure.Code = switch error.disposition {
        case .needsSignIn: .needsSignIn
        case .storeLocked: .storeLocked
        case .usage: .usage
        default: .failed
        }
        return AgentAnswer.Failure(code, error.description, nextStep: error.nextStep)
    }
}
