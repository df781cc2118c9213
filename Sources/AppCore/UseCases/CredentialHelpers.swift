import AuthEngine
import FoundationEssentials
import TextSupport

/// Why a credential helper answers nothing for a host its providers serve (the front end writes
/// it to stderr, where git and docker show it).
public enum CredentialHelperFailure: Error, Sendable {
    /// The account could not be resolved (a rule to a removed account, an `AUTHDECK_ACCOUNT` naming nothing).
    case resolution(AccountResolutionError, providers: [ProviderConfig])
    /// Anything else: no account for the host, several, needs sign-in, the store locked.
    case problem(AppError)
}

/// A token for another program's request: the username the host expects and the access token.
public struct HelperCredential: Sendable {
    public var account: AccountRecord
    public var username: String
    /// Redacted until the front end writes the answer.
    public var token: AccessToken
    public var expiresAt: Date?
}

/// The account that answers for a host its providers list, in order: the
/// username in the request when it names an account (and is not the host's fixed username), the
/// account the place resolves to (``Places``: `$AUTHDECK_ACCOUNT`, git config, the directory rule,
/// the active account) when its provider serves the host, the only account of those providers.
/// Several and no choice, or a resolution error, answer nothing: never a guess at an identity.
struct HostAccounts {
    let env: AppEnvironment

    /// nil when no provider lists `host` (the helper answers nothing, silently).
    func account(for host: String, in hosts: KeyPath<ProviderConfig, [CredentialHost]?>, username: String?,
                 environmentAccount: String?) throws(CredentialHelperFailure) -> (AccountRecord, CredentialHost)? {
        let snapshot: LoadedSnapshot
        do { snapshot = try LoadAccounts(env).run() } catch { throw .problem(error) }
        var served: [ProviderID: CredentialHost] = [:]
        for provider in snapshot.providers {
            if let entry = provider[keyPath: hosts]?.first(where: { $0.matches(host) }) { served[provider.id] = entry }
        }
        guard !served.isEmpty else { return nil }
        let candidates = snapshot.accounts.filter { served[$0.providerID] != nil }
        func answer(_ record: AccountRecord) -> (AccountRecord, CredentialHost)? { served[record.providerID].map { (record, $0) } }
        let names = served.keys.map(\.rawValue).sorted()
        let described = candidates.map(AccountResolution.describe).joined(separator: ", ")
        guard !candidates.isEmpty else {
            throw .problem(AppError(title: "No account is signed in for \(host)",
                                    detail: "Sign in with 'authdeck login \(names[0])'"
                                        + (names.count > 1 ? " (providers serving it: \(names.joined(separator: ", ")))" : "") + ".",
                                    disposition: .needsSignIn))
        }
        if let username, !username.isEmpty, !served.values.contains(where: { $0.username.exactlyEquals(username) }) {
            do {
                if let found = answer(try AccountResolution.match(username, source: .argument, in: candidates).record) { return found }
            } catch {
                throw .problem(AppError(title: "No account for the username '\(username)' at \(host)",
                                        detail: "The remote URL names '\(username)'; signed in for \(host): \(described)."
                                            + " Put one of them in the URL, or remove the username.",
                                        disposition: .usage))
            }
        }
        do {
            let choice = try Places(env).choose(nil, in: snapshot, environmentAccount: environmentAccount)
            if candidates.contains(where: { $0.id == choice.record.id }), let found = answer(choice.record) { return found }
        } catch .noDefault {
        } catch {
            throw .resolution(error, providers: snapshot.providers)
        }
        if candidates.count == 1, let found = answer(candidates[0]) { return found }
        throw .problem(AppError(title: "Several accounts can answer for \(host): \(described)",
                                detail: "Choose one here with 'git config authdeck.account ACCOUNT' or 'authdeck bind ACCOUNT',"
                                    + " or name it in the remote URL (https://USERNAME@\(host)/…).",
                                disposition: .usage))
    }

    /// The access token of `record`, valid for at least a minute (refreshed under the lock when
    /// not, as `authdeck token`); never a browser. A DPoP-bound token is refused: it is useless
    /// without a proof, which neither git nor docker can make.
    func credential(_ record: AccountRecord, host entry: CredentialHost) async throws(CredentialHelperFailure) -> HelperCredential {
        let issued: TokenForScripts.Issued<AccessToken>
        do { issued = try await TokenForScripts(env).accessToken(record, minimumValidity: .seconds(60)) } catch { throw .problem(error) }
        guard issued.tokenType.equalsIgnoringASCIICase("Bearer") else {
            throw .problem(AppError(title: "\(AccountResolution.describe(record))'s access token is a \(issued.tokenType) token",
                                    detail: "A sender-constrained token (RFC 9449) needs a proof with every request, which git and docker"
                                        + " do not make; add the provider with --dpop never for this use."))
        }
        return HelperCredential(account: record, username: entry.username(for: record), token: issued.value, expiresAt: issued.expiresAt)
    }
}

