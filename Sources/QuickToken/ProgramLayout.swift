#if canImport(Glibc)
import Glibc
#endif

/// Where the two executables live. `authdeck` is the launcher: a small image (the Swift standard
/// library, no Foundation) that answers `authdeck token` from what is stored when it can
/// (``QuickAnswer``) and otherwise replaces itself (`execv`, same arguments, environment and
/// process) with the full program, `authdeck-full`:
///
/// - installed: `PREFIX/bin/authdeck` and `PREFIX/libexec/authdeck/authdeck-full`;
/// - built: both in the build directory (`.build/release/authdeck`, `.build/release/authdeck-full`).
public enum ProgramLayout {
    public static let launcherName = "authdeck"
    public static let fullProgramName = "authdeck-full"

    /// authdeck's version (`authdeck --version`, the package's).
    public static let version = "0.1.0"

    /// The full program's candidate paths for the launcher at `launcher` (a real, absolute path),
    /// installed layout first; none for a relative path (never a program found from the current
    /// directory).
    public static func fullProgramCandidates(launcher: String) -> [String] {
        guard launcher.utf8.first == UInt8(ascii: "/") else { return [] }
        let directory = parent(launcher)
        return [join(parent(directory), "libexec/authdeck/\(fullProgramName)"), join(directory, fullProgramName)]
    }

    /// The launcher beside the full program at `fullProgram` (a real, absolute path): what git and
    /// the systemd units should run. Nil when `fullProgram` is not in either layout.
    public static func launcher(fullProgram: String) -> String? {
        guard fullProgram.utf8.first == UInt8(ascii: "/") else { return nil }
        let directory = parent(fullProgram)
        guard fullProgram.utf8.elementsEqual(join(directory, fullProgramName).utf8) else { return nil }
        let installed = "/libexec/authdeck"
        if directory.utf8.count > installed.utf8.count, directory.utf8.reversed().starts(with: installed.utf8.reversed()) {
            let prefix = String(decoding: directory.utf8.dropLast(installed.utf8.count), as: UTF8.self)
            return "\(prefix)/bin/\(launcherName)"
        }
        return join(directory, launcherName)
    }

    /// The directory of an absolute `path`: `/a/b` → `/a`, `/a` → `/`.
    static func parent(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        let head = String(path.utf8[..<slash]) ?? ""
        return head.isEmpty ? "/" : head
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.utf8.last == UInt8(ascii: "/") ? directory + name : "\(directory)/\(name)"
    }
}
