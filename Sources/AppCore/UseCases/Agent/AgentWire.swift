import AuthEngine
import FoundationEssentials
import QuickToken
import StrictJSON

// `authdeck agent`'s wire protocol, version 1 (docs/ARCHITECTURE.md "Tokens across the machine's
// edge"): on a Unix stream socket, one request and one answer per connection, each one JSON object
// (StrictJSON: jansson, duplicate members refused). The client writes its request and shuts down
// its writing side; the agent reads to the end (at most ``AgentRequest/maximumSize`` bytes),
// writes its answer and closes. What crosses: account names, expiry, token type and an access
// token; never a refresh token, a client secret or a DPoP key, and an ID token only when the
// agent was started with `--allow-id-token`.

/// The protocol's version: a request of another version gets an answer naming both.
public let agentProtocolVersion = 1

/// One request to the agent.
public struct AgentRequest: Equatable, Sendable {
    public enum Operation: String, Sendable, CaseIterable {
        /// An access token (or, when allowed, an ID token) for one account.
        case token
        /// The served accounts with their expiry (remote `status`, `which`).
        case accounts
        /// git's credential request (``helperInput``: the lines git sent), answered as `git-credential get` would.
        case gitCredentialGet = "git-credential-get"
        /// git's "this token was rejected": refreshed once, under the lock, as `git-credential erase`.
        case gitCredentialErase = "git-credential-erase"
        /// docker's request (``helperInput``: the server URL docker sent), as `docker-credential get`.
        case dockerCredentialGet = "docker-credential-get"
    }

    public var operation: Operation
    /// The ACCOUNT argument given on the remote (alias, handle, id or prefix), if any.
    public var account: String?
    /// The remote's `AUTHDECK_ACCOUNT`, if set.
    public var environmentAccount: String?
    /// An RFC 8707 resource indicator: that audience's token.
    public var resource: String?
    /// `--min-valid`, in seconds.
    public var minimumValidity: Double
    /// `token --id-token`.
    public var idToken: Bool
    /// What runs on the remote (`token`, `git-credential get`, `exec make`): shown in `--confirm`'s
    /// question and the log, never trusted for a decision.
    public var command: String
    /// The remote's host name (uname), as the remote says: shown and logged, never trusted.
    public var host: String
    /// What git or docker sent the remote's helper, passed on unread (the agent parses it as its own helpers do).
    public var helperInput: String?
    /// What the remote's directory says (``Places/read(_:)`` there: its git config `authdeck.account`
    /// and `authdeck bind` rule), sent when no ACCOUNT and no `AUTHDECK_ACCOUNT` choose: the agent
    /// resolves it with the one rule (``AccountResolution``) over the served accounts only. The
    /// remote's words, like ``account``: they choose among the served accounts, never beyond.
    public var place: AccountPlace?

    /// Requests are small; anything longer is refused unread.
    public static let maximumSize = 65_536

    public init(operation: Operation, account: String? = nil, environmentAccount: String? = nil, resource: String? = nil,
                minimumValidity: Double = 60, idToken: Bool = false, command: String, host: String, helperInput: String? = nil,
                place: AccountPlace? = nil) {
        self.place = place
        self.operation = operation
        self.account = account
        self.environmentAccount = environmentAccount
        self.resource = resource
        self.minimumValidity = minimumValidity
        self.idToken = idToken
        self.command = command
        self.host = host
        self.helperInput = helperInput
    }

    public var json: JSONValue {
        .object(omittingNil: [
            "version": .int(agentProtocolVersion), "operation": .string(operation.rawValue),
            "account": account.map(JSONValue.string), "environmentAccount": environmentAccount.map(JSONValue.string),
            "resource": resource.map(JSONValue.string), "minValid": .number(minimumValidity), "idToken": .bool(idToken),
            "command": .string(command), "host": .string(host), "helperInput": helperInput.map(JSONValue.string),
            "place": place.map(Self.placeJSON),
        ])
    }

