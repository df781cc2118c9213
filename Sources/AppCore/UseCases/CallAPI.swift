import AuthEngine
import FoundationEssentials

/// `authdeck api`: a request to a protected resource with the account's access token
/// (RFC 6750 §2.1), renewed first when it expires within 30 s. Redirects are not followed: the
/// token must not travel to another origin.
public struct CallAPI: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// The account `url` calls for (``APIAccount``): `query` and `environmentAccount` as every
    /// command takes them; the place is read only when the choice reaches it.
    public func account(for url: URL, query: String?, in snapshot: LoadedSnapshot,
                        environmentAccount: String?) throws(APIAccountFailure) -> ResolvedAccount {
        try APIAccount.choose(url: url.absoluteString, in: snapshot, explicit: query != nil || environmentAccount?.isEmpty == false) {
            () throws(AccountResolutionError) in try Places(env).choose(query, in: snapshot, environmentAccount: environmentAccount)
        }
    }

    /// - Parameter headers: extra headers; an `Authorization` header is refused by the front end.
    /// - Throws: ``AppError`` for the token; a transport failure as ``ErrorMapping`` maps it (`.transient`, a name that
    ///   does not resolve with its next step); `.usage` for an
    ///   account whose token is bound to a resource `url` is outside (RFC 8707: sent nowhere else).
    public func run(_ id: AccountID, method: HTTPRequest.Method, url: URL, headers: [HTTPHeader],
                    body: Data?) async throws(AppError) -> HTTPResponse {
        let record = try Accounts(env: env).record(id)
        let provider = try? ProviderAccess(env: env).provider(record.providerID)
        if let bound = APIAccount.boundResource(of: provider), !APIAccount.covers(resource: bound, url: url.absoluteString) {
            throw AppError(title: "\(AccountResolution.handle(record))'s token is for the resource \(bound) only",
                           detail: "A token bound to a resource (RFC 8707) is never sent elsewhere, and \(url.absoluteString) is outside it.",
                           specReference: "RFC 8707 §2", disposition: .usage)
        }
        let token = try await TokenForScripts(env).accessToken(id, minimumValidity: .seconds(30))
        var http = env.http(provider)
        var all: [HTTPHeader] = []
        if token.tokenType.equalsIgnoringASCIICase("DPoP") {
            // RFC 9449 §7.1: `Authorization: DPoP` with a proof carrying `ath`; one retry on `use_dpop_nonce` (§9).
            http = http.withDPoP(try DPoPProof(env).signer(id), accessToken: token.value)
        } else {
            let scheme = token.tokenType.equalsIgnoringASCIICase("Bearer") ? "Bearer" : token.tokenType
            all.append(HTTPHeader("Authorization", "\(scheme) \(token.value.exposedValue)"))
        }
        all += headers
        if body != nil, !all.contains(where: { $0.name.lowercased() == "content-type" }) {
            all.append(HTTPHeader("Content-Type", "application/json"))
        }
        do {
            return try await http.send(HTTPRequest(method: method, url: url, headers: all, body: body, followRedirects: false))
        } catch {
            // The one mapping (ErrorMapping): its disposition, and a host that does not resolve said as such.
            var failure = ErrorMapping.appError(AuthError.transport(error))
            failure.title = "The request to \(url.absoluteString) failed"
            throw failure
        }
    }
}
