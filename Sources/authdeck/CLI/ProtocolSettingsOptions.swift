import AppCore
import AuthEngine
import FoundationEssentials

/// `provider add --par auto|always|never --dpop auto|always|never` (RFC 9126, RFC 9449); unset
/// keeps the default `auto` (stored as absent). `--apple-key FILE --apple-team-id T --apple-key-id K`:
/// authdeck mints Sign in with Apple's client secret itself (client_secret_post) and renews it.
struct ProtocolSettingsOptions {
    var par: ProtocolFeatureSetting?
    var dpop: ProtocolFeatureSetting?
    var apple: AppleClientSecretSource?
    /// `--redirect-port PORT` (``ProviderConfig/redirectPort``).
    var redirectPort: UInt16?

    init(_ parsed: ParsedCommand) {
        redirectPort = parsed.value("redirectPort").flatMap(RedirectPortOption.parse)
        par = parsed.value("par").flatMap(ProtocolFeatureSetting.init(rawValue:))
        dpop = parsed.value("dpop").flatMap(ProtocolFeatureSetting.init(rawValue:))
        if let key = parsed.value("appleKey") {
            apple = AppleClientSecretSource(keyPath: URL(fileURLWithPath: key).standardizedFileURL.path,
                                            teamID: parsed.value("appleTeamId") ?? "", keyID: parsed.value("appleKeyId") ?? "")
        }
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        if let problem = RedirectPortOption.problem(parsed) { return problem }
        for name in ["par", "dpop"] {
            if let value = parsed.value(name), ProtocolFeatureSetting(rawValue: value) == nil {
                return "--\(name) must be auto, always or never, got '\(value)'"
            }
        }
        let apple = ["appleKey", "appleTeamId", "appleKeyId"].map { parsed.value($0) != nil }
        if apple.contains(true) && apple.contains(false) { return "--apple-key, --apple-team-id and --apple-key-id go together" }
        for name in ["appleTeamId", "appleKeyId"] {
            if let value = parsed.value(name), !AppleClientSecret.isAppleID(value) {
                return "--\(name == "appleTeamId" ? "apple-team-id" : "apple-key-id") must be 10 characters of A-Z and 0-9, got '\(value)'"
            }
        }
        if parsed.value("appleKey") != nil && parsed.flag("clientSecretStdin") {
            return "--apple-key mints the client secret; do not also give --client-secret-stdin"
        }
        return nil
    }

    func apply(to config: inout ProviderConfig) {
        if let par { config.par = par }
        if let dpop { config.dpop = dpop }
        if let redirectPort { config.redirectPort = redirectPort }
        if let apple {
            config.appleClientSecret = apple
            if config.clientAuthentication == .none { config.clientAuthentication = .clientSecretPost }
        }
    }
}

/// `--redirect-port PORT` of `provider add` and `login`: the port a provider that compares
/// redirect URIs exactly has registered (RFC 6749 §3.1.2.3), 1 to 65535.
enum RedirectPortOption {
    static let spec = OptionSpec.value("redirectPort", valueName: "port", help: "Listen for redirects on exactly this port, for a provider that"
        + " compares redirect URIs exactly, port included (register http://127.0.0.1:PORT/callback and …/logout-callback); a busy port is"
        + " an error, never another port.")

    static func parse(_ text: String) -> UInt16? { ProviderSettingText.redirectPort(text) }

    static func problem(_ parsed: ParsedCommand) -> String? {
        parsed.value("redirectPort").flatMap { ProviderSettingText.redirectPortProblem($0, named: "--redirect-port") }
    }
}
