import AuthEngine
import AppCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
import TextSupport
#endif

// MARK: - decode

struct DecodeOptions {
    var token: String?
    var json: Bool
    var verify: Bool
    var issuer: String?
    var audience: String?
    var nonce: String?
    var nonceSHA256: String?

    init(_ parsed: ParsedCommand) {
        token = parsed.positional("token")
        json = parsed.flag("json")
        verify = parsed.flag("verify")
        issuer = parsed.value("issuer")
        audience = parsed.value("audience")
        nonce = parsed.value("nonce")
        nonceSHA256 = parsed.value("nonceSha256")
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        let checks = ["issuer", "audience", "nonce", "nonceSha256"].filter { parsed.value($0) != nil }
        if !parsed.flag("verify"), let first = checks.first {
            return "--\(ArgumentParserNames.kebab(first)) only applies with --verify"
        }
        if parsed.flag("verify") {
            if parsed.value("issuer") == nil { return "--verify needs --issuer URL (the expected iss; its JWKS checks the signature)" }
            if parsed.value("audience") == nil { return "--verify needs --audience ID (the client id the token must be issued to)" }
        }
        if parsed.value("nonce") != nil && parsed.value("nonceSha256") != nil {
            return "give either --nonce (the claim itself) or --nonce-sha256 (the raw nonce whose SHA-256 hex is the claim), not both"
        }
        if parsed.positional("token") == nil && isatty(0) == 1 {
            return "give the TOKEN, or pipe it in (authdeck token --id-token | authdeck decode)"
        }
        return nil
    }
}

/// What kind of token was given.
enum DecodedToken {
    case jws(CompactJWS, claims: [String: JSONValue]?)
    /// A JWE (RFC 7516): only its protected header is readable.
    case jwe(header: [String: JSONValue])
    case opaque(length: Int)

    init(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 5, let data = Base64URL.decode(String(parts[0])),
           case .success(.object(let header)) = parseJSON(data) {
            self = .jwe(header: header)
            return
        }
        if let jws = try? CompactJWS(parsing: text) {
            let claims: [String: JSONValue]? = if case .success(.object(let members)) = parseJSON(jws.payload) { members } else { nil }
            self = .jws(jws, claims: claims)
            return
        }
        self = .opaque(length: text.count)
    }
}

