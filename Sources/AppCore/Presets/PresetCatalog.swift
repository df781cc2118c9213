import FoundationEssentials

/// The presets in effect: the built-ins (``BuiltInPresets``), then the user's files, a file
/// replacing the built-in of the same name. A bad file is reported in ``problems`` and hides
/// nothing else (a broken override leaves the built-in in place).
public struct PresetCatalog: Sendable {
    public enum Origin: Sendable, Equatable {
        case builtIn
        /// The user's file (its path).
        case file(String)
    }

    public struct Entry: Sendable, Equatable {
        public var preset: ProviderPreset
        public var origin: Origin
    }

    /// Built-ins in ``BuiltInPresets/names`` order, then presets only the user has, by name.
    public var entries: [Entry]
    /// One per bad user file, naming the file and the field.
    public var problems: [PresetError]

    /// A user's preset file as read: its path and contents (`nil`: unreadable).
    public struct UserFile: Sendable {
        public var path: String
        public var data: Data?
        public init(path: String, data: Data?) {
            self.path = path
            self.data = data
        }
    }

    /// - Parameter userFiles: `$XDG_CONFIG_HOME/authdeck/presets/*.json`; each file's `name` must be
    ///   its file name without `.json`.
    public static func load(userFiles: [UserFile]) -> PresetCatalog {
        var entries = BuiltInPresets.parsed.map { Entry(preset: $0, origin: .builtIn) }
        var problems: [PresetError] = []
        var extra: [Entry] = []
        for file in userFiles.sorted(by: { $0.path < $1.path }) {
            guard let data = file.data else {
                problems.append(PresetError(file: file.path, field: "", problem: "cannot be read"))
                continue
            }
            let preset: ProviderPreset
            do {
                preset = try ProviderPreset.parse(data, file: file.path)
            } catch {
                problems.append(error)
                continue
            }
            let stem = URL(fileURLWithPath: file.path).deletingPathExtension().lastPathComponent
            guard preset.name.utf8.elementsEqual(stem.utf8) else {
                problems.append(PresetError(file: file.path, field: "name", problem: "'\(preset.name)' must be the file's name, '\(stem)'"))
                continue
            }
            let entry = Entry(preset: preset, origin: .file(file.path))
            if let index = entries.firstIndex(where: { $0.preset.name.utf8.elementsEqual(preset.name.utf8) }) {
                entries[index] = entry
            } else {
                extra.append(entry)
            }
        }
        return PresetCatalog(entries: entries + extra.sorted { $0.preset.name < $1.preset.name }, problems: problems)
    }

    /// The catalog without user files.
    public static var builtIn: PresetCatalog { load(userFiles: []) }

    public var names: [String] { entries.map(\.preset.name) }

    public func entry(named name: String) -> Entry? { entries.first { $0.preset.name.utf8.elementsEqual(name.utf8) } }

    public func preset(named name: String) -> ProviderPreset? { entry(named: name)?.preset }
}

public enum BuiltInPresets {
    /// Names of the built-in presets, in listing order (each `presets/<name>.json`).
    public static let names = ["auth0", "github", "apple", "logto", "google", "entra", "okta", "keycloak", "gitlab"]

    /// All built-ins, parsed once. A source that fails to parse is a bug (PresetTests) and is left out.
    static let parsed: [ProviderPreset] = names.compactMap { name in
        sources[name].flatMap { try? ProviderPreset.parse(Data($0.utf8), file: "built-in:\(name)") }
    }
}
