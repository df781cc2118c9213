import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import TextSupport

// MARK: - provider add

struct ProviderAddOptions {
    var name: String
    var preset: String?
    var domain: String?
    var tenant: String?
    var displayName: String?
    var issuer: String?
    var clientID: String?
    var clientSecretStdin: Bool
    var clientAuthentication: String?
    var scopes: [String]
    var audience: String?
    var resources: [String]
    var trustedAudiences: [String]
    var multiTenantEntra: Bool
    var headers: [String]
    var parameters: [String]
    var caBundle: String?
    var endpoints: [String: String]
    /// `--no-probe`: save without fetching discovery first (offline).
    var noProbe: Bool
    var protocolSettings: ProtocolSettingsOptions
    var machine: MachineClientOptions
    /// `--git-host`, `--git-username`, `--registry`, `--registry-username`.
    var gitHosts: [String]
    var gitUsername: String?
    var registries: [String]
    var registryUsername: String?

    static let endpointOptions = [
        "authorizationEndpoint", "tokenEndpoint", "deviceAuthorizationEndpoint", "revocationEndpoint",
        "introspectionEndpoint", "userinfoEndpoint", "endSessionEndpoint", "jwksUri",
    ]

    init(_ parsed: ParsedCommand) {
        name = parsed.positional("name") ?? ""
        preset = parsed.value("preset")
        domain = parsed.value("domain")
        tenant = parsed.value("tenant")
        displayName = parsed.value("displayName")
        issuer = parsed.value("issuer")
        clientID = parsed.value("clientId")
        clientSecretStdin = parsed.flag("clientSecretStdin")
        noProbe = parsed.flag("noProbe")
        clientAuthentication = parsed.value("clientAuthentication")
        scopes = parsed.values("scope").flatMap(ProviderSettingText.list)
        audience = parsed.value("audience")
        resources = parsed.values("resource")
        trustedAudiences = parsed.values("trustedAudience")
        multiTenantEntra = parsed.flag("multiTenantEntra")
        headers = parsed.values("header")
        parameters = parsed.values("authorizationParameter")
        caBundle = parsed.value("caBundle")
        protocolSettings = ProtocolSettingsOptions(parsed)
        machine = MachineClientOptions(parsed)
        gitHosts = parsed.values("gitHost")
        gitUsername = parsed.value("gitUsername")
        registries = parsed.values("registry")
        registryUsername = parsed.value("registryUsername")
        endpoints = [:]
        for option in Self.endpointOptions { if let value = parsed.value(option) { endpoints[option] = value } }
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        let name = parsed.positional("name") ?? ""
        if let problem = ProviderID.nameProblem(name) { return "provider NAME '\(Output.visible(name))': \(problem)" }
        if let preset = parsed.value("preset") {
            let catalog = presetCatalog(.current, warn: false)
            if catalog.preset(named: preset) == nil {
                return "unknown preset '\(preset)'; known presets: \(catalog.names.joined(separator: ", ")) (see 'authdeck provider presets')"
            }
        } else if parsed.value("domain") != nil || parsed.value("tenant") != nil {
            return "--domain and --tenant fill in a preset: add --preset NAME (see 'authdeck provider presets')"
        }
        if let problem = MachineClientOptions.validate(parsed) { return problem }
        if parsed.value("clientId") == nil { return "--client-id is required (the client registered at the provider)" }
        if parsed.value("preset") == nil && parsed.value("issuer") == nil && parsed.value("tokenEndpoint") == nil {
            return "give --issuer URL (discovery), or --authorization-endpoint and --token-endpoint, or --preset NAME"
        }
        return validateSettings(parsed)
    }