    /// Reads a request's bytes.
    /// - Throws: ``AgentAnswer/Failure`` `.badRequest` naming the syntax or shape problem, or the version.
    public static func parse(_ bytes: [UInt8]) throws(AgentAnswer.Failure) -> AgentRequest {
        guard bytes.count <= maximumSize else { throw .init(.badRequest, "The request is longer than \(maximumSize) bytes") }
        let value: JSONValue
        do { value = try parseJSONValue(Data(bytes)) } catch { throw .init(.badRequest, "The request is not JSON: \(error)") }
        do {
            let reader = try JSONReader(value)
            let version = try reader.int("version")
            guard version == agentProtocolVersion else {
                throw AgentAnswer.Failure(.badRequest, "The request is of protocol version \(version); this agent speaks \(agentProtocolVersion)",
                                          nextStep: "Use the same authdeck version on both machines.")
            }
            let minimumValidity = try reader.optionalDouble("minValid") ?? 60
            guard minimumValidity >= 0, minimumValidity <= 315_360_000 else {
                throw JSONShapeError(path: [.member("minValid")], expected: "0 to 315360000")
            }
            return AgentRequest(operation: try reader.rawValue("operation"), account: try reader.optionalString("account"),
                                environmentAccount: try reader.optionalString("environmentAccount"), resource: try reader.optionalString("resource"),
                                minimumValidity: minimumValidity, idToken: try reader.optionalBool("idToken") ?? false,
                                command: try reader.string("command"), host: try reader.string("host"),
                                helperInput: try reader.optionalString("helperInput"), place: try reader.optionalReader("place").map(placeRead))
        } catch let failure as AgentAnswer.Failure {
            throw failure
        } catch {
            throw .init(.badRequest, "The request does not have the agent's shape: \(error)")
        }
    }
}

extension AgentRequest {
    /// `{"directory":…,"gitConfig":{"value","file","scope"},"rule":{"directory","account"},"rulesProblem":…}`, each member
    /// optional (the notes stay on the remote, which shows them).
    static func placeJSON(_ place: AccountPlace) -> JSONValue {
        .object(omittingNil: [
            "directory": place.directory.map(JSONValue.string), "rulesProblem": place.rulesProblem.map(JSONValue.string),
            "gitConfig": place.gitConfig.map { .object(["value": .string($0.value), "file": .string($0.file), "scope": .string($0.scope)]) },
            "rule": place.rule.map { .object(["directory": .string($0.directory), "account": .string($0.account.rawValue)]) },
        ])
    }

    static func placeRead(_ reader: JSONReader) throws(JSONShapeError) -> AccountPlace {
        var place = AccountPlace(directory: try reader.optionalString("directory"), rulesProblem: try reader.optionalString("rulesProblem"))
        if let git = try reader.optionalReader("gitConfig") {
            place.gitConfig = GitConfigAccount(value: try git.string("value"), file: try git.string("file"), scope: try git.string("scope"))
        }
        if let rule = try reader.optionalReader("rule") {
            place.rule = DirectoryBinding(directory: try rule.string("directory"), account: AccountID(rawValue: try rule.string("account")))
        }
        return place
    }
}

/// The agent's answer: a token, the served accounts, or a failure with a named reason.
public enum AgentAnswer: Equatable, Sendable {
    case token(IssuedToken)
    case accounts([ServedAccount])
    /// A credential helper's "nothing from me" (a host no served account's provider serves; an erase with nothing to do).
    case nothing
    case failure(Failure)

    public struct IssuedToken: Equatable, Sendable {
        /// The account's handle (`provider/username`).
        public var account: String
        /// The token, redacted until the remote's front end prints it.
        public var token: AccessToken
        /// `access_token`, or `id_token` when asked and allowed.
        public var kind: String
        public var tokenType: String
        public var expiresAt: Date?
        /// What `token --min-valid` warns about on the agent's side.
        public var warnings: [String]
        /// For a credential helper: the username the host expects.
        public var username: String? = nil

        public init(account: String, token: AccessToken, kind: String = "access_token", tokenType: String, expiresAt: Date?,
                    warnings: [String] = []) {
            self.account = account
            self.token = token
            self.kind = kind
            self.tokenType = tokenType
            self.expiresAt = expiresAt
            self.warnings = warnings
        }
    }

    /// What the remote may know of a served account (no token).
    public struct ServedAccount: Equatable, Sendable {
        public var handle: String
        /// The account's id (`provider/subject`): what a remote `authdeck bind` keeps in its rule (an alias can change).
        public var id: String?
        public var alias: String?
        public var expiresAt: Date?
        public var tokenType: String?
        public var needsSignIn: Bool
        /// Whether a `token` with the request's ACCOUNT and `AUTHDECK_ACCOUNT` gets this account (none named: the agent's default).
        public var isDefault: Bool

        public init(handle: String, id: String? = nil, alias: String?, expiresAt: Date?, tokenType: String?, needsSignIn: Bool,
                    isDefault: Bool) {
            self.handle = handle
            self.id = id
            self.alias = alias
            self.expiresAt = expiresAt
            self.tokenType = tokenType
            self.needsSignIn = needsSignIn
            self.isDefault = isDefault
        }
    }

