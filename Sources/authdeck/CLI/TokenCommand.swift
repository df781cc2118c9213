import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import QuickToken
import Synchronization

// gh's shape: per command an options struct made from the parsed arguments (validated before
// anything runs) and a run function over the live session (one file per verb).

// MARK: - token

/// The largest `--min-valid`: ten years, in seconds.
let maximumMinValid: Double = 315_360_000

/// A duration option's seconds (`--min-valid`, `--backstop`, `--ending-soon`): decimal digits with
/// an optional fraction (`90`, `1.5`), from 0 to ``maximumMinValid``; nil for anything else — a
/// sign, spaces, an exponent, `inf`, `nan` or a hexadecimal number (`0x10`, which `Double`
/// would read as 16).
func durationSeconds(_ text: String) -> Double? {
    let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let digits: (Substring) -> Bool = { part in !part.isEmpty && part.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }
    guard let whole = parts.first, digits(whole), parts.count == 1 || digits(parts[1]),
          let value = Double(text), value <= maximumMinValid else { return nil }
    return value
}

struct TokenOptions {
    var account: String?
    var minValid: Double
    /// Whether `--min-valid` was given (its warnings are shown only then).
    var minValidGiven: Bool
    var resource: String?
    var idToken: Bool
    var json: Bool
    var execCredential: Bool
    /// `{"Authorization": "Bearer …"}` (Claude Code's `headersHelper` shape).
    var headerJSON: Bool
    /// `--exchange-for` and `--requested-token-type`: a token exchange (RFC 8693).
    var exchange: TokenExchangeTarget?

    init(_ parsed: ParsedCommand) {
        account = parsed.positional("account")
        minValid = parsed.value("minValid").flatMap(durationSeconds) ?? TokenFreshness.defaultMinimumValidity
        minValidGiven = parsed.value("minValid") != nil
        resource = parsed.value("resource") ?? parsed.value("organization").map(TokenAudience.organizationKey)
        idToken = parsed.flag("idToken")
        json = parsed.flag("json")
        execCredential = parsed.flag("execCredential")
        headerJSON = parsed.flag("headerJson")
        exchange = parsed.value("exchangeFor").map {
            TokenAudience.exchangeTarget(for: $0, requestedTokenType: parsed.value("requestedTokenType").flatMap(Self.tokenTypeURN))
        }
    }

    /// RFC 8693 §3's identifiers by their short names (`access_token`, `jwt`, `id_token`, `id-jag`),
    /// or a URN as given; nil for anything else.
    static func tokenTypeURN(_ text: String) -> String? {
        let short = ["access_token": TokenTypeIdentifier.accessToken, "jwt": TokenTypeIdentifier.jwt,
                     "id_token": TokenTypeIdentifier.idToken, "id-jag": TokenTypeIdentifier.idJAG]
        if let urn = short[text] { return urn }
        return text.utf8.starts(with: "urn:".utf8) && text.utf8.count > 4 ? text : nil
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        if let text = parsed.value("minValid"), durationSeconds(text) == nil {
            return "--min-valid must be a number of seconds from 0 to \(Int(maximumMinValid)) (10 years), got '\(text)'"
        }
        if let resource = parsed.value("resource"), let problem = resourceIndicatorProblem(resource) { return problem }
        if [parsed.flag("json"), parsed.flag("execCredential"), parsed.flag("headerJson")].filter({ $0 }).count > 1 {
            return "--json, --exec-credential and --header-json are output formats; choose one"
        }
        if parsed.flag("idToken") && parsed.flag("headerJson") {
            return "--header-json hands over an access token; it cannot be used with --id-token"
        }
        if let problem = exchangeProblem(parsed) { return problem }
        if parsed.flag("idToken") && parsed.value("resource") != nil {
            return "--resource selects an access token; it cannot be used with --id-token"
        }
        return nil
    }