/// git's credential helper (gitcredentials(7)): `authdeck git-credential get|store|erase`.
public struct GitCredentials: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// The credential for `request`, or nil for a host authdeck does not serve (git asks the next
    /// helper). Only `https`, and `http` on a loopback address (127.0.0.0/8, ::1).
    /// - Throws: ``CredentialHelperFailure`` for a host it serves but cannot answer for now.
    public func get(_ request: GitCredentialRequest, environmentAccount: String?) async throws(CredentialHelperFailure) -> HelperCredential? {
        guard let (record, entry) = try account(request, environmentAccount: environmentAccount) else { return nil }
        return try await HostAccounts(env: env).credential(record, host: entry)
    }

    /// "This access token was rejected" (git calls `erase` after a 401 with the credential it
    /// sent): under the account lock, refreshes when the stored token is still the rejected one,
    /// so the next `get` hands out a new one; the account is never signed out. Without a
    /// password (not one of ours) nothing is done.
    /// - Returns: the account refreshed, nil when nothing was done.
    public func erase(_ request: GitCredentialRequest, environmentAccount: String?) async throws(CredentialHelperFailure) -> AccountRecord? {
        guard let password = request.password, let (record, _) = try account(request, environmentAccount: environmentAccount) else { return nil }
        do {
            return try await RefreshAccount(env).run(record, force: false, rejected: AccessToken(password.exposedValue))
        } catch {
            throw .problem(error)
        }
    }

    func account(_ request: GitCredentialRequest, environmentAccount: String?) throws(CredentialHelperFailure) -> (AccountRecord, CredentialHost)? {
        guard let scheme = request.protocolName?.asciiLowercased, let host = request.host, !host.isEmpty else { return nil }
        // The same RFC 3986 authority docker's ServerURL is read for: anything else is no host authdeck serves.
        guard URIParts.hostAndPort(host, scheme: scheme) != nil else { return nil }
        let served = try HostAccounts(env: env).account(for: host, in: \.gitHosts, username: request.username, environmentAccount: environmentAccount)
        guard let served else { return nil }
        let loopbackHTTP = scheme.utf8.elementsEqual("http".utf8) && URLPolicy.isLoopbackIPLiteral(Self.hostname(host))
        guard scheme.utf8.elementsEqual("https".utf8) || loopbackHTTP else {
            throw .problem(AppError(title: "authdeck sends tokens to \(host) only over https",
                                    detail: "Plain http is used only for loopback addresses (127.0.0.0/8, ::1);"
                                        + " change the remote to https://\(host)/…",
                                    disposition: .usage))
        }
        return served
    }

    /// `host` without its `:port` (`[::1]:8080` → `[::1]`).
    static func hostname(_ host: String) -> String {
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { return String(host[...close]) }
        return host.split(separator: ":", maxSplits: 1).first.map(String.init) ?? host
    }
}

/// docker's credential helper (docker-credential-helpers): `docker-credential-authdeck get|list`.
public struct DockerCredentials: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// The credential for the registry at `request`'s host, nil when no provider lists it.
    public func get(_ request: DockerCredentialRequest, environmentAccount: String?) async throws(CredentialHelperFailure) -> HelperCredential? {
        guard let (record, entry) = try account(request, environmentAccount: environmentAccount) else { return nil }
        return try await HostAccounts(env: env).credential(record, host: entry)
    }

    /// The account answering for `request`'s registry (nil: no provider lists it); plain http only to loopback.
    func account(_ request: DockerCredentialRequest,
                 environmentAccount: String?) throws(CredentialHelperFailure) -> (AccountRecord, CredentialHost)? {
        guard let found = try HostAccounts(env: env).account(for: request.host, in: \.containerRegistries, username: nil,
                                                             environmentAccount: environmentAccount) else { return nil }
        if request.scheme.utf8.elementsEqual("http".utf8), !URLPolicy.isLoopbackIPLiteral(GitCredentials.hostname(request.host)) {
            throw .problem(AppError(title: "authdeck sends tokens to \(request.host) only over https", disposition: .usage))
        }
        return found
    }

    /// `list`: each registry host (without a `*` pattern) of a provider with a signed-in account, and its username.
    public func list() throws(AppError) -> [(server: String, username: String)] {
        let snapshot = try LoadAccounts(env).run()
        var servers: [(server: String, username: String)] = []
        for provider in snapshot.providers {
            guard let account = snapshot.accounts.first(where: { $0.providerID == provider.id }) else { continue }
            for entry in provider.containerRegistries ?? [] where !entry.host.hasPrefix("*") {
                servers.append((entry.host, entry.username(for: account)))
            }
        }
        return servers
    }
}
