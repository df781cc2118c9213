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

    init(_ parsed: ParsedCommand) {
        par = parsed.value("par").flatMap(ProtocolFeatureSetting.init(rawValue:))
        dpop = parsed.value("dpop").flatMap(ProtocolFeatureSetting.init(rawValue:))
        if let key = parsed.value("appleKey") {
            apple = AppleClientSecretSource(keyPath: URL(fileURLWithPath: key).standardizedFileURL.path,
                                            teamID: parsed.value("appleTeamId") ?? "", keyID: parsed.value("appleKeyId") ?? "")
        }
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
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
        if let apple {
            config.appleClientSecret = apple
            if config.clientAuthentication == .none { config.clientAuthentication = .clientSecretPost }
        }
    }
}