func decodeRun(_ options: DecodeOptions, _ context: CLIContext) async throws -> Int32 {
    let raw: String
    if let token = options.token, token != "-" {
        raw = token
    } else {
        raw = String(decoding: readStandardInput(), as: UTF8.self)
    }
    let text = raw.trimmingWhitespaceAndNewlines()
    guard !text.isEmpty else {
        let empty = "no token given (stdin was empty)"
        throw CLIFailure.usage(options.token.map { $0 == "-" ? empty : "the token argument is empty" } ?? empty)
    }
    let decoded = DecodedToken(text)
    let now = context.now()
    var result: [String: JSONValue] = [:]
    var lines: [String] = []
    switch decoded {
    case .jwe(let header):
        result = ["kind": .string("jwe"), "header": .object(header), "claims": .null, "times": .object([:])]
        lines = ["An encrypted JWT (JWE, RFC 7516): only the issuer's intended recipient can read the claims.", "Header:"]
        lines += ClaimsText.lines(header, provider: nil, now: now).map { "  " + $0 }
    case .opaque(let length):
        result = ["kind": .string("opaque"), "length": .int(length), "header": .null, "claims": .null, "times": .object([:])]
        lines = ["An opaque token (not a JWT), \(length) characters: only its issuer can tell what it means (try 'authdeck introspect')."]
    case .jws(let jws, let claims):
        var times: [String: String] = [:]
        for (name, value) in claims ?? [:] {
            if let date = ClaimsText.date(name, value, provider: nil) { times[name] = Times.rfc3339(date) }
        }
        result = ["kind": .string("jws"), "header": .object(jws.header.members),
                  "claims": claims.map { .object($0) } ?? .null, "times": .stringMap(times)]
        lines = ["Header:"] + ClaimsText.lines(jws.header.members, provider: nil, now: now).map { "  " + $0 }
        if let claims {
            lines += ["Claims:"] + ClaimsText.lines(claims, provider: nil, now: now).map { "  " + $0 }
        } else {
            lines += ["Payload: not JSON (\(jws.payload.count) bytes)"]
        }
    }
    var failure: CLIFailure?
    result["verification"] = .null  // the same keys for every kind of token (README schema)
    if options.verify {
        switch await verify(text, options: options, context: context) {
        case .success(let verified):
            result["verification"] = .object(["valid": .bool(true), "algorithm": .string(verified.header.algorithm),
                                              "keyId": .text(verified.verifiedWith.keyID)])
            let kid = verified.verifiedWith.keyID.map { ", kid \($0)" } ?? ""
            let nonce = options.nonce != nil || options.nonceSHA256 != nil ? ", nonce" : ""
            lines.append("Verified: signature (\(verified.header.algorithm)\(kid)) against the issuer's JWKS;"
                + " iss, aud, exp, iat, sub\(nonce) checked (OIDC Core §3.1.3.7).")
        case .failure(let error):
            let presentable = PresentableError(from: error)
            let rule = ruleName(error)
            result["verification"] = .object(["valid": .bool(false), "rule": .string(rule), "title": .string(presentable.title),
                                              "detail": .string(presentable.detail), "specReference": .text(presentable.specReference)])
            lines.append("NOT VALID: \(presentable.title) [\(rule)]")
            let reference = presentable.specReference.map { " (\($0))" } ?? ""
            failure = CLIFailure("The token is not valid: \(presentable.title) (\(rule)): \(presentable.detail)\(reference)",
                                 hint: hintFor(rule))
        }
    } else if case .jws = decoded {
        lines.append("Signature: not verified (add --verify --issuer URL --audience CLIENT_ID)")
    }
    if options.json {
        Output.json(.object(result))
    } else {
        Output.out(lines.joined(separator: "\n") + "\n")
    }
    if let failure { throw failure }
    return ExitCode.ok
}

/// The case name of the rule that failed (`audienceMismatch`, `expired`, `signatureInvalid`, …).
func ruleName(_ error: AuthError) -> String {
    let inner: String
    switch error {
    case .protocolViolation(let violation): inner = String(describing: violation)
    case .unsupported(let reason): inner = String(describing: reason)
    default: inner = String(describing: error)
    }
    return String(inner.prefix { $0 != "(" })
}

func hintFor(_ rule: String) -> String? {
    switch rule {
    case "audienceMismatch", "azpMismatch": return "Check --audience: it must be the client id the token was issued to."
    case "idTokenIssuerMismatch": return "Check --issuer: it must equal the token's iss exactly."
    case "expired": return "Get a fresh token (authdeck refresh; authdeck token --id-token)."
    case "nonceMismatch": return "Check --nonce / --nonce-sha256: it must be the nonce sent with the authorization request."
    case "algorithmNotAllowed": return "Tokens signed with 'none' or a shared secret are never accepted by a public client."
    case "signatureInvalid", "noMatchingKey": return "The token was altered or not signed by this issuer's keys."
    default: return nil
    }
}

func verify(_ text: String, options: DecodeOptions, context: CLIContext) async -> Result<VerifiedIDToken, AuthError> {
    do {
        let issuerURL = try checkSecureURL(options.issuer ?? "", named: "--issuer")
        let nonce: VerifyToken.Nonce = options.nonce.map { .value($0) } ?? options.nonceSHA256.map { .sha256Of($0) } ?? .none
        return .success(try await VerifyToken(context.app).run(text, issuer: options.issuer ?? issuerURL.absoluteString,
                                                                audience: options.audience ?? "", nonce: nonce))
    } catch let error as AuthError {
        return .failure(error)
    } catch let failure as CLIFailure {
        return .failure(.unsupported(.insecureURL(failure.message)))
    } catch {
        return .failure(.protocolViolation(.malformedJWT(reason: "\(type(of: error))")))
    }
}

// MARK: - api

struct APIOptions {
    var account: String?
    var url: String
    var method: String?
    var headers: [String]
    var data: String?
    var include: Bool

