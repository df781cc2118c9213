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

    /// The full program's candidate paths for the launcher at `launcher` (a real path), installed
    /// layout first.
    public static func fullProgramCandidates(launcher: String) -> [String] {
        let directory = parent(launcher)
        return ["\(parent(directory))/libexec/authdeck/\(fullProgramName)", "\(directory)/\(fullProgramName)"]
    }

    /// The launcher beside the full program at `fullProgram` (a real path): what git and the
    /// systemd units should run. Nil when `fullProgram` is not in either layout.
    public static func launcher(fullProgram: String) -> String? {
        let directory = parent(fullProgram)
        guard fullProgram.utf8.elementsEqual("\(directory)/\(fullProgramName)".utf8) else { return nil }
        let installed = "/libexec/authdeck"
        if directory.utf8.count > installed.utf8.count, directory.utf8.reversed().starts(with: installed.utf8.reversed()) {
            let prefix = String(decoding: directory.utf8.dropLast(installed.utf8.count), as: UTF8.self)
            return "\(prefix)/bin/\(launcherName)"
        }
        return "\(directory)/\(launcherName)"
    }

    /// This process's executable (`/proc/self/exe`, links resolved); nil when it cannot be read.
    public static func runningExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        let head = String(path.utf8[..<slash]) ?? ""
        return head.isEmpty ? "" : head
    }
}
