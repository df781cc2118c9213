import Foundation
import Testing
@testable import TerminalUI

@Suite("Themes: roles × palette, files, errors")
struct ThemeTests {
    static let themesDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("themes")

    @Test("Each themes/<name>.json parses to the same theme as the built-in", arguments: BuiltInThemes.names)
    func filesMatchBuiltIns(name: String) throws {
        let url = Self.themesDir.appendingPathComponent(name + ".json")
        let data = try Data(contentsOf: url)
        let parsed = try Theme.parse(data, file: url.path)
        #expect(parsed == BuiltInThemes.theme(named: name))
        #expect(parsed.name == name)
    }

    @Test("Built-in themes style every role")
    func builtInsAreComplete() {
        for name in BuiltInThemes.names {
            let t = BuiltInThemes.theme(named: name)!
            #expect(Set(t.styles.keys) == Set(StyleRole.allCases), "\(name) misses roles")
        }
    }

    @Test("monochrome uses attributes only; NO_COLOR and < 8 colours fall back to it")
    func attributesOnly() {
        #expect(BuiltInThemes.monochrome.isAttributesOnly)
        #expect(!BuiltInThemes.defaultTheme.isAttributesOnly)
        #expect(ThemeCatalog.effective(BuiltInThemes.defaultTheme, colors: 256, noColor: true).name == "monochrome")
        #expect(ThemeCatalog.effective(BuiltInThemes.defaultTheme, colors: 2, noColor: false).name == "monochrome")
        #expect(ThemeCatalog.effective(BuiltInThemes.defaultTheme, colors: 256, noColor: false).name == "default")
    }

    @Test("Broken theme files name the file and the field", arguments: [
        (#"{"name": "x", "roles": {"text": {"fg": "purpel"}}}"#, "roles.text.fg", ThemeError.Kind.unknownColor("purpel")),
        (#"{"name": "x", "roles": {"txt": {}}}"#, "roles.txt", .unknownRole("txt")),
        (#"{"name": "x", "roles": {"text": {"attrs": ["blink"]}}}"#, "roles.text.attrs[0]", .unknownAttribute("blink")),
        (#"{"name": "x", "palette": {"a": "nope"}, "roles": {}}"#, "palette.a", .unknownColor("nope")),
        (#"{"name": "x", "roles": {"text": {"fg": 300}}}"#, "roles.text.fg", .unknownColor("300")),
        (#"{"name": "x", "roles": {"text": "bold"}}"#, "roles.text", .wrongType(expected: "an object")),
        (#"{"roles": {}}"#, "name", .missingField),
        (#"{"name": "x"}"#, "roles", .missingField),
        (#"{"name": "x", "roles": {"#, "", .invalidJSON),
    ])
    func errors(json: String, field: String, kind: ThemeError.Kind) {
        #expect(throws: ThemeError(file: "themes/broken.json", field: field, kind: kind)) {
            try Theme.parse(Data(json.utf8), file: "themes/broken.json")
        }
    }

    @Test("Palette names resolve; missing roles fall back to the text role")
    func paletteAndFallback() throws {
        let json = #"{"name": "t", "palette": {"ok": "green", "x": 208}, "roles": {"text": {"fg": "x"}, "statusValid": {"fg": "ok", "attrs": ["bold"]}}}"#
        let t = try Theme.parse(Data(json.utf8), file: "t.json")
        #expect(t.style(for: .statusValid) == RoleStyle(foreground: .index(2), attributes: .bold))
        #expect(t.style(for: .claimKey) == RoleStyle(foreground: .index(208)))
    }

    @Test("A broken file falls back to the built-in and reports the error")
    func catalogFallback() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-themes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(#"{"name": "light", "roles": {"text": {"fg": "purpel"}}}"#.utf8).write(to: dir.appendingPathComponent("light.json"))
        try Data(#"{"name": "mine", "roles": {}}"#.utf8).write(to: dir.appendingPathComponent("mine.json"))
        let catalog = ThemeCatalog(directories: [dir])
        let (theme, error) = catalog.load("light")
        #expect(theme == BuiltInThemes.theme(named: "light"))
        #expect(error?.field == "roles.text.fg")
        #expect(error?.file == dir.appendingPathComponent("light.json").path)
        #expect(catalog.names() == BuiltInThemes.names + ["mine"])
        #expect(catalog.load("mine").error == nil)
        #expect(catalog.load("absent").error?.kind == .unknownTheme("absent"))
    }
}
