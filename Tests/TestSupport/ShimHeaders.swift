// A C shim module (Sources/C*/shim.h) that declares a library's functions instead of including
// its headers, checked against those headers: compiled after them, a prototype that differs is a
// "conflicting types" error.
import Foundation

public enum ShimHeaders {
    /// The compiler's complaints when `Sources/<module>/shim.h` is compiled after `#include
    /// <header>` (with `pkg-config --cflags` of `pkgConfig`, when given); nil when it compiles.
    public static func problems(module: String, header: String, pkgConfig: String? = nil) throws -> String? {
        let shimDirectory = ShippedBinary.packageRoot.appendingPathComponent("Sources/\(module)").path
        let flags = pkgConfig.map { "$(pkg-config --cflags \($0))" } ?? ""
        let script = """
            set -e
            CC=$(command -v clang || command -v cc)
            printf '#include <\(header)>\\n#include "shim.h"\\n' | "$CC" -fsyntax-only -Werror \(flags) -I "$1" -x c -
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, "sh", shimDirectory]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : String(decoding: output, as: UTF8.self)
    }
}
