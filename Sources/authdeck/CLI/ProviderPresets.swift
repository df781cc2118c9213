import AppCore
import AppCoreLive
import Foundation

// `authdeck provider presets` and the presets of `provider add --preset`: the catalog is AppCore's
// (`PresetCatalog`: presets/*.json built in, `$XDG_CONFIG_HOME/authdeck/presets/*.json` on top).

/// The presets in effect; a bad user file is named on stderr once (`warn`), the others still work.
func presetCatalog(_ context: CLIContext, warn: Bool = true) -> PresetCatalog {
    let catalog = PresetFiles.catalog(environment: context.environment)
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

    var json: [String: Any] {
        ["meaning": meaning, "example": example ?? NSNull(), "default": defaultValue ?? NSNull(), "required": required]
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
        try Output.json(catalog.entries.map { entry -> [String: Any] in
            let p = entry.preset
            return [
                "name": p.name, "displayName": p.displayName,
                "domain": p.domain?.json ?? NSNull(), "tenant": p.tenant?.json ?? NSNull(),
                "identity": p.identity.rawValue, "revocation": p.revocation.rawValue, "logout": p.logout.rawValue,
                "note": p.note ?? NSNull(), "sources": p.sources, "origin": origin(entry),
            ]
        })
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
