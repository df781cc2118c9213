import AuthEngine
import FoundationEssentials
import TextSupport

/// The accounts screen's "Edit provider" form: a saved provider's scopes, audience, resources,
/// git hosts, registries, redirect port and, typed without echo, a new client secret, changed in
/// place through ``ProviderAdmin/change(_:clientSecret:probe:edit:)`` as `provider set` does.
/// Lists are space-separated text (``ProviderSettingText/list(_:)``, the CLI's `--scope` rule).
/// The rule of what the form accepts lives here; the TUI only renders it and maps keys to ``Edit``s.
public struct ProviderEditForm: Equatable, Sendable {
    /// A field of the form, in tab order.
    public enum Field: Equatable, Sendable, CaseIterable { case scopes, audience, resources, gitHosts, registries, redirectPort, clientSecret }

    /// One change the user makes.
    public enum Edit: Equatable, Sendable {
        case nextField
        case previousField
        /// The focused text field's new value (never the secret: ``setSecret(_:)``).
        case setText(String)
        /// The secret as typed so far, kept redacting in the action and the state.
        case setSecret(ClientSecret)
        /// Empties the focused field (the secret too).
        case clear
    }

    public let providerID: ProviderID
    public let displayName: String
    /// The fields' text: as prefilled from the provider, then as typed.
    public private(set) var values: [Field: String]
    /// Empty: keep the stored secret.
    public var clientSecret: ClientSecret
    public var focused: Field
    /// The last refusal (the form's parsing, or the use case's message); the fields are kept.
    public var error: String?
    /// When the refusal was the discovery probe's: what failed (``ProviderProbeFailure``).
    public var probeFailure: ProviderProbeFailure?
    /// `ProviderAdmin.change` (with its discovery probe) is running.
    public var submitting: Bool
    /// The text each field was prefilled with: a field left as it was is left out of the change
    /// (what another command changed meanwhile stays, as with an option `provider set` is not given).
    private let prefilled: [Field: String]
    /// The provider's git hosts and registries as saved: a host kept keeps its username.
    private let savedGitHosts: [CredentialHost], savedRegistries: [CredentialHost]

    public init(provider: ProviderConfig) {
        providerID = provider.id
        displayName = provider.displayName
        let values: [Field: String] = [
            .scopes: provider.scopes.joined(separator: " "),
            .audience: provider.audience ?? "",
            .resources: provider.resources.joined(separator: " "),
            .gitHosts: (provider.gitHosts ?? []).map(\.host).joined(separator: " "),
            .registries: (provider.containerRegistries ?? []).map(\.host).joined(separator: " "),
            .redirectPort: provider.redirectPort.map(String.init) ?? "",
        ]
        self.values = values
        prefilled = values
        (savedGitHosts, savedRegistries) = (provider.gitHosts ?? [], provider.containerRegistries ?? [])
        clientSecret = ClientSecret("")
        focused = .scopes
        submitting = false
    }

    /// The text of a field (the secret: nil; the front end shows it masked).
    public func text(of field: Field) -> String? { field == .clientSecret ? nil : values[field] ?? "" }

    /// The field's label, saying how a list is separated.
    public static func label(_ field: Field) -> String {
        switch field {
        case .scopes: "Scopes"
        case .audience: "Audience"
        case .resources: "Resources"
        case .gitHosts: "Git hosts"
        case .registries: "Registries"
        case .redirectPort: "Redirect port"
        case .clientSecret: "Client secret"
        }
    }

    /// What to enter, in one line of the form (at most 54 columns: the form keeps its hints at 80×24).
    public static func hint(_ field: Field) -> String {
        switch field {
        case .scopes: "separated by spaces (RFC 6749 §3.3)"
        case .audience: "the API audience requested; empty: none"
        case .resources: "resource URIs separated by spaces (RFC 8707)"
        case .gitHosts, .registries: "host names separated by spaces (github.com, *.gcr.io)"
        case .redirectPort: "port of http://127.0.0.1:PORT/callback; empty: any"
        case .clientSecret: "not echoed; empty keeps the stored one"
        }
    }

    public mutating func apply(_ edit: Edit) {
        let all = Field.allCases
        switch edit {
        case .nextField: focused = all[((all.firstIndex(of: focused) ?? 0) + 1) % all.count]
        case .previousField: focused = all[((all.firstIndex(of: focused) ?? 0) + all.count - 1) % all.count]
        case .setText(let text): if focused != .clientSecret { values[focused] = text }
        case .setSecret(let secret): if focused == .clientSecret { clientSecret = secret }
        case .clear: if focused == .clientSecret { clientSecret = ClientSecret("") } else { values[focused] = "" }
        }
    }

