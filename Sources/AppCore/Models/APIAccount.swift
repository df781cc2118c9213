import AuthEngine
import FoundationEssentials
import TextSupport

/// Why `api URL` sends no token.
public enum APIAccountFailure: Error, Equatable, Sendable {
    /// The default choice (or the named account) could not be resolved.
    case resolution(AccountResolutionError)
    /// The account does not fit the URL (`.usage`): a token bound to another resource, an account
    /// named for a URL inside a resource signed in as another, several accounts at the resource.
    case mismatch(AppError)
}

/// Which account `api URL` sends a token of, chosen by the URL (RFC 8707 audiences):
/// - a URL inside a signed-in resource (``covers(resource:url:)`` a provider made for a protected
///   resource) uses that resource's account — one, or the default choice when it is one of several;
/// - a token bound to a resource (such a provider's) is never sent to a URL outside it;
/// - an account named explicitly (the argument, `$AUTHDECK_ACCOUNT`) that does not fit the URL is
///   an error, never a silent send of a token meant for another party;
/// - elsewhere the usual choice (``AccountResolution/choose(_:accounts:active:environmentAccount:place:)``).
public enum APIAccount {
    /// The resource a provider's default token is bound to (RFC 8707): a provider made for a protected resource.
    public static func boundResource(of provider: ProviderConfig?) -> String? { provider?.protectedResource?.resource }

    /// Whether `url` is `resource` or inside it: the same scheme, host and port (the scheme's
    /// default port filled in; RFC 3986 §6.2.3), no userinfo, and the path the resource's or
    /// below it by whole segments (`/mcp` covers `/mcp/tools`, not `/mcpx`); a resource with a
    /// query covers only itself. Compared code unit for code unit after ``URIParts`` lower-cases
    /// the scheme and host.
    public static func covers(resource: String, url: String) -> Bool {
        guard let resource = URIParts(resource), let target = URIParts(url), target.userinfo == nil, resource.userinfo == nil,
              resource.origin.utf8.elementsEqual(target.origin.utf8) else { return false }
        var base = Substring(resource.path)
        while base.hasSuffix("/") { base.removeLast() }
        if let query = resource.query {
            return target.query.map { $0.utf8.elementsEqual(query.utf8) } == true && target.path.utf8.elementsEqual(resource.path.utf8)
        }
        let path = Substring(target.path)
        return base.isEmpty || path.utf8.elementsEqual(base.utf8) || path.utf8.starts(with: (base + "/").utf8)
    }

    /// The account for `url`.
    /// - Parameters:
    ///   - explicit: the account was named (the argument, `$AUTHDECK_ACCOUNT`), not a default.
    ///   - choice: the usual resolution (``Places/choose(_:in:environmentAccount:place:)``), asked only when needed.
    public static func choose(url: String, in snapshot: LoadedSnapshot, explicit: Bool,
                              choice: () throws(AccountResolutionError) -> ResolvedAccount) throws(APIAccountFailure) -> ResolvedAccount {
        func provider(_ record: AccountRecord) -> ProviderConfig? { snapshot.providers.first { $0.id == record.providerID } }
        // The innermost signed-in resource covering the URL, and its accounts.
        let covering = snapshot.providers.compactMap { provider -> (ProviderConfig, String)? in
            guard let resource = boundResource(of: provider), covers(resource: resource, url: url),
                  snapshot.accounts.contains(where: { $0.providerID == provider.id }) else { return nil }
            return (provider, resource)
        }
        let innermost = covering.map(\.1.utf8.count).max()
        let resourceProviders = Set(covering.filter { $0.1.utf8.count == innermost }.map(\.0.id))
        let candidates = snapshot.accounts.filter { resourceProviders.contains($0.providerID) }
        let resource = covering.first { $0.1.utf8.count == innermost }?.1 ?? ""
        let names = candidates.map(AccountResolution.handle).joined(separator: ", ")

        if candidates.count == 1, !explicit { return ResolvedAccount(record: candidates[0], source: .onlyAccount) }
        let chosen: ResolvedAccount
        do { chosen = try choice() } catch {
            if !explicit, case .noDefault = error, !candidates.isEmpty {
                throw .mismatch(several(candidates, resource: resource, url: url))
            }
            throw .resolution(error)
        }
        let handle = AccountResolution.handle(chosen.record)
        if let bound = boundResource(of: provider(chosen.record)), !covers(resource: bound, url: url) {
            throw .mismatch(AppError(title: "\(handle)'s token is for the resource \(bound) only",
                                     detail: "A token bound to a resource (RFC 8707) is never sent elsewhere, and \(url) is outside it."
                                         + (candidates.isEmpty ? " Name the account for \(url): authdeck api ACCOUNT URL."
                                                               : " \(url) is the resource \(resource) of \(names)."),
                                     specReference: "RFC 8707 §2", disposition: .usage))
        }
        if candidates.isEmpty || candidates.contains(where: { $0.id == chosen.record.id }) { return chosen }
        if explicit {
            throw .mismatch(AppError(title: "\(url) is inside the resource \(resource), signed in as \(names)",
                                     detail: "\(handle)'s token is meant for another party and is not sent there; drop the account"
                                         + " (authdeck api URL) or name \(candidates.count == 1 ? names : "one of them").",
                                     specReference: "RFC 8707 §2", disposition: .usage))
        }
        throw .mismatch(several(candidates, resource: resource, url: url))
    }

    static func several(_ candidates: [AccountRecord], resource: String, url: String) -> AppError {
        AppError(title: "Several accounts are signed in to the resource \(resource): "
                     + candidates.map(AccountResolution.handle).joined(separator: ", "),
                 detail: "Name the one to call \(url) with: authdeck api ACCOUNT URL.", disposition: .usage)
    }
}