    /// The checks `provider add` and `provider set` share: each option given is well formed.
    static func validateSettings(_ parsed: ParsedCommand) -> String? {
        if let problem = ProtocolSettingsOptions.validate(parsed) { return problem }
        if let id = parsed.value("clientId"), let violation = ProviderConfig.validateClientID(id) { return "\(violation). \(violation.hint)" }
        if let method = parsed.value("clientAuthentication"), ClientAuthenticationMethod(rawValue: method) == nil {
            return "--client-authentication must be none, client_secret_basic, client_secret_post or private_key_jwt, got '\(method)'"
        }
        for header in parsed.values("header") {
            if !header.contains(":") { return "--header '\(header)' must look like 'Name: value'" }
            // RFC 9110 §5.5: no CR, LF or other control characters (header injection).
            if header.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return "--header '\(Output.visible(header))' contains a control character (a line break would inject another header)"
            }
        }
        for parameter in parsed.values("authorizationParameter") where !parameter.contains("=") {
            return "--authorization-parameter '\(parameter)' must look like 'name=value'"
        }
        for host in parsed.values("gitHost") + parsed.values("registry") {
            if !ProviderSettingText.isHost(host) {
                return "--git-host and --registry take a host name (github.com, gitlab.example.com:8443, *.gcr.io), got '\(Output.visible(host))'"
            }
        }
        if let ca = parsed.value("caBundle"), !FileManager.default.isReadableFile(atPath: ca) {
            return "--ca-bundle '\(ca)' is not a readable file (a PEM bundle of CA certificates)"
        }
        return nil
    }

    /// The provider configuration, from the preset (if any) with the options on top.
    func configuration(presets: PresetCatalog) throws -> ProviderConfig {
        var config: ProviderConfig
        if let presetName = preset, let preset = presets.preset(named: presetName) {
            do {
                config = try preset.makeProvider(id: ProviderID(name), clientID: clientID ?? "", domain: domain, tenant: tenant)
            } catch {
                throw CLIFailure.usage(error.file.isEmpty ? error.problem : error.description)
            }
        } else {
            config = ProviderConfig(id: ProviderID(name), issuer: nil, clientID: clientID ?? "")
        }
        try apply(to: &config)
        if config.clientAuthentication == .privateKeyJWT, !machine.generateKey, machine.privateKeyFile == nil, machine.assertionSource == nil {
            throw CLIFailure.usage("--client-authentication private_key_jwt needs the key: --generate-key or --private-key-file PEM")
        }
        if config.needsClientSecret && !machine.givesSecret(stdin: clientSecretStdin) {
            throw CLIFailure.usage("--client-authentication \(config.clientAuthentication.rawValue) needs the secret:"
                + " pipe it in with --client-secret-stdin")
        }
        return config
    }

    /// The options given, laid over `config` (a preset's, or the saved provider's for `provider
    /// set`): a list option given replaces the list; `--header` and `--authorization-parameter` add
    /// or replace one by name.
    /// - Throws: ``CLIFailure`` for a URL the checks refuse or a configuration ``checkProviderConfig(_:)`` refuses.
    func apply(to config: inout ProviderConfig) throws {
        if let issuer { config.issuer = try checkSecureURL(issuer, named: "--issuer", role: .issuer) }
        if let clientID { config.clientID = clientID }
        if let displayName { config.displayName = displayName }
        if !scopes.isEmpty { config.scopes = scopes }
        if let audience { config.audience = audience }
        if !resources.isEmpty { config.resources = resources }
        if !trustedAudiences.isEmpty { config.additionalTrustedAudiences = trustedAudiences }  // a list given replaces the list
        if multiTenantEntra { config.multiTenantEntra = true }
        if !gitHosts.isEmpty { config.gitHosts = gitHosts.map { CredentialHost(host: $0, username: gitUsername) } }
        if !registries.isEmpty { config.containerRegistries = registries.map { CredentialHost(host: $0, username: registryUsername) } }
        for header in headers {
            let parts = header.split(separator: ":", maxSplits: 1)
            config.extraHeaders[parts[0].trimmingWhitespace()] = parts.count > 1 ? parts[1].trimmingWhitespace() : ""
        }
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            config.extraAuthorizationParameters[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        if let caBundle { config.caBundlePath = URL(fileURLWithPath: caBundle).standardizedFileURL.path }
        protocolSettings.apply(to: &config)
        func endpoint(_ option: String) throws -> URL? {
            try endpoints[option].map { try checkSecureURL($0, named: "--" + ArgumentParserNames.kebab(option), role: .endpoint) }
        }
        var e = config.endpoints
        e.authorization = try endpoint("authorizationEndpoint") ?? e.authorization
        e.token = try endpoint("tokenEndpoint") ?? e.token
        e.deviceAuthorization = try endpoint("deviceAuthorizationEndpoint") ?? e.deviceAuthorization
        e.revocation = try endpoint("revocationEndpoint") ?? e.revocation
        e.introspection = try endpoint("introspectionEndpoint") ?? e.introspection
        e.userinfo = try endpoint("userinfoEndpoint") ?? e.userinfo
        e.endSession = try endpoint("endSessionEndpoint") ?? e.endSession
        e.jwks = try endpoint("jwksUri") ?? e.jwks
        config.endpoints = e
        if config.issuer == nil && config.endpoints.token == nil {
            throw CLIFailure.usage("without --issuer, --token-endpoint is required (and --authorization-endpoint for the browser flow)")
        }
        machine.apply(to: &config, scopesGiven: !scopes.isEmpty)
        config.adoptClientSecret(given: machine.givesSecret(stdin: clientSecretStdin),
                                 method: clientAuthentication.flatMap(ClientAuthenticationMethod.init(rawValue:)))
        try checkProviderConfig(config)  // also what a preset built from --domain
    }

    /// `--client-secret-stdin`'s secret (nil without it), read without echo.
    func clientSecret(for id: ProviderID) throws -> ClientSecret? {
        guard clientSecretStdin else { return nil }
        let secret = try readSecretFromStandardInput(prompt: "Client secret for '\(id.rawValue)' (not shown): ")
        guard !secret.isEmpty else {
            throw CLIFailure("--client-secret-stdin read nothing from stdin",
                             hint: "Pipe the secret in, e.g. 'authdeck provider add … --client-secret-stdin < secret-file'.")
        }
        return ClientSecret(secret)
    }
}

