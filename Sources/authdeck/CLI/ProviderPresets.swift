import AppCore
import AppCoreLive
import FoundationEssentials
import StrictJSON

// `authdeck provider presets` and the presets of `provider add --preset`: the catalog is AppCore's
// (`PresetCatalog`: presets/*.json built in, `$XDG_CONFIG_HOME/authdeck/presets/*.json` on top).

/// The presets in effect; a bad user file is named on stderr once (`warn`), the others still work.
func presetCatalog(_ context: CLIContext, warn: Bool = true) -> PresetCatalog {
    let catalog = context.app.presets()
    if warn {
        for problem in catalog.problems { Output.err("warning: preset file \(problem) (the file is ignored)") }
    }
    return catalog
}

extension ProviderPreset.Parameter {
    /// "the tenant domain, e.g. example.eu.auth0.com (required)".
    var summary: String {
        var text = meaning
        if let example { text += ", e.g. \(example)" }
        if let defaultValue { text += " (default \(defaultValue))" } else if required { text += " (required)" }
        return text
    }

    var json: JSONValue {
        .object(["meaning": .string(meaning), "example": .text(example), "default": .text(defaultValue), "required": .bool(required)])
    }
}

func providerPresetsRun(json: Bool, _ context: CLIContext) async throws -> Int32 {
    let catalog = presetCatalog(context)
    func origin(_ entry: PresetCatalog.Entry) -> String {
        switch entry.origin {
        case .builtIn: "built-in"
        case .file(let path): path
        }
    }
    if json {
        Output.json(.array(catalog.entries.map { entry -> JSONValue in
            let p = entry.preset
            return .object([
                "name": .string(p.name), "displayName": .string(p.displayName),
                "domain": p.domain?.json ?? .null, "tenant": p.tenant?.json ?? .null,
                "identity": .string(p.identity.rawValue), "revocation": .string(p.revocation.rawValue), "logout": .string(p.logout.rawValue),
                "note": .text(p.note), "sources": .stringMap(p.sources), "origin": .string(origin(entry)),
            ])
        }))
        return ExitCode.ok
    }
    for entry in catalog.entries {
        let p = entry.preset
        var line = "\(p.name)\t\(p.displayName)"
        line += "\t--domain: " + (p.domain?.summary ?? "not used")
        line += "\t--tenant: " + (p.tenant?.summary ?? "not used")
        line += "\t" + origin(entry)
        Output.line(line)
    }
    return ExitCode.ok
}
