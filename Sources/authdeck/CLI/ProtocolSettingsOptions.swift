import AppCore
import AuthEngine

/// `provider add --par auto|always|never --dpop auto|always|never` (RFC 9126, RFC 9449); unset
/// keeps the default `auto` (stored as absent).
struct ProtocolSettingsOptions {
    var par: ProtocolFeatureSetting?
    var dpop: ProtocolFeatureSetting?

    init(_ parsed: ParsedCommand) {
        par = parsed.value("par").flatMap(ProtocolFeatureSetting.init(rawValue:))
        dpop = parsed.value("dpop").flatMap(ProtocolFeatureSetting.init(rawValue:))
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        for name in ["par", "dpop"] {
            if let value = parsed.value(name), ProtocolFeatureSetting(rawValue: value) == nil {
                return "--\(name) must be auto, always or never, got '\(value)'"
            }
        }
        return nil
    }

    func apply(to config: inout ProviderConfig) {
        if let par { config.par = par }
        if let dpop { config.dpop = dpop }
    }
}
