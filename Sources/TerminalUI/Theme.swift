// Themes: a palette of named colours plus a mapping from every StyleRole to colours and attributes.
// File format: themes/README.md. Built-ins: BuiltInThemes.swift (the same JSON as themes/*.json).
import FoundationEssentials
import StrictJSON
import TextSupport

/// A terminal colour: the terminal's default, or an index in the 256-colour table
/// (0–7 the ANSI colours, 8–15 their bright variants).
public enum TerminalColor: Hashable, Sendable {
    case `default`
    case index(Int)

    static let names: [String: Int] = [
        "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
        "brightBlack": 8, "brightRed": 9, "brightGreen": 10, "brightYellow": 11, "brightBlue": 12,
        "brightMagenta": 13, "brightCyan": 14, "brightWhite": 15,
    ]

    /// Parses "default", an ANSI colour name ("cyan", "brightBlack"), or "0"…"255".
    public init?(literal: String) {
        if literal == "default" {
            self = .default
        } else if let n = Self.names[literal] {
            self = .index(n)
        } else if let n = Int(literal), (0...255).contains(n) {
            self = .index(n)
        } else {
            return nil
        }
    }
}

/// Text attributes that work without colour.
public struct TextAttributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let bold = TextAttributes(rawValue: 1 << 0)
    public static let dim = TextAttributes(rawValue: 1 << 1)
    public static let reverse = TextAttributes(rawValue: 1 << 2)
    public static let underline = TextAttributes(rawValue: 1 << 3)
    public static let italic = TextAttributes(rawValue: 1 << 4)

    static let names: [String: TextAttributes] = [
        "bold": .bold, "dim": .dim, "reverse": .reverse, "underline": .underline, "italic": .italic,
    ]
}

/// How one role is drawn.
public struct RoleStyle: Hashable, Sendable {
    public var foreground: TerminalColor
    public var background: TerminalColor
    public var attributes: TextAttributes
    public init(foreground: TerminalColor = .default, background: TerminalColor = .default, attributes: TextAttributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }
    public static let plain = RoleStyle()
}

/// A theme: a style for every role. Roles a theme file leaves out are drawn like its `text` role.
public struct Theme: Hashable, Sendable {
    public var name: String
    public var styles: [StyleRole: RoleStyle]

    public init(name: String, styles: [StyleRole: RoleStyle]) {
        self.name = name
        self.styles = styles
    }

    public func style(for role: StyleRole) -> RoleStyle {
        styles[role] ?? styles[.text] ?? .plain
    }

    /// True when no role uses a colour (the theme works with `NO_COLOR` and on < 8 colour terminals).
    public var isAttributesOnly: Bool {
        styles.values.allSatisfy { $0.foreground == .default && $0.background == .default }
    }
}

/// Why a theme file was rejected. `file` is the path as given, `field` a dotted path such as
/// `roles.statusValid.fg` (or "" for the whole file).
public struct ThemeError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case unreadable
        case invalidJSON
        case wrongType(expected: String)
        case missingField
        case unknownRole(String)
        case unknownColor(String)
        case unknownAttribute(String)
        case unknownTheme(String)
    }
    public var file: String
    public var field: String
    public var kind: Kind

    public init(file: String, field: String, kind: Kind) {
        self.file = file
        self.field = field
        self.kind = kind
    }

    public var description: String {
        let where_ = field.isEmpty ? file : "\(file): field \(field)"
        switch kind {
        case .unreadable: return "\(where_): cannot read the theme file"
        case .invalidJSON: return "\(where_): not valid JSON"
        case .wrongType(let expected): return "\(where_): expected \(expected)"
        case .missingField: return "\(where_): missing"
        case .unknownRole(let r): return "\(where_): unknown role \"\(Sanitizer.visible(r))\""
        case .unknownColor(let c):
            return "\(where_): unknown colour \"\(Sanitizer.visible(c))\" (a palette name, default, an ANSI name or 0-255)"
        case .unknownAttribute(let a):
            return "\(where_): unknown attribute \"\(Sanitizer.visible(a))\" (bold, dim, reverse, underline, italic)"
        case .unknownTheme(let n): return "\(where_): no theme named \"\(Sanitizer.visible(n))\""
        }
    }
}

