import AuthEngine
import CredentialStore
import FoundationEssentials
import TextSupport

/// Adding and removing providers. A provider's client secret lives in the credential store,
/// never in the providers file; its cached discovery and JWKS go with it.
public struct ProviderAdmin: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// Saves a new `provider` and, for a confidential client, its secret (read by the front end
    /// without echo or argv) or its `private_key_jwt` key (RFC 7523 §2.2), without probing it
    /// (``add(_:clientSecret:probe:)`` probes first).
    /// - Throws: `.usage` when a provider of that name exists; store and file errors.
    public func add(_ provider: ProviderConfig, clientSecret: ClientSecret?, clientKey: JWSKeyPair? = nil) throws(AppError) {
        try ensureNameFree(provider.id)
        if clientSecret != nil || clientKey != nil {
            var secrets = AccountSecrets(clientSecret: clientSecret.map { StoredClientSecret($0.exposedValue) })
            secrets.clientSigningKey = clientKey.map(ClientKeys.stored)
            do {
                try env.credentials.store().save(secrets, for: .providerClient(provider.id.rawValue))
            } catch {
                throw ErrorMapping.appError(error)
            }
        }
        try env.files.saveProvider(provider)
        env.cache.remove(provider.id)
    }

    /// What removing a provider did beyond the files.
    public enum RegistrationOutcome: Equatable, Sendable {
        /// No registration of authdeck's.
        case none
        /// RFC 7592 §2.3: the server deleted the client (`confirmed`: it answered 204/200; false:
        /// it said the client was already unknown).
        case deleted(confirmed: Bool)
        /// Kept at the server: other providers use the client (named), or the server gave no
        /// `registration_client_uri` / token to delete it with.
        case kept(reason: String)
    }

    /// Removes a provider without accounts, its stored client secret and registration token
    /// (absent is fine) and its cached documents. A client authdeck registered for it (RFC 7591)
    /// is deleted first with RFC 7592 `DELETE registration_client_uri` and the
    /// `registration_access_token`, unless another provider shares that client.
    /// - Throws: `.usage` for an unknown provider or one with signed-in accounts (named); a
    ///   refused deletion (nothing removed, so it can be tried again); store and file errors.
    @discardableResult
    public func remove(_ id: ProviderID) async throws(AppError) -> RegistrationOutcome {
        let provider = try ProviderAccess(env: env).provider(id)
        let accounts = try env.files.accounts().filter { $0.providerID == id }
        if !accounts.isEmpty {
            // Named as `status` names them (provider/username), one `logout` each.
            let names = accounts.map { "\($0.providerID.rawValue)/\($0.username ?? $0.subject)" }
            let one = accounts.count == 1
            let logouts = names.map { "'authdeck logout \($0)'" }.joined(separator: ", ")
            let title = "Provider '\(id)' still has \(accounts.count) signed-in account\(one ? "" : "s") (\(names.joined(separator: ", ")))"
            throw AppError(title: title,
                           detail: "Log \(one ? "it" : "them") out first with \(logouts).")
        }
        let outcome = try await deleteRegistration(provider)
        if provider.clientAuthentication != .none || provider.protectedResource?.registration != nil {
            do { try env.credentials.store().delete(.providerClient(id.rawValue)) } catch { throw ErrorMapping.appError(error) }
        }
        env.cache.remove(id)
        _ = try env.files.removeProvider(id)
        return outcome
    }

    /// RFC 7592 §2.3 for a provider whose client authdeck registered.
    private func deleteRegistration(_ provider: ProviderConfig) async throws(AppError) -> RegistrationOutcome {
        guard let binding = provider.protectedResource, binding.clientOrigin == .registered else { return .none }
        let sharing = try env.files.providers().filter { $0.protectedResource?.sharedFrom == provider.id }.map(\.id.rawValue)
        if !sharing.isEmpty {
            let one = sharing.count == 1
            return .kept(reason: "provider\(one ? "" : "s") \(sharing.joined(separator: ", ")) use\(one ? "s" : "") the same client")
        }
        var stored: AccountSecrets?
        do { stored = try env.credentials.store().loadIfPresent(.providerClient(provider.id.rawValue)) } catch { throw ErrorMapping.appError(error) }
        guard let uri = binding.registration?.registrationClientURI, let token = stored?.registrationAccessToken else {
            return .kept(reason: "the server gave no registration_client_uri and registration_access_token to delete it with (RFC 7592 §3)")
        }
        // The registration access token goes only to the origin it was issued from (the registration endpoint's).
        let endpoint: URL
        if let kept = binding.registration?.registrationEndpoint {
            endpoint = kept
        } else {
            guard let advertised = try? await ProviderAccess(env: env).metadata(provider).registrationEndpoint else {
                return .kept(reason: "the registration endpoint's origin could not be read (the server's metadata), so the registration access"
                                 + " token is not sent to \(uri.absoluteString)")
            }
            endpoint = advertised
        }
        guard let clientOrigin = URIParts(uri.absoluteString)?.origin, let endpointOrigin = URIParts(endpoint.absoluteString)?.origin,
              clientOrigin.utf8.elementsEqual(endpointOrigin.utf8) else {
            return .kept(reason: "its registration_client_uri \(uri.absoluteString) is on another origin than the registration endpoint"
                             + " \(endpoint.absoluteString), so the registration access token is not sent there (RFC 7592 §3); delete the client"
                             + " at the server by hand if it should go")
        }
        do throws(AuthError) {
            let request: HTTPRequest
            do throws(AuthError) {
                request = try makeClientDeletionRequest(registrationClientURI: uri,
                                                        registrationAccessToken: RegistrationAccessToken(token.exposedValue))
            } catch { throw .resourceStep(.clientDeletion, url: uri.absoluteString, cause: error) }
            let response: HTTPResponse
            do { response = try await env.http(provider).send(request) } catch {
                throw .resourceStep(.clientDeletion, url: uri.absoluteString, cause: .transport(error))
            }
            do throws(AuthError) { return .deleted(confirmed: try processClientDeletionResponse(response, requestURL: uri, now: env.now())) } catch {
                throw .resourceStep(.clientDeletion, url: uri.absoluteString, cause: error)
            }
        } catch {
            throw ErrorMapping.appError(error)
        }
    }
}
