import FoundationEssentials

extension BuiltInThemes {
    /// All built-in themes, parsed once. A source that fails to parse (a bug caught by ThemeTests)
    /// degrades to an attributes-free theme rather than crashing.
    static let parsed: [String: Theme] = {
        var out: [String: Theme] = [:]
        for (name, source) in sources {
            out[name] = (try? Theme.parse(Data(source.utf8), file: "built-in:\(name)")) ?? Theme(name: name, styles: [:])
        }
        return out
    }()

    /// The built-in theme with this name, if any.
    public static func theme(named name: String) -> Theme? { parsed[name] }

    /// `default`: for dark terminals.
    public static var defaultTheme: Theme { parsed["default"]! }

    /// `monochrome`: attributes only (bold, dim, reverse, underline); used for `NO_COLOR` and goldens.
    public static var monochrome: Theme { parsed["monochrome"]! }
}