extension ProviderAddOptions {
    /// The options a failed probe's advice names: a preset's --domain and --tenant, else --issuer.
    var issuerOptions: String {
        let presetOptions = [domain.map { _ in "--domain" }, tenant.map { _ in "--tenant" }].compactMap { $0 }
        let given = issuer != nil ? [] : presetOptions
        return given.isEmpty ? "--issuer" : given.joined(separator: " and ")
    }
}

enum ArgumentParserNames {
    static func kebab(_ name: String) -> String { OptionSpec.flag(name, help: "").flagName }
}

func providerAddRun(_ options: ProviderAddOptions, _ context: CLIContext) async throws -> Int32 {
    let presets = presetCatalog(context, warn: options.preset != nil)
    let config = try options.configuration(presets: presets)
    var clientSecret = try options.clientSecret(for: config.id)
    if let fromFile = try options.machine.fileSecret() { clientSecret = fromFile }
    let keys = ClientKeys(context.app)
    let clientKey = try options.machine.key(keys)
    do {
        try await ProviderAdmin(context.app).add(config, clientSecret: clientSecret, clientKey: clientKey,
                                                 probe: options.noProbe ? .skip : .discovery)
    } catch {
        throw CLIFailure(error, hint: error.probe.map { CLIFailure.advice($0, issuer: options.issuerOptions) })
    }
    var notes = ["Added provider '\(config.id)'"]
    if config.isLoopbackHTTP || [config.endpoints.token, config.endpoints.authorization].compactMap({ $0 }).contains(where: isLoopbackHTTP) {
        notes.append("plain HTTP on loopback (accepted for local providers only)")
    }
    if let preset = config.preset, let note = presets.preset(named: preset)?.note(for: config) { notes.append(note) }
    Output.err(notes.joined(separator: "; ") + ". Sign in with 'authdeck login \(config.id)'.")
    if let clientKey, options.machine.generateKey {
        // The public key only (no `d`): on stdout, for a script to register it.
        Output.err("Register this public key (JWK) with the client '\(config.clientID)' at the provider:")
        Output.out(keys.publicJWK(clientKey))
    }
    if config.isMachine { return ExitCode.ok }
    let uris = config.redirectURIsToRegister
    if config.fixedRedirectPort != nil {
        Output.err("Register exactly these with the client at the provider: redirect URI \(uris.signIn), post-logout redirect URI \(uris.signOut).")
    } else if config.preset == nil {
        Output.err("Redirect URI to register with the client: \(uris.signIn) (any port, RFC 8252 §7.3). If the provider compares redirect URIs"
            + " exactly, port included, register http://127.0.0.1:PORT/callback (and /logout-callback) and add --redirect-port PORT.")
    }
    return ExitCode.ok
}

