import AuthEngine
import FoundationEssentials
import TextSupport

/// The sign-in dialog's "Add a provider from a preset…" form: a preset, the options it
/// asks for, the client id and, typed without echo, the client secret. The rule of what the form
/// needs lives here; the TUI only renders it and maps keys to ``Edit``s.
public struct PresetForm: Equatable, Sendable {
    /// A field of the form, in tab order.
    public enum Field: Equatable, Sendable { case preset, name, domain, tenant, audience, clientID, clientSecret }

    /// One change the user makes.
    public enum Edit: Equatable, Sendable {
        /// Moves the preset choice (the `preset` field).
        case move(by: Int)
        case nextField
        case previousField
        /// The focused text field's new value (never the secret: ``setSecret(_:)``).
        case setText(String)
        /// The secret as typed so far, kept redacting in the action and the state.
        case setSecret(ClientSecret)
    }

    public var presets: [ProviderPreset]
    public var selected: Int
    /// The new provider's name (`provider add NAME`); follows the preset's name until edited.
    public var providerName: String
    public var domain: String
    public var tenant: String
    /// The API audience, for a preset that asks for one (``ProviderPreset/audience``).
    public var audience: String
    public var clientID: String
    public var clientSecret: ClientSecret
    public var focused: Field
    /// The last refusal (the use case's message, or what is missing); the fields are kept.
    public var error: String?
    /// When the refusal was the discovery probe's: what failed, for the front end to word what
    /// to do in the form's terms (``ProviderProbeFailure``).
    public var probeFailure: ProviderProbeFailure?
    /// `ProviderAdmin.add` (with its discovery probe) is running.
    public var submitting: Bool
    private var nameEdited = false

    public init(presets: [ProviderPreset]) {
        self.presets = presets
        self.selected = 0
        self.providerName = presets.first?.name ?? ""
        self.domain = ""
        self.tenant = ""
        self.audience = ""
        self.clientID = ""
        self.clientSecret = ClientSecret("")
        self.focused = .preset
        self.error = nil
        self.submitting = false
    }

    public var preset: ProviderPreset? { presets.indices.contains(selected) ? presets[selected] : nil }

    /// Whether the preset's client authentication needs a secret (one may be given anyway: it makes
    /// the client confidential, `client_secret_basic`, as `provider add --client-secret-stdin` does).
    public var needsSecret: Bool {
        guard let preset, let config = try? preset.makeProvider(id: "form", clientID: "form", domain: preset.domain.map { _ in "example.com" },
                                                               tenant: preset.tenant.map { _ in "form" }) else { return false }
        return config.needsClientSecret
    }

    /// The fields the selected preset asks for, in tab order.
    public var fields: [Field] {
        var fields: [Field] = [.preset, .name]
        if preset?.domain != nil { fields.append(.domain) }
        if preset?.tenant != nil { fields.append(.tenant) }
        if preset?.audience != nil { fields.append(.audience) }
        return fields + [.clientID, .clientSecret]
    }

    public mutating func apply(_ edit: Edit) {
        switch edit {
        case .move(let by):
            guard !presets.isEmpty else { return }
            selected = min(presets.count - 1, max(0, selected + by))
            if !nameEdited { providerName = presets[selected].name }
            if !fields.contains(focused) { focused = .preset }
        case .nextField:
            let all = fields
            focused = all[((all.firstIndex(of: focused) ?? 0) + 1) % all.count]
        case .previousField:
            let all = fields
            focused = all[((all.firstIndex(of: focused) ?? 0) + all.count - 1) % all.count]
        case .setText(let text):
            switch focused {
            case .name: providerName = text; nameEdited = true
            case .domain: domain = text
            case .tenant: tenant = text
            case .audience: audience = text
            case .clientID: clientID = text
            case .preset, .clientSecret: return
            }
        case .setSecret(let secret):
            guard focused == .clientSecret else { return }
            clientSecret = secret
        }
    }

    /// The provider to add and its secret, built by the preset as `provider add --preset` does.
    /// - Throws: ``AppError`` `.usage` naming the missing or bad field and what to enter.
    public func provider() throws(AppError) -> (ProviderConfig, ClientSecret?) {
        guard let preset else { throw AppError(title: "No preset to add a provider from", detail: "", disposition: .usage) }
        let name = providerName.trimmingWhitespace()
        guard !name.isEmpty else { throw AppError(title: "Name: enter a name for the provider", detail: "", disposition: .usage) }
        // In the form's order: the preset's own fields (Domain, Tenant, Audience), then the client's.
        let clientID = clientID.trimmingWhitespace()
        var config: ProviderConfig
        do {
            config = try preset.makeProvider(id: ProviderID(name), clientID: clientID, domain: Self.given(domain, preset.domain),
                                             tenant: Self.given(tenant, preset.tenant), audience: Self.given(audience, preset.audience))
        } catch {
            throw AppError(title: Self.formText(error), detail: "", disposition: .usage)
        }
        guard !clientID.isEmpty else {
            throw AppError(title: "Client ID: enter the client id registered at \(preset.displayName)", detail: "", disposition: .usage)
        }
        let secret = clientSecret.exposedValue.trimmingWhitespaceAndNewlines()
        if needsSecret && secret.isEmpty {
            throw AppError(title: "Client secret: \(preset.displayName) authenticates the client; enter its secret", detail: "", disposition: .usage)
        }
        config.adoptClientSecret(given: !secret.isEmpty)
        if let violation = config.validate().first {
            throw AppError(title: violation.description, detail: violation.hint, disposition: .usage)
        }
        return (config, secret.isEmpty ? nil : ClientSecret(secret))
    }

    /// The form's label of a preset parameter.
    public static func label(_ name: PresetParameterName) -> String {
        switch name {
        case .domain: "Domain"
        case .tenant: "Tenant"
        case .audience: "Audience"
        }
    }

    /// A preset's refusal in the form's words: the field's label, never a command-line option.
    static func formText(_ error: PresetError) -> String {
        guard let (name, problem) = error.parameter else { return error.description }
        let label = label(name)
        return switch problem {
        case .missing(let meaning, let example): "\(label): enter \(meaning)\(example.map { ", e.g. \($0)" } ?? "")"
        case .notUsed(let preset): "\(label): the preset \(preset) does not use it"
        case .plainHTTP(let value): "\(label): '\(value)' must be an https host; plain http is refused"
        case .notAHost(let value): "\(label): '\(value)' must be a host name (and port), e.g. example.com"
        case .notASegment(let value): "\(label): '\(value)' must be one path segment (no '/', '?', '#', '%', '\\', braces or spaces)"
        }
    }

    private static func given(_ text: String, _ parameter: ProviderPreset.Parameter?) -> String? {
        let value = text.trimmingWhitespace()
        return parameter == nil || value.isEmpty ? nil : value
    }
}
