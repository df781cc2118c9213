import AuthEngine
import CredentialStore
import FoundationEssentials
import TextSupport

/// What a finished sign-in produced.
public struct SignInOutcome: Equatable, Sendable {
    /// The stored account.
    public var record: AccountRecord
    /// Whether it became the active account (the first account, or replacing a vanished one).
    public var becameActive: Bool
    public init(record: AccountRecord, becameActive: Bool) {
        self.record = record
        self.becameActive = becameActive
    }
}

/// Sign-in by the authorization code flow with PKCE over a loopback redirect (RFC 6749 §4.1,
/// RFC 7636, RFC 8252) or by the device authorization grant (RFC 8628).
///
/// Order: the provider and its metadata; the store must be writable (a vault is unlocked now,
/// before any browser opens); the flow; the ID token verified (OIDC Core §3.1.3.7); the identity
/// from the ID token, else userinfo; the secrets saved, then the record that points at them, then
/// the active account when there was none: all under the account's lock.
public struct SignIn: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// The provider a sign-in without a name means: the only one configured.
    /// - Throws: `.usage` errors for an unknown name, for none configured, or for several.
    public func resolveProvider(_ name: String?) throws(AppError) -> ProviderID {
        let providers = try env.files.providers()
        if let name {
            guard providers.contains(where: { $0.id.rawValue.utf8.elementsEqual(name.utf8) }) else {
                throw ProviderAccess.unknownProvider(name, known: providers)
            }
            return ProviderID(name)
        }
        switch providers.count {
        case 1: return providers[0].id
        case 0: throw ProviderAccess.unknownProvider("", known: [])
        default:
            throw AppError(title: "Several providers are configured (\(providers.map(\.id.rawValue).joined(separator: ", ")))",
                           detail: "Name one: authdeck login PROVIDER.", disposition: .usage)
        }
    }

    /// Runs the whole sign-in, reporting progress; cancellable (Task cancellation).
    /// - Throws: ``AppError`` (mapped engine and store errors; `.cancelled`).
    /// - Parameter pasted: lines pasted back while the browser flow waits, read only when no
    ///   browser was opened here (``SignInProgress/waitingForPaste(redirectURI:fixedPort:)``).
    public func run(_ request: SignInRequest, pasted: PastedLines? = nil,
                    progress: @escaping @Sendable (SignInProgress) -> Void) async throws(AppError) -> SignInOutcome {
        let access = ProviderAccess(env: env)
        let provider = try access.provider(request.providerID)
        progress(.discovering)
        let metadata = try await access.metadata(provider)
        let client = try access.client(provider, metadata: metadata)
        try env.credentials.prepareForWrite()
        if provider.isMachine { return try await ClientCredentials(env).signIn(request, provider: provider, metadata: metadata, client: client) }
        let scopes = ScopeSet(provider.scopes).adding(ScopeSet(request.extraScopes))
        let audience = request.audience ?? provider.audience
        let resources = request.resources.isEmpty ? provider.resources : request.resources
        let tokens: TokenSet
        let verified: VerifiedIDToken?
        var supplement: IdentitySupplement?
        do {
            // RFC 9449: a new key for this grant when the provider takes DPoP (setting `dpop`).
            let dpop = try DPoPAccess.signerForSignIn(env: env, provider: provider, metadata: metadata)
            // A step-up's acr_values and max_age travel in the authorization request only (RFC 9470 §4): the browser flow.
            switch request.stepUp == nil ? request.flow : .browser {
            case .browser:
                (tokens, verified, supplement) = try await browserFlow(provider: provider, metadata: metadata, client: client, scopes: scopes,
                                                                       audience: audience, resources: resources, noBrowser: request.noBrowser,
                                                                       port: request.redirectPort ?? provider.fixedRedirectPort, pasted: pasted,
                                                                       dpop: dpop, stepUp: request.stepUp, progress: progress)
            case .device:
                (tokens, verified) = try await deviceFlow(provider: provider, metadata: metadata, client: client, scopes: scopes,
                                                          audience: audience, resources: resources, dpop: dpop, progress: progress)
            }
            try DPoP.checkTokenType(tokens.tokenType, proofSent: dpop != nil, setting: provider.dpop ?? .auto)
            if let stepUp = request.stepUp { try StepUp.checkIdentity(verified, requirement: stepUp) }
            progress(.verifying)
            return try await finish(provider: provider, metadata: metadata, client: client, alias: request.alias,
                                    requestedScopes: scopes, tokens: tokens, idToken: verified, supplement: supplement, dpop: dpop)
        } catch {
            throw ErrorMapping.appError(error)
        }
    }

    private func browserFlow(provider: ProviderConfig, metadata: AuthorizationServerMetadata, client: ClientConfiguration, scopes: ScopeSet,
                             audience: String?, resources: [String], noBrowser: Bool, port: UInt16?, pasted: PastedLines?,
                             dpop: DPoPSigner?, stepUp: StepUpRequirement?, progress: @escaping @Sendable (SignInProgress) -> Void)
                             async throws -> (TokenSet, VerifiedIDToken?, IdentitySupplement?) {
        let listener = try env.loopback.listen("/callback", port: port)
        defer { listener.close() }
        // RFC 9449 §10: the code is bound to the key.
        let dpopJKT = dpop?.thumbprint
        var authorization = AuthorizationRequest(scopes: scopes.values, redirectURI: listener.redirectURI, audience: audience, resources: resources,
                                                 prompt: provider.prompt(for: scopes), maxAge: stepUp?.maxAge)
        // The engine checks the ID token's `acr` against these and `auth_time` against max_age (OIDC Core §3.1.2.1).
        authorization.acrValues = stepUp?.acrValues ?? []
        var unsent: PendingAuthorization
        // RFC 9126: pushed when the provider offers (or requires) it, unless set to `never`.
        let redirectURI = listener.redirectURI.absoluteString
        if try PushedAuthorization.shouldPush(metadata: metadata, setting: provider.par ?? .auto) {
            do {
                unsent = try await pushAuthorizationRequest(metadata: metadata, client: client, request: authorization, crypto: env.crypto,
                                                             dpopJKT: dpopJKT, http: env.http(provider), now: env.now())
            } catch {
                throw BareStatusAdvice.advise(error, at: .pushedAuthorization(redirectURI: redirectURI, provider: provider.id))
            }
        } else {
            unsent = try makeAuthorizationRequest(metadata: metadata, client: client, request: authorization, crypto: env.crypto, dpopJKT: dpopJKT)
        }
        // A protected resource's provider names the resource in the code exchange too (RFC 8707, MCP authorization).
        unsent.tokenRequestResource = provider.protectedResource?.resource
        let pending = unsent
        let opened = noBrowser ? false : await env.browser.open(pending.authorizationURL)
        progress(.waitingForBrowser(url: pending.authorizationURL, browserOpened: opened))
        let decide: @Sendable (RedirectCallback) -> RedirectCallbackVerdict = { callback in
            decideRedirectCallback(callback, pending: pending, metadata: metadata).verdict
        }
        let arrival: RedirectArrival
        if !opened, let pasted {
            progress(.waitingForPaste(redirectURI: listener.redirectURI, fixedPort: port != nil))
            arrival = try await RedirectArrival.first(
                listener: listener, timeout: env.browserTimeout, decide: decide,
                validate: { callback in _ = try validateAuthorizationResponse(callback: callback, pending: pending, metadata: metadata) },
                pasted: pasted, progress: progress)
        } else {
            arrival = .callback(try await listener.waitForCallback(env.browserTimeout, decide))
        }
        let callback: RedirectCallback?
        let validated: ValidatedAuthorizationResponse
        switch arrival {
        case .callback(let delivered):
            callback = delivered
            validated = try validateAuthorizationResponse(callback: delivered, pending: pending, metadata: metadata)
        case .codeAlone(let code):
            callback = nil
            validated = validateAuthorizationResponse(pastedCode: code, pending: pending)
        }
        progress(.exchangingCode)
        let access = ProviderAccess(env: env)
        let result: SignInResult
        do {
            result = try await completeAuthorizationCodeGrant(
                metadata: metadata, client: client, response: validated, http: env.http(provider), crypto: env.crypto,
                jwksCache: access.jwksCache(provider, metadata: metadata), now: env.now(), dpop: dpop)
        } catch {
            var advised = BareStatusAdvice.advise(error, at: .codeExchange(redirectURI: redirectURI, provider: provider.id))
            if callback == nil, error.invalidatesGrant {
                // A code pasted alone had nothing to check before the exchange (no state, no iss).
                advised.nextStep = "The code pasted alone was refused: it may have been cut or mistyped. Sign in again and paste the whole"
                    + " address from the browser's address bar: authdeck login \(provider.id)."
            }
            throw advised
        }
        // Sign in with Apple posts its one-time `user` JSON with the code (response_mode=form_post);
        // the tokens are already issued, so a malformed one only loses the name, not the sign-in.
        let user = callback?.parameters.first { $0.name.exactlyEquals("user") }?.value
        return (result.tokens, result.idToken, user.flatMap { try? IdentitySupplement.appleUser($0) })
    }

    /// The device flow; its request carries what the browser's would (audience, resources, extra parameters).
    private func deviceFlow(provider: ProviderConfig, metadata: AuthorizationServerMetadata, client: ClientConfiguration, scopes: ScopeSet,
                            audience: String?, resources: [String], dpop: DPoPSigner?,
                            progress: @escaping @Sendable (SignInProgress) -> Void) async throws -> (TokenSet, VerifiedIDToken?) {
        let http = env.http(provider)
        let authorization = try await startDeviceAuthorization(metadata: metadata, client: client, scopes: scopes.values, audience: audience,
                                                               resources: resources, http: http, now: env.now())
        // The engine checked what is shown (RFC 8628 §3.2, §6.1) and dropped an unusable
        // verification_uri_complete, with a note.
        let response = authorization.response
        progress(.deviceCode(DeviceCodeDisplay(
            userCode: response.userCode, verificationURI: response.verificationURI, verificationURIComplete: response.verificationURIComplete,
            expiresAt: authorization.expiresAt, interval: .seconds(response.interval), notes: authorization.notes.map(\.message))))
        progress(.devicePending)
        let sleep = env.sleep
        let outcome = try await pollDeviceToken(
            metadata: metadata, client: client, authorization: authorization, http: http, now: env.now,
            sleep: { seconds in try await sleep(.milliseconds(Int64((seconds * 1000).rounded(.up)))) }, dpop: dpop)
        switch outcome {
        case .authorized(let tokens):
            guard let raw = tokens.idToken else { return (tokens, nil) }
            let options = IDTokenValidationOptions(deviceGrantFor: metadata, client: client, tokens: tokens)
            let verified = try await validateIDToken(raw, options: options, crypto: env.crypto, now: env.now(),
                                                     jwksCache: ProviderAccess(env: env).jwksCache(provider, metadata: metadata))
            return (tokens, verified)
        case .denied(let error):
            throw AuthError.errorResponse(error)
        case .expired:
            throw AppError(title: "The device code expired", detail: "Nobody approved the sign-in in time; start it again.",
                           specReference: "RFC 8628 §3.5 expired_token")
        }
    }

    /// Stores the signed-in account (with its DPoP key, RFC 9449, when `dpop` is set); the
    /// identity as ``RecordIdentity/merge`` keeps it. A `machine` account (client credentials,
    /// RFC 6749 §4.4) is the client: its subject and username are the `client_id`.
    func finish(provider: ProviderConfig, metadata: AuthorizationServerMetadata, client: ClientConfiguration, alias: String?,
                requestedScopes: ScopeSet, tokens: TokenSet, idToken: VerifiedIDToken?, supplement: IdentitySupplement? = nil,
                dpop: DPoPSigner? = nil, machine: Bool = false) async throws -> SignInOutcome {
        var subject = machine ? provider.clientID : idToken?.claims.subject
        var claims = idToken?.claims.all ?? [:]
        if machine { claims["preferred_username"] = .string(provider.clientID) }
        if subject == nil, metadata.userinfoEndpoint != nil {
            // Plain OAuth 2.0 (no ID token): the identity comes from userinfo when there is one.
            (subject, claims) = try await identityFromUserInfo(metadata: metadata, client: client, tokens: tokens, provider: provider, dpop: dpop)
        }
        // A protected resource's server may say nothing of the user (no ID token, no userinfo):
        // the account is the grant for that resource, named by it.
        if subject == nil, let bound = provider.protectedResource { subject = bound.resource }
        guard let subject, !subject.isEmpty else {
            throw AppError(title: "Cannot tell who signed in", detail: "The provider returned no ID token and has no userinfo endpoint.",
                           specReference: "OIDC Core §2")
        }
        let id = AccountID(provider: provider.id, subject: subject)
        let store = try env.credentials.store()
        let key = AccountKey(provider: provider.id.rawValue, account: subject)
        let previous = (try? env.files.accounts())?.first { $0.id == id }
        let identity = try RecordIdentity.merge(claims: claims, subject: subject, supplement: supplement, previous: previous,
                                                booleanStringClaims: provider.booleanStringClaims ?? [])
        var record = AccountRecord(
            id: id, providerID: provider.id, issuer: metadata.issuer, subject: subject, displayName: identity.displayName,
            // GitHub's `GET /user` (no OIDC) names the user `login`.
            username: claims["preferred_username"]?.stringValue ?? claims["login"]?.stringValue, email: identity.email,
            // Signing in again without --name keeps the alias scripts use.
            alias: alias ?? previous?.alias,
            requestedScopes: requestedScopes.values, grantedScopes: tokens.grantedScopes,
            accessTokens: [TokenConversions.accessTokenInfo(tokens, resource: nil)], hasRefreshToken: tokens.refreshToken != nil,
            refreshTokenExpiresAt: tokens.refreshExpiresAt, idToken: idToken.map(TokenConversions.idTokenInfo),
            signedInAt: tokens.receivedAt, storage: store.kind)
        // A resource's server that names nobody: the account is named by the resource (not `1: 1`, its bare subject twice).
        let named = ["name", "preferred_username", "login", "email"].contains { claims[$0]?.stringValue?.isEmpty == false }
        if let bound = provider.protectedResource, !named, supplement == nil {
            record.displayName = ResourceAccountName.label(bound.resource)
            // The grant itself (no subject at all): the handle names the resource's host.
            if subject.utf8.elementsEqual(bound.resource.utf8) { record.username = URIParts(bound.resource)?.hostAndPort.asciiLowercased }
        }
        record.tokenWarnings = TokenConversions.warnings(tokens)
        record.emailVerified = identity.emailVerified
        record.isPrivateEmail = identity.isPrivateEmail
        record.dpopThumbprint = dpop?.thumbprint
        if machine { record.isMachine = true }
        var secrets = TokenConversions.merge(tokens, into: AccountSecrets(), resource: nil)
        // RFC 9449: the key goes with the tokens bound to it, in the same secret set.
        secrets.dpopKey = dpop.map(DPoPAccess.stored)
        let files = env.files
        let activeAccounts = Accounts(env: env)
        let becameActive = try await store.withAccountLock(key, clock: env.clock) { () async throws -> Bool in
            // The secrets first, then the metadata that points at them.
            try store.save(secrets, for: key)
            // The first account (or one replacing a vanished active account) becomes active. Then
            // active.json is written before the record: a reader (accounts.json, then active.json,
            // no lock) sees the state before this sign-in or after it, never several accounts
            // and none active (before the record, an active id it does not find counts as none).
            let active = try activeAccounts.activeAccount().id
            let accounts = try files.accounts()
            guard active == nil || !(active == id || accounts.contains(where: { $0.id == active })) else {
                try files.saveAccount(record)
                return active == id
            }
            try activeAccounts.saveActiveAccount(id)
            try files.saveAccount(record)
            return true
        }
        AccountEvents(env).signed(.signedIn, record)
        return SignInOutcome(record: record, becameActive: becameActive)
    }

    private func identityFromUserInfo(metadata: AuthorizationServerMetadata, client: ClientConfiguration, tokens: TokenSet,
                                      provider: ProviderConfig, dpop: DPoPSigner?) async throws -> (String?, [String: JSONValue]) {
        let request = try makeUserInfoRequest(metadata: metadata, client: client, accessToken: tokens.accessToken)
        // RFC 9449 §7.1: a DPoP token goes with a proof, never as Bearer.
        var http = env.http(provider)
        if let dpop, tokens.tokenType.equalsIgnoringASCIICase("DPoP") { http = http.withDPoP(dpop, accessToken: tokens.accessToken) }
        let response: HTTPResponse
        do { response = try await http.send(request) } catch { throw AuthError.transport(error) }
        // The strict reader: HTTP 200, JSON, duplicate member names refused (GitHub's `GET /user`).
        // The provider's subject member (``ProviderConfig/subjectClaim``), read as `userinfo` reads it.
        let subjectClaim = provider.subjectClaim ?? "sub"
        guard let claims = try? readUserInfoClaims(response, now: env.now()), let subject = userInfoSubject(claims, claim: subjectClaim) else {
            throw AppError(title: "Userinfo did not identify the account",
                           detail: "HTTP \(response.status); the answer has no usable `\(subjectClaim)` (the provider's subject member)."
                               + " For a provider that names the user otherwise, set it in a preset's `provider.subjectClaim`"
                               + " (GitHub's preset: `id`).",
                           specReference: "OIDC Core §5.3.2")
        }
        return (subject, claims)
    }
}