    /// The fields changed from what they were prefilled with, parsed; and the secret typed (nil: keep).
    /// - Throws: ``AppError`` `.usage` naming the field and what to enter (a host with `/` or a
    ///   space, a port out of range or 80).
    public func changes() throws(AppError) -> Changes {
        var changes = Changes()
        func changed(_ field: Field) -> String? {
            let text = (values[field] ?? "").trimmingWhitespace()
            return text.utf8.elementsEqual((prefilled[field] ?? "").trimmingWhitespace().utf8) ? nil : text
        }
        func hostList(_ field: Field, _ saved: [CredentialHost]) throws(AppError) -> [CredentialHost]? {
            guard let text = changed(field) else { return nil }
            var list: [CredentialHost] = []
            for host in ProviderSettingText.list(text) {
                guard ProviderSettingText.isHost(host) else {
                    throw AppError(title: "\(Self.label(field)): '\(Sanitizer.visible(host))' is not a host name"
                                   + " (github.com, gitlab.example.com:8443, *.gcr.io)", detail: "", disposition: .usage)
                }
                let kept = saved.first { $0.host.utf8.elementsEqual(host.lowercased().utf8) }
                list.append(CredentialHost(host: host, username: kept?.username))
            }
            return list
        }
        changes.scopes = changed(.scopes).map(ProviderSettingText.list)
        changes.audience = changed(.audience)
        changes.resources = changed(.resources).map(ProviderSettingText.list)
        changes.gitHosts = try hostList(.gitHosts, savedGitHosts)
        changes.registries = try hostList(.registries, savedRegistries)
        if let port = changed(.redirectPort) {
            if port.isEmpty {
                changes.redirectPort = .any
            } else if let problem = ProviderSettingText.redirectPortProblem(port, named: Self.label(.redirectPort)) {
                throw AppError(title: problem, detail: "", disposition: .usage)
            } else if let number = ProviderSettingText.redirectPort(port) {
                changes.redirectPort = .fixed(number)
            }
        }
        let secret = clientSecret.exposedValue.trimmingWhitespaceAndNewlines()
        changes.clientSecret = secret.isEmpty ? nil : ClientSecret(secret)
        return changes
    }

    /// What the form changes, laid over the provider as saved (again after the probe, under the
    /// providers file's lock: ``ProviderAdmin/change(_:clientSecret:probe:edit:)``'s `edit`).
    public struct Changes: Equatable, Sendable {
        public enum Port: Equatable, Sendable { case any, fixed(UInt16) }
        public var scopes: [String]?
        /// Empty: none.
        public var audience: String?
        public var resources: [String]?
        /// Empty: none.
        public var gitHosts: [CredentialHost]?
        public var registries: [CredentialHost]?
        public var redirectPort: Port?
        /// A new client secret (nil: the stored one stays).
        public var clientSecret: ClientSecret?

        public init() {}

        /// Whether nothing is changed.
        public var isEmpty: Bool { self == Changes() }

        /// Lays the changes over `config`; a secret given makes a public client confidential
        /// (``ProviderConfig/adoptClientSecret(given:method:)``, as `provider set --client-secret-stdin`).
        /// - Throws: ``AppError`` `.usage` with the configuration's first violation
        ///   (``ProviderConfig/validate()``: a resource or host with a password, …).
        public func apply(to config: inout ProviderConfig) throws(AppError) {
            if let scopes { config.scopes = scopes }
            if let audience { config.audience = audience.isEmpty ? nil : audience }
            if let resources { config.resources = resources }
            if let gitHosts { config.gitHosts = gitHosts.isEmpty ? nil : gitHosts }
            if let registries { config.containerRegistries = registries.isEmpty ? nil : registries }
            switch redirectPort {
            case .any?: config.redirectPort = nil
            case .fixed(let port)?: config.redirectPort = port
            case nil: break
            }
            config.adoptClientSecret(given: clientSecret != nil)
            if let violation = config.validate().first { throw AppError(title: violation.description, detail: violation.hint, disposition: .usage) }
        }
    }

    /// What a change did, in a line for the flash: "Changed provider 'demo': scopes, git hosts (1 signed-in
    /// account kept; applies from its next sign-in or refresh)", and the redirect URI to register when the port changed.
    public static func summary(_ change: ProviderAdmin.Change) -> String {
        let (before, after) = (change.before, change.after)
        // Code unit for code unit (an identifier typed otherwise is a change).
        func differ(_ a: [String]?, _ b: [String]?) -> Bool { !(a ?? []).elementsEqual(b ?? []) { $0.utf8.elementsEqual($1.utf8) } }
        var what: [String] = []
        if differ(before.scopes, after.scopes) { what.append("scopes") }
        if differ(before.audience.map { [$0] }, after.audience.map { [$0] }) { what.append("audience") }
        if differ(before.resources, after.resources) { what.append("resources") }
        if differ(before.gitHosts?.map(\.host), after.gitHosts?.map(\.host)) { what.append("git hosts") }
        if differ(before.containerRegistries?.map(\.host), after.containerRegistries?.map(\.host)) { what.append("registries") }
        if before.redirectPort != after.redirectPort { what.append("redirect port") }
        if before.clientAuthentication != after.clientAuthentication { what.append("client authentication \(after.clientAuthentication.rawValue)") }
        if change.secret == .replaced { what.append("client secret") }
        guard !what.isEmpty else { return "Provider '\(after.id)' is unchanged" }
        let n = change.accounts
        var text = "Changed provider '\(after.id)': " + what.joined(separator: ", ")
        if n > 0 { text += " (\(n) signed-in account\(n == 1 ? "" : "s") kept; applies from the next sign-in or refresh)" }
        if before.fixedRedirectPort != after.fixedRedirectPort, after.fixedRedirectPort != nil {
            text += "; register redirect URI \(after.redirectURIsToRegister.signIn)"
        }
        return text
    }
}
