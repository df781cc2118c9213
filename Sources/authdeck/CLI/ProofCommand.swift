import AppCore
import AuthEngine
import FoundationEssentials

// `authdeck proof METHOD URL [ACCOUNT]` and the DPoP notes of `token` and `status` (RFC 9449).
// The rules live in AppCore (`DPoPProof`); this file parses and prints.

extension Commands {
    static let proof = CommandSpec(
        name: "proof",
        abstract: "Print a fresh DPoP proof (RFC 9449) for one request with a DPoP account's token.",
        discussion: "For scripts calling an API with a sender-constrained token: send 'Authorization: DPoP <token>' and 'DPoP: <proof>'."
            + " The proof carries htm, htu (without query and fragment), iat, jti and ath; it is good for one request."
            + " --json prints the token, its type, the proof and the key's thumbprint.",
        positionals: [
            PositionalSpec(name: "method", optional: false, help: "The request's HTTP method (GET, POST, …)."),
            PositionalSpec(name: "url", optional: false, help: "The request's https URL (http only on loopback)."),
            account,
        ],
        options: [json],
        validate: { parsed in
            let method = parsed.positional("method") ?? ""
            func isLetter(_ byte: UInt8) -> Bool {
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            }
            guard !method.isEmpty, method.utf8.allSatisfy(isLetter) else {
                return "METHOD must be an HTTP method such as GET or POST"
            }
            return nil
        },
        run: { try await proofRun($0, .current) }
    )
}

func proofRun(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
    let method = (parsed.positional("method") ?? "GET").uppercased()
    let url = try checkSecureURL(parsed.positional("url") ?? "", named: "<url>")
    let snapshot = try context.snapshot()
    let record = try context.account(parsed.positional("account"), in: snapshot)
    let issued = try await context.run { () async throws(AppError) in try await DPoPProof(context.app).run(record.id, method: method, url: url) }
    if parsed.flag("json") {
        Output.json(.object([
            "account": .string(AccountResolution.handle(record)), "tokenType": .string(issued.tokenType),
            "token": .string(issued.accessToken.exposedValue),
            "proof": .string(issued.proof), "thumbprint": .string(issued.thumbprint), "htm": .string(method), "htu": .string(DPoP.htu(url)),
        ]))
    } else {
        Output.line(issued.proof)
    }
    return ExitCode.ok
}

/// `token`'s stderr notes: the `--min-valid` warnings and, for a DPoP token, that it is
/// sender-constrained (it works only with a proof from the account's key, RFC 9449 §7).
func printTokenNotes(_ warnings: [String], minValidGiven: Bool, tokenType: String, refusedIDToken: String? = nil) {
    if minValidGiven { for warning in warnings { Output.err("warning: \(warning)") } }
    if let refusedIDToken { Output.err("warning: \(refusedIDToken)") }
    if tokenType.equalsIgnoringASCIICase("DPoP") {
        Output.err("note: this token is sender-constrained (DPoP, RFC 9449): send it as 'Authorization: DPoP …'"
            + " with a proof from 'authdeck proof METHOD URL'")
    }
}

/// `status --json`'s `dpop` member: whether the provider bound the access token to a key
/// (`token_type: DPoP`), and that key's RFC 7638 thumbprint (null for a Bearer token).
func dpopStatusJSON(_ record: AccountRecord) -> JSONValue {
    .object(["senderConstrained": .bool(record.isSenderConstrained), "thumbprint": .text(record.boundDPoPThumbprint)])
}
