import AppCore
import CredentialStoreLive
import FoundationEssentials
import QuickToken

/// The user's preset files: `$XDG_CONFIG_HOME/authdeck/presets/*.json` (format: presets/README.md).
public enum PresetFiles {
    /// The folder of the user's presets.
    public static func directory(environment: [String: String]) -> String {
        XDGPaths(environment: environment).configDirectory + "/presets"
    }

    /// Each `*.json` file of ``directory(environment:)`` with its contents (nil when unreadable);
    /// none when the folder does not exist.
    public static func userFiles(environment: [String: String]) -> [PresetCatalog.UserFile] {
        let folder = directory(environment: environment)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { name in
            let path = folder + "/" + name
            return PresetCatalog.UserFile(path: path, data: FileManager.default.contents(atPath: path))
        }
    }

    /// The presets in effect for this process.
    public static func catalog(environment: [String: String]) -> PresetCatalog {
        PresetCatalog.load(userFiles: userFiles(environment: environment))
    }
}
