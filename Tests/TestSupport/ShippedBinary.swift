// The binary the journeys drive: the one that ships, built the way README builds it.
import Foundation

/// The `authdeck` executable that end-to-end tests run: `$AUTHDECK_BINARY` when set, else the
/// release build README makes (`scripts/build` → `.build/release/authdeck`: static Swift
/// runtime, FoundationEssentials only, libraries opened on use). Never the debug build: the test
/// process links full Foundation and a dynamic runtime, so a debug binary hides what differs.
public enum ShippedBinary {
    /// The checkout's root (from this file's path).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The executable's path (it may not exist yet; see ``problem``).
    public static let path: String = {
        if let path = ProcessInfo.processInfo.environment["AUTHDECK_BINARY"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent(".build/release/authdeck").path
    }()

    /// Why the binary cannot be used as it is: missing, or older than a file under `Sources/`
    /// (a stale release build would test yesterday's code), or `$AUTHDECK_BINARY_UNAVAILABLE`
    /// (set by scripts/test on the suites it runs while the release build is still going). Nil
    /// when it is ready.
    public static let problem: String? = {
        if let reason = ProcessInfo.processInfo.environment["AUTHDECK_BINARY_UNAVAILABLE"], !reason.isEmpty { return reason }
        let fm = FileManager.default
        let build = "run scripts/build (scripts/test does, into .build-release)"
        // The launcher and, beside it, the full program it hands every other call to.
        let fullProgram = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("authdeck-full").path
        let installed = URL(fileURLWithPath: path).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("libexec/authdeck/authdeck-full").path
        guard fm.isExecutableFile(atPath: path) else { return "\(path) is not built: \(build)" }
        guard fm.isExecutableFile(atPath: fullProgram) || fm.isExecutableFile(atPath: installed) else {
            return "\(fullProgram) is not built: \(build)"
        }
        if ProcessInfo.processInfo.environment["AUTHDECK_BINARY"].map({ !$0.isEmpty }) == true { return nil }
        let sources = packageRoot.appendingPathComponent("Sources")
        // Each executable is linked from its own modules only (SwiftPM relinks it when one of them
        // changes): the launcher from a few, the full program from all of Sources but the launcher's own.
        let launcherModules = ["Launcher", "QuickToken", "TextSupport", "LibraryLoader", "CSodium", "CJansson", "CKeyutils", "CXAttr", "CSystemdBus"]
        let builtFrom: [(String, (String) -> Bool)] = [
            (path, { name in launcherModules.contains { name.hasPrefix($0 + "/") } }),
            (fullProgram, { name in !name.hasPrefix("Launcher/") }),
        ]
        for (binary, isSource) in builtFrom {
            guard let built = (try? fm.attributesOfItem(atPath: binary))?[.modificationDate] as? Date else { continue }
            let newer = fm.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.first { name in
                guard isSource(name) else { return false }
                guard let changed = (try? fm.attributesOfItem(atPath: sources.appendingPathComponent(name).path))?[.modificationDate] as? Date
                else { return false }
                return changed > built
            }
            if let newer { return "\(binary) is older than Sources/\(newer): \(build)" }
        }
        return nil
    }()
}
