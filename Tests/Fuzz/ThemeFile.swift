// libFuzzer target (scripts/fuzz theme): the theme file parser (themes/README.md format).
// Compiled together with the TerminalUI files the parser needs (Theme, StyleRole,
// BuiltInThemeSources), which import only Foundation and TextSupport (Sanitizer).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzThemeFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    do {
        let theme = try Theme.parse(bytes, file: "fuzz.json")
        _ = String(describing: theme)
    } catch {
        _ = error.description
    }
    return 0
}