    public struct Failure: Error, Equatable, Sendable {
        /// The named reasons; the remote maps each to its exit status.
        public enum Code: String, Sendable {
            /// `--confirm` answered no, or not in time.
            case denied
            /// The agent does not serve this (a DPoP-bound token, an ID token not allowed, an account not forwarded).
            case refused
            case needsSignIn
            case storeLocked
            /// The request named no account or several (the agent's accounts are named).
            case usage
            case badRequest
            case failed
        }

        public var code: Code
        public var title: String
        public var nextStep: String?

        /// The remote command's exit status (README's table): `denied` 7, `needsSignIn` 3,
        /// `storeLocked` 4, `usage` and `badRequest` 2, else 1. Sent with the answer, so the
        /// launcher, which answers a plain `token` itself, exits as the full program does.
        public var exitStatus: Int32 {
            switch code {
            case .denied: 7
            case .needsSignIn: 3
            case .storeLocked: 4
            case .usage, .badRequest: 2
            case .refused, .failed: 1
            }
        }

        public init(_ code: Code, _ title: String, nextStep: String? = nil) {
            self.code = code
            self.title = title
            self.nextStep = nextStep
        }
    }

    public var json: JSONValue {
        let version = JSONValue.int(agentProtocolVersion)
        switch self {
        case .token(let issued):
            return .object(omittingNil: [
                "version": version, "account": .string(issued.account), "token": .string(issued.token.exposedValue), "kind": .string(issued.kind),
                "tokenType": .string(issued.tokenType), "expiresAt": issued.expiresAt.map { .date($0, .secondsSince1970) },
                "warnings": .strings(issued.warnings), "username": issued.username.map(JSONValue.string),
            ])
        case .accounts(let accounts):
            return .object(["version": version, "accounts": .array(accounts.map { account in
                .object(omittingNil: [
                    "handle": .string(account.handle), "id": account.id.map(JSONValue.string), "alias": account.alias.map(JSONValue.string),
                    "expiresAt": account.expiresAt.map { .date($0, .secondsSince1970) }, "tokenType": account.tokenType.map(JSONValue.string),
                    "needsSignIn": .bool(account.needsSignIn), "default": .bool(account.isDefault),
                ])
            })])
        case .nothing:
            return .object(["version": version, "nothing": .bool(true)])
        case .failure(let failure):
            return .object(["version": version, "error": .object(omittingNil: [
                "code": .string(failure.code.rawValue), "title": .string(failure.title), "nextStep": failure.nextStep.map(JSONValue.string),
                "exitStatus": .int(Int(failure.exitStatus)),
            ])])
        }
    }

    /// Reads an answer's bytes (the remote's side).
    /// - Throws: ``Failure`` `.failed` when the bytes are not an answer of this version, or its token is not
    ///   visible ASCII (``AgentConnection/isTokenText(_:)``, the launcher's rule too).
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> AgentAnswer {
        do {
            let reader = try JSONReader(try parseJSONValue(Data(bytes)))
            guard try reader.int("version") == agentProtocolVersion else {
                throw Failure(.failed, "The agent speaks another protocol version", nextStep: "Use the same authdeck version on both machines.")
            }
            if let error = try reader.optionalReader("error") {
                return .failure(Failure(try error.rawValue("code"), try error.string("title"), nextStep: try error.optionalString("nextStep")))
            }
            if try reader.optionalBool("nothing") == true { return .nothing }
            if reader.value("accounts") != nil {
                return .accounts(try reader.array("accounts") { value, path throws(JSONShapeError) in
                    let account = try JSONReader(value, path: path)
                    return ServedAccount(handle: try account.string("handle"), id: try account.optionalString("id"),
                                         alias: try account.optionalString("alias"),
                                         expiresAt: try account.optionalDate("expiresAt", .secondsSince1970),
                                         tokenType: try account.optionalString("tokenType"), needsSignIn: try account.bool("needsSignIn"),
                                         isDefault: try account.bool("default"))
                })
            }
            let token = try reader.string("token")
            guard AgentConnection.isTokenText(token) else { throw Failure(.failed, AgentConnection.notTokenTextTitle) }
            var issued = IssuedToken(account: try reader.string("account"), token: AccessToken(token),
                                     kind: try reader.string("kind"), tokenType: try reader.string("tokenType"),
                                     expiresAt: try reader.optionalDate("expiresAt", .secondsSince1970),
                                     warnings: try reader.optionalStrings("warnings") ?? [])
            issued.username = try reader.optionalString("username")
            return .token(issued)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(.failed, "The agent's answer could not be read: \(error)")
        }
    }
}