    /// `--exchange-for`'s and `--requested-token-type`'s problem, if any.
    private static func exchangeProblem(_ parsed: ParsedCommand) -> String? {
        if let type = parsed.value("requestedTokenType") {
            if parsed.value("exchangeFor") == nil { return "--requested-token-type goes with --exchange-for" }
            if tokenTypeURN(type) == nil {
                return "--requested-token-type must be access_token, jwt, id_token, id-jag or a urn: token type (RFC 8693 §3), got '\(type)'"
            }
        }
        guard let target = parsed.value("exchangeFor") else { return nil }
        if target.isEmpty { return "--exchange-for needs an audience or an absolute resource URI" }
        if parsed.flag("idToken") || parsed.value("resource") != nil || parsed.value("organization") != nil {
            return "--exchange-for asks for another token; it cannot be used with --id-token, --resource or --organization"
        }
        if target.contains("://") { return resourceIndicatorProblem(target) }
        return nil
    }
}

func tokenRun(_ options: TokenOptions, _ context: CLIContext) async throws -> Int32 {
    if options.exchange != nil, agentSocket(context) != nil {
        throw CLIFailure("The agent does not serve token exchanges", hint: "Run 'authdeck token --exchange-for' on the agent's machine.")
    }
    if let socket = agentSocket(context) { return try remoteTokenRun(options, socket, context) }
    let snapshot = try context.snapshot()
    let record = try context.account(options.account, in: snapshot)
    let tokens = TokenForScripts(context.app)
    let minimumValidity = Duration.milliseconds(Int64(options.minValid * 1000))
    let token: String
    let expiresAt: Date?
    if options.idToken {
        let issued = try await context.run { () async throws(AppError) in
            try await tokens.idToken(record.id, minimumValidity: minimumValidity, notices: Output.refreshNotice)
        }
        if options.minValidGiven { for warning in issued.warnings { Output.err("warning: \(warning)") } }
        (token, expiresAt) = (issued.value.exposedValue, issued.expiresAt)
    } else {
        let issued = try await context.run { () async throws(AppError) in
            if let exchange = options.exchange {
                return try await tokens.exchangedToken(record, for: exchange, minimumValidity: minimumValidity, notices: Output.refreshNotice)
            }
            return try await tokens.accessToken(record, minimumValidity: minimumValidity, resource: options.resource, notices: Output.refreshNotice)
        }
        if options.headerJSON, issued.tokenType.equalsIgnoringASCIICase("DPoP") {
            // RFC 9449 §7.1: a DPoP token works only with a fresh proof per request; a static header would be refused.
            throw CLIFailure("The access token of \(AccountResolution.handle(record)) is bound to a key (DPoP, RFC 9449):"
                                 + " it cannot be handed over as a static Authorization header",
                             hint: "Each request needs a fresh proof: call the API with 'authdeck api URL',"
                                 + " or make proofs with 'authdeck proof METHOD URL'; or sign in again with the provider's dpop setting 'never'.")
        }
        printTokenNotes(issued.warnings, minValidGiven: options.minValidGiven, tokenType: issued.tokenType, refusedIDToken: issued.refusedIDToken)
        (token, expiresAt) = (issued.value.exposedValue, issued.expiresAt)
    }
    if options.headerJSON {
        Output.json(.object(["Authorization": .string("Bearer " + token)]))
    } else if options.execCredential {
        let status = JSONValue.object(omittingNil: ["token": .string(token), "expirationTimestamp": expiresAt.map { .string(Times.rfc3339($0)) }])
        Output.json(.object(["apiVersion": .string("client.authentication.k8s.io/v1"), "kind": .string("ExecCredential"), "status": status]))
    } else if options.json {
        Output.json(.object([
            "account": .string(AccountResolution.handle(record)),
            "type": .string(options.idToken ? "id_token" : "access_token"),
            "resource": .text(options.exchange.map { $0.resource ?? $0.audience ?? "" } ?? options.resource),
            "token": .string(token),
            "expiresAt": .time(expiresAt),
            "secondsLeft": .integer(expiresAt.map { Times.secondsLeft($0, now: context.now()) }),
        ]))
    } else {
        Output.line(token)
    }
    return ExitCode.ok
}