extension Theme {
    /// Parses a theme file (format: themes/README.md). `file` names the file in errors.
    /// Throws `ThemeError` naming the file and the offending field.
    public static func parse(_ data: Data, file: String) throws(ThemeError) -> Theme {
        guard case .success(let any) = parseJSON(data) else { throw ThemeError(file: file, field: "", kind: .invalidJSON) }
        guard let root = any.objectValue else {
            throw ThemeError(file: file, field: "", kind: .wrongType(expected: "an object"))
        }
        guard let nameAny = root["name"] else { throw ThemeError(file: file, field: "name", kind: .missingField) }
        guard let name = nameAny.stringValue else {
            throw ThemeError(file: file, field: "name", kind: .wrongType(expected: "a string"))
        }
        var palette: [String: TerminalColor] = [:]
        if let p = root["palette"] {
            guard let dict = p.objectValue else {
                throw ThemeError(file: file, field: "palette", kind: .wrongType(expected: "an object"))
            }
            for (key, value) in dict {
                let field = "palette.\(key)"
                guard let s = colorLiteral(value) else {
                    throw ThemeError(file: file, field: field, kind: .wrongType(expected: "a colour string or 0-255"))
                }
                guard let c = TerminalColor(literal: s) else {
                    throw ThemeError(file: file, field: field, kind: .unknownColor(s))
                }
                palette[key] = c
            }
        }
        guard let rolesAny = root["roles"] else { throw ThemeError(file: file, field: "roles", kind: .missingField) }
        guard let roles = rolesAny.objectValue else {
            throw ThemeError(file: file, field: "roles", kind: .wrongType(expected: "an object"))
        }
        var styles: [StyleRole: RoleStyle] = [:]
        for key in roles.keys.sorted() {
            let field = "roles.\(key)"
            guard let role = StyleRole(rawValue: key) else {
                throw ThemeError(file: file, field: field, kind: .unknownRole(key))
            }
            guard let spec = roles[key]?.objectValue else {
                throw ThemeError(file: file, field: field, kind: .wrongType(expected: "an object"))
            }
            var style = RoleStyle()
            for sub in spec.keys.sorted() {
                let subField = "\(field).\(sub)"
                switch sub {
                case "fg", "bg":
                    guard let s = colorLiteral(spec[sub]!) else {
                        throw ThemeError(file: file, field: subField, kind: .wrongType(expected: "a colour string or 0-255"))
                    }
                    guard let c = palette[s] ?? TerminalColor(literal: s) else {
                        throw ThemeError(file: file, field: subField, kind: .unknownColor(s))
                    }
                    if sub == "fg" { style.foreground = c } else { style.background = c }
                case "attrs":
                    guard let list = spec[sub]?.arrayValue else {
                        throw ThemeError(file: file, field: subField, kind: .wrongType(expected: "an array of strings"))
                    }
                    for (i, item) in list.enumerated() {
                        guard let a = item.stringValue else {
                            throw ThemeError(file: file, field: "\(subField)[\(i)]", kind: .wrongType(expected: "a string"))
                        }
                        guard let attr = TextAttributes.names[a] else {
                            throw ThemeError(file: file, field: "\(subField)[\(i)]", kind: .unknownAttribute(a))
                        }
                        style.attributes.insert(attr)
                    }
                default:
                    throw ThemeError(file: file, field: subField, kind: .wrongType(expected: "one of fg, bg, attrs"))
                }
            }
            styles[role] = style
        }
        return Theme(name: name, styles: styles)
    }

    /// A colour as a string, or a whole number (a 256-colour index) as its digits.
    private static func colorLiteral(_ v: JSONValue) -> String? {
        switch v {
        case .string(let s): s
        case .number(let n) where n.rounded() == n && abs(n) < 1e9: String(Int(n))
        default: nil
        }
    }
}

/// Finds themes: built-ins plus `<name>.json` files in the given directories (later entries win).
public struct ThemeCatalog: Sendable {
    public var directories: [URL]

    public init(directories: [URL]) { self.directories = directories }

    /// Names of all themes: the built-ins in their fixed order, then extra files alphabetically.
    public func names() -> [String] {
        var extra = Set<String>()
        for dir in directories {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for f in files where f.hasSuffix(".json") { extra.insert(String(f.dropLast(5))) }
        }
        let builtIn = BuiltInThemes.names
        return builtIn + extra.subtracting(builtIn).sorted()
    }

    /// Loads a theme by name. A file in `directories` overrides the built-in of the same name.
    /// A broken or missing file falls back to the built-in (or `default`); the error is returned
    /// alongside so the caller can flash it.
    public func load(_ name: String) -> (theme: Theme, error: ThemeError?) {
        for dir in directories.reversed() {
            let url = dir.appendingPathComponent(name + ".json")
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            let fallback = BuiltInThemes.theme(named: name) ?? BuiltInThemes.defaultTheme
            guard let data = FileManager.default.contents(atPath: url.path) else {
                return (fallback, ThemeError(file: url.path, field: "", kind: .unreadable))
            }
            do {
                return (try Theme.parse(data, file: url.path), nil)
            } catch {
                return (fallback, error)
            }
        }
        if let t = BuiltInThemes.theme(named: name) { return (t, nil) }
        return (BuiltInThemes.defaultTheme, ThemeError(file: name, field: "", kind: .unknownTheme(name)))
    }

    /// The theme to use: `monochrome` when colour is unavailable or unwanted (`NO_COLOR` set, or
    /// fewer than 8 colours), else `theme`.
    public static func effective(_ theme: Theme, colors: Int, noColor: Bool) -> Theme {
        if noColor || colors < 8 {
            return theme.isAttributesOnly ? theme : BuiltInThemes.monochrome
        }
        return theme
    }
}