// MARK: - provider list / show / remove

/// The endpoints `provider show` lists, in order: label, JSON member, the configured value and
/// the metadata's (discovered, or the configured one laid over it).
func providerEndpoints(_ provider: ProviderConfig,
                       _ metadata: AuthorizationServerMetadata?) -> [(label: String, member: String, configured: URL?, effective: URL?)] {
    let e = provider.endpoints, m = metadata
    return [
        ("authorization endpoint", "authorization", e.authorization, m?.authorizationEndpoint),
        ("token endpoint", "token", e.token, m?.tokenEndpoint),
        ("device authorization endpoint", "deviceAuthorization", e.deviceAuthorization, m?.deviceAuthorizationEndpoint),
        ("revocation endpoint", "revocation", e.revocation, m?.revocationEndpoint),
        ("introspection endpoint", "introspection", e.introspection, m?.introspectionEndpoint),
        ("userinfo endpoint", "userinfo", e.userinfo, m?.userinfoEndpoint),
        ("end session endpoint", "endSession", e.endSession, m?.endSessionEndpoint),
        ("jwks uri", "jwks", e.jwks, m?.jwksURI),
        ("pushed authorization request endpoint", "pushedAuthorizationRequest", nil, m?.pushedAuthorizationRequestEndpoint),
    ]
}

/// What discovery found for `provider show`: the metadata, the failure, or nothing to discover.
enum ProviderDiscoveryResult {
    case notDiscovered
    case found(AuthorizationServerMetadata)
    case failed(AppError)

    var metadata: AuthorizationServerMetadata? { if case .found(let m) = self { m } else { nil } }
}