    init(_ parsed: ParsedCommand) {
        account = parsed.positional("account")
        url = parsed.positional("url") ?? ""
        method = parsed.value("method")
        headers = parsed.values("header")
        data = parsed.value("data")
        include = parsed.flag("include")
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        if let method = parsed.value("method"), HTTPRequest.Method(rawValue: method.uppercased()) == nil {
            return "-X '\(method)' is not one of GET, POST, PUT, PATCH, DELETE, HEAD"
        }
        for header in parsed.values("header") {
            if header.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) { return "-H values cannot hold a line break (CR or LF)" }
            guard let colon = header.firstIndex(of: ":") else { return "-H '\(header)' must look like 'Name: value'" }
            if header[..<colon].trimmingWhitespace().lowercased() == "authorization" {
                return "-H Authorization: authdeck sends the bearer token itself"
            }
        }
        return nil
    }
}

func apiRun(_ options: APIOptions, _ context: CLIContext) async throws -> Int32 {
    // `authdeck api bob`: one argument is the URL; an account goes before it.
    let accountFirst = options.account == nil && !options.url.contains("://")
        ? "Give the URL to call (https://…); an account goes before it: authdeck api \(Output.visible(options.url)) https://api.example.com/items."
        : nil
    let url = try checkSecureURL(options.url, named: "<url>", hint: accountFirst)
    let snapshot = try context.snapshot()
    // The URL chooses: a signed-in resource's own account; a resource's token nowhere else (APIAccount).
    let record: AccountRecord
    do throws(APIAccountFailure) {
        record = try CallAPI(context.app).account(for: url, query: options.account, in: snapshot,
                                                  environmentAccount: context.environment["AUTHDECK_ACCOUNT"]).record
    } catch {
        switch error {
        case .resolution(let error): throw CLIFailure(error, providers: snapshot.providers)
        case .mismatch(let error): throw CLIFailure(error)
        }
    }
    var body: Data?
    if let data = options.data {
        if data == "@-" {
            body = readStandardInput()
        } else if data.hasPrefix("@") {
            guard let contents = FileManager.default.contents(atPath: String(data.dropFirst())) else {
                throw CLIFailure("Cannot read '\(data.dropFirst())' for -d", hint: "Give a readable file after @, @- for stdin, or the data itself.")
            }
            body = contents
        } else {
            body = Data(data.utf8)
        }
    }
    let method = HTTPRequest.Method(rawValue: (options.method ?? (body == nil ? "GET" : "POST")).uppercased()) ?? .get
    var headers: [HTTPHeader] = []
    for header in options.headers {
        let colon = header.firstIndex(of: ":")!
        headers.append(HTTPHeader(header[..<colon].trimmingWhitespace(), header[header.index(after: colon)...].trimmingWhitespace()))
    }
    let requestBody = body
    // A step-up challenge (RFC 9470, insufficient_scope): one sign-in here when a person is at the terminal, else exit 8.
    let person = isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1
    let stepped = try await context.run { () async throws(AppError) in
        try await CallAPI(context.app).runSteppingUp(record.id, method: method, url: url, headers: headers, body: requestBody,
                                                     canSignIn: person) { (request) async throws(AppError) in
            try await stepUpSignIn(request, resource: url, context)
        }
    }
    let response = stepped.response
    if options.include {
        Output.err("HTTP \(response.status)")
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) { Output.err("\(name): \(value)") }
        Output.err("")
    }
    // Like curl, the body as it is when piped; on a terminal, with control characters made visible.
    if Output.stdoutIsTerminal {
        Output.out(String(decoding: response.body, as: UTF8.self))
    } else {
        Output.raw(response.body)
    }
    try stepUpFailure(stepped.decision, method: method, url: url, status: response.status)
    if response.status >= 400 {
        let hint = response.status == 401
            ? "The API refused the token: try 'authdeck refresh', or sign in again with the scopes or audience it needs."
            : nil
        throw CLIFailure("\(method.rawValue) \(url.absoluteString) answered HTTP \(response.status)", hint: hint)
    }
    return ExitCode.ok
}