func providerJSON(_ provider: ProviderConfig, accounts: Int, discovery: ProviderDiscoveryResult = .notDiscovered) -> JSONValue {
    let e = provider.endpoints
    func url(_ value: URL?) -> JSONValue { .url(value) }
    let plain = provider.isLoopbackHTTP || [e.token, e.authorization].compactMap({ $0 }).contains(where: isLoopbackHTTP)
    // `endpoints`: the configured ones (null: not configured); `discovered`: what the discovery
    // document names for the rest (null when there is none, or it failed: `discoveryError`).
    var discovered: JSONValue = .null
    if let metadata = discovery.metadata {
        var members: [String: JSONValue] = [:]
        for endpoint in providerEndpoints(provider, metadata) where endpoint.configured == nil { members[endpoint.member] = url(endpoint.effective) }
        discovered = .object(members)
    }
    let discoveryError: JSONValue = if case .failed(let error) = discovery { .string(error.description) } else { .null }
    return .object([
        "discovered": discovered,
        "discoveryError": discoveryError,
        "name": .string(provider.id.rawValue),
        "displayName": .string(provider.displayName),
        "issuer": url(provider.issuer),
        "clientId": .string(provider.clientID),
        "clientAuthentication": .string(provider.clientAuthentication.rawValue),
        "clientCredentials": provider.clientCredentials?.json ?? .null,
        "scopes": .strings(provider.scopes),
        "audience": .text(provider.audience),
        "resources": .strings(provider.resources),
        "trustedAudiences": .strings(provider.additionalTrustedAudiences ?? []),
        "multiTenantEntra": .bool(provider.multiTenantEntra ?? false),
        "gitHosts": .array((provider.gitHosts ?? []).map(\.json)),
        "containerRegistries": .array((provider.containerRegistries ?? []).map(\.json)),
        "headers": .stringMap(provider.extraHeaders),
        "authorizationParameters": .stringMap(provider.extraAuthorizationParameters),
        "endpoints": .object([
            "authorization": url(e.authorization), "token": url(e.token), "deviceAuthorization": url(e.deviceAuthorization),
            "revocation": url(e.revocation), "introspection": url(e.introspection), "userinfo": url(e.userinfo),
            "endSession": url(e.endSession), "jwks": url(e.jwks),
        ]),
        "caBundle": .text(provider.caBundlePath),
        "preset": .text(provider.preset),
        "plainHTTPLoopback": .bool(plain),
        "redirectPort": provider.fixedRedirectPort.map { .int(Int($0)) } ?? .null,
        "redirectURIs": .strings([provider.redirectURIsToRegister.signIn, provider.redirectURIsToRegister.signOut]),
        "accounts": .int(accounts),
    ])
}

func providerListRun(json: Bool, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    let counts = Dictionary(grouping: snapshot.accounts, by: \.providerID).mapValues(\.count)
    if json {
        Output.json(.array(snapshot.providers.map { providerJSON($0, accounts: counts[$0.id] ?? 0) }))
        return ExitCode.ok
    }
    if snapshot.providers.isEmpty {
        Output.err("No provider is configured; add one with 'authdeck provider add NAME --issuer URL --client-id ID'.")
        return ExitCode.ok
    }
    for provider in snapshot.providers {
        let location = provider.issuer?.absoluteString ?? provider.endpoints.token?.absoluteString ?? "-"
        var line = "\(provider.id.rawValue)\t\(location)\t\(provider.clientID)\t\(counts[provider.id] ?? 0) account(s)"
        if provider.isLoopbackHTTP { line += "\tplain HTTP on loopback" }
        Output.line(line)
    }
    return ExitCode.ok
}

func providerShowRun(_ name: String, json: Bool, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    guard let provider = snapshot.providers.first(where: { $0.id.rawValue == name }) else {
        throw CLIFailure("Unknown provider '\(name)'", hint: "See 'authdeck provider list'.", exitCode: ExitCode.usage)
    }
    let accounts = snapshot.accounts.filter { $0.providerID == provider.id }.count
    let discovery: ProviderDiscoveryResult
    switch await context.result({ () async throws(AppError) in try await ShowProviderDiscovery(context.app).run(provider.id) }) {
    case .success(let metadata?): discovery = .found(metadata)
    case .success(nil): discovery = .notDiscovered
    case .failure(let error): discovery = .failed(error)
    }
    if json {
        Output.json(providerJSON(provider, accounts: accounts, discovery: discovery))
        return ExitCode.ok
    }
    var lines = ["name: \(provider.id.rawValue)", "display name: \(provider.displayName)"]
    if let issuer = provider.issuer {
        lines.append("issuer: \(issuer.absoluteString)\(provider.isLoopbackHTTP ? " (plain HTTP on loopback)" : "")")
    } else {
        lines.append("issuer: none (manual endpoints, no discovery)")
    }
    lines.append("client id: \(provider.clientID)")
    let machine = provider.clientCredentials
    let secretPlace = switch (provider.clientAuthentication, machine?.assertionSource) {
    case (.none, _): ""
    case (_, let source?): " (a federated assertion from \(source.name), read for each request, never stored)"
    case (.privateKeyJWT, nil): " (private key in the credential store)"
    default: " (secret in the credential store)"
    }
    if let machine {
        lines.append("grant: client credentials (RFC 6749 §4.4; machine accounts)")
        if provider.clientAuthentication == .privateKeyJWT, machine.assertionSource == nil {
            lines.append("client assertion audience: \((machine.assertionAudience ?? .tokenEndpoint).rawValue)")
        }
    }
    lines.append("client authentication: \(provider.clientAuthentication.rawValue)\(secretPlace)")
    lines.append("scopes: \(provider.scopes.joined(separator: " "))")
    if let audience = provider.audience { lines.append("audience: \(audience)") }
    if !provider.resources.isEmpty { lines.append("resources: \(provider.resources.joined(separator: " "))") }
    if let audiences = provider.additionalTrustedAudiences, !audiences.isEmpty {
        lines.append("trusted audiences: \(audiences.joined(separator: " "))")
    }
    if provider.multiTenantEntra == true { lines.append("multi-tenant Entra authority: yes ({tenantid} in the issuer is the token's tid)") }
    for entry in provider.gitHosts ?? [] { lines.append("git host: \(entry.host) (username \(entry.username ?? "the account's login"))") }
    for entry in provider.containerRegistries ?? [] {
        lines.append("container registry: \(entry.host) (username \(entry.username ?? "the account's login"))")
    }
    for (name, value) in provider.extraHeaders.sorted(by: { $0.key < $1.key }) { lines.append("header: \(name): \(value)") }
    for (name, value) in provider.extraAuthorizationParameters.sorted(by: { $0.key < $1.key }) {
        lines.append("authorization parameter: \(name)=\(value)")
    }
    // Configured endpoints as they are; the rest as the discovery document names them, marked.
    for endpoint in providerEndpoints(provider, discovery.metadata) {
        if let url = endpoint.configured {
            lines.append("\(endpoint.label): \(url.absoluteString)")
        } else if let url = endpoint.effective {
            lines.append("\(endpoint.label): \(url.absoluteString) (discovered)")
        }
    }
    if case .failed(let error) = discovery {
        lines.append("discovered endpoints: unknown, discovery failed: \(error.description)")
    }
    if let ca = provider.caBundlePath { lines.append("ca bundle: \(ca)") }
    let uris = provider.redirectURIsToRegister
    lines.append("redirect URIs: \(uris.signIn), \(uris.signOut)\(provider.fixedRedirectPort == nil ? " (any port)" : " (exactly this port)")")
    lines.append("pushed authorization requests (RFC 9126): \((provider.par ?? .auto).rawValue)")
    lines.append("DPoP (RFC 9449): \((provider.dpop ?? .auto).rawValue)")
    if let apple = provider.appleClientSecret {
        lines.append("Apple client secret: minted from \(apple.keyPath) (team id \(apple.teamID), key id \(apple.keyID)), renewed before it expires")
    }
    if let units = provider.claimTimeUnits, !units.isEmpty {
        lines.append("claim time units: \(units.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.rawValue)" }.joined(separator: ", "))")
    }
    if let preset = provider.preset { lines.append("preset: \(preset)") }
    lines.append("accounts: \(accounts)")
    Output.out(lines.joined(separator: "\n") + "\n")
    return ExitCode.ok
}

func providerRemoveRun(_ name: String, _ context: CLIContext) async throws -> Int32 {
    let outcome = try await context.run { () async throws(AppError) in try await ProviderAdmin(context.app).remove(ProviderID(name)) }
    switch outcome {
    case .none: break
    case .deleted(let confirmed):
        Output.err(confirmed ? "Deleted its client registration at the authorization server (RFC 7592)."
                             : "Its client registration was already unknown to the authorization server (RFC 7592).")
    case .kept(let reason): Output.err("Its client registration stays at the authorization server: \(reason).")
    }
    Output.err("Removed provider '\(name)'.")
    return ExitCode.ok
}
