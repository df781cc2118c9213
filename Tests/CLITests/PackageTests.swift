// The Debian package and scripts/install, proved as a user without the toolchain gets them:
// scripts/package from the shipped binary, lintian, the package unpacked into a throw-away root,
// the installed binary run with the Swift toolchain hidden (a private mount namespace over its
// directory), every man page rendered and linted, completion from the installed script, and
// scripts/install --uninstall leaving nothing.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("Installed like a tool: the Debian package, man pages, completion, scripts/install", .serialized)
struct PackageTests {
    /// Runs a program to completion (not the shipped binary: `executable` is given).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                    timeout: Double = 120) async throws -> RunResult {
        try await RunningCommand(arguments, environment: environment, executable: executable).wait(timeout: timeout)
    }

    /// The toolchain's root (`/opt/swift` for `/opt/swift/usr/bin/swift`), from PATH.
    static func toolchainRoot() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/swift"
            guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            let real = URL(fileURLWithPath: candidate).resolvingSymlinksInPath()
            return real.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        }
        throw ShippedBinaryMissing(problem: "no swift on PATH to hide")
    }

    /// The package built once for the suite (scripts/package and lintian take about 25 s).
    actor Shared {
        static let package = Shared()
        private var built: Task<(deb: String, root: String), any Error>?
        func unpacked() async throws -> (deb: String, root: String) {
            if let built { return try await built.value }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-package-\(getpid())")
            try? FileManager.default.removeItem(at: directory)
            let task = Task { try await PackageTests.unpackedPackage(in: directory) }
            built = task
            return try await task.value
        }
    }

    /// The package built from the shipped binary, unpacked: (the .deb, the root it was unpacked into).
    static func unpackedPackage(in directory: URL) async throws -> (deb: String, root: String) {
        if let problem = ShippedBinary.problem { throw ShippedBinaryMissing(problem: problem) }
        let built = try await run("/bin/bash", [packageRoot.appendingPathComponent("scripts/package").path, "--out", directory.path, "--binary", authdeckBinary])
        try #require(built.exitCode == 0, "scripts/package: \(built)")
        #expect(!built.stderr.contains("E: ") && !built.stderr.contains("W: "), "lintian has nothing to say: \(built.stderr)")
        let deb = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasSuffix(".deb") })
        let root = directory.appendingPathComponent("root").path
        let unpacked = try await run("/usr/bin/dpkg-deb", ["-x", directory.appendingPathComponent(deb).path, root])
        try #require(unpacked.exitCode == 0, "dpkg-deb -x: \(unpacked)")
        return (directory.appendingPathComponent(deb).path, root)
    }

    @Test("The package: lintian-clean, the binary needs no libswift, and runs token and status with the toolchain hidden")
    func packageRunsWithoutToolchain() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let (deb, root) = try await Shared.package.unpacked()
        let fields = try await Self.run("/usr/bin/dpkg-deb", ["-f", deb, "Package", "Depends", "Recommends"])
        #expect(fields.stdout.contains("Package: authdeck"))
        for library in ["libc6", "libsodium23", "libjansson4", "libcurl4", "libssl3", "libncursesw6"] {
            #expect(fields.stdout.contains(library), "Depends names \(library): \(fields.stdout)")
        }
        #expect(fields.stdout.contains("Recommends: libsecret-1-0, libqrencode4, libsystemd0, bash-completion"), "\(fields.stdout)")
        let installed = root + "/usr/bin/authdeck"
        let linked = try await Self.run("/usr/bin/ldd", [installed])
        #expect(linked.exitCode == 0 && !linked.stdout.contains("swift"), "no Swift runtime library at run time: \(linked.stdout)")

        // Hidden toolchain: an empty tmpfs over its directory, in a mount namespace of this run only.
        let toolchain = try Self.toolchainRoot()
        func hidden(_ arguments: [String]) async throws -> RunResult {
            let script = "mount -t tmpfs none \"$0\" && test ! -e \"$0/usr/bin/swift\" && exec \"$@\""
            // As root a mount namespace alone; otherwise inside a user namespace of our own.
            let namespace = getuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]
            return try await Self.run("/usr/bin/unshare", namespace + ["--propagation", "private", "/bin/sh", "-c", script, toolchain, installed] + arguments,
                                      environment: home.environment)
        }
        let version = try await hidden(["--version"])
        #expect(version.exitCode == 0 && version.stdout.hasPrefix("authdeck ") && version.stdout.contains("(commit "), "\(version)")
        let token = try await hidden(["token"])
        let expected = try await home.run(["token"])
        #expect(token.exitCode == 0 && !token.stdout.isEmpty && token.stdout == expected.stdout, "installed token: \(token)")
        let status = try await hidden(["status"])
        #expect(status.exitCode == 0 && status.stdout.contains("local/alice"), "installed status: \(status)")
    }

    @Test("Every man page renders with man -l and is mandoc-lint clean; each command's page lists its options")
    func manPages() async throws {
        let (_, root) = try await Shared.package.unpacked()
        var pages: [String] = []
        for section in ["man1", "man5"] {
            let folder = root + "/usr/share/man/" + section
            pages += try FileManager.default.contentsOfDirectory(atPath: folder).map { folder + "/" + $0 }
        }
        #expect(pages.contains { $0.hasSuffix("/authdeck.1.gz") } && pages.contains { $0.hasSuffix("/authdeck.5.gz") })
        var environment = ProcessInfo.processInfo.environment
        environment["MANPAGER"] = "cat"
        environment["MANWIDTH"] = "80"
        var rendered: [String: String] = [:]
        for page in pages {
            let man = try await Self.run("/usr/bin/man", ["-l", page], environment: environment)
            #expect(man.exitCode == 0 && man.stdout.contains("NAME") && man.stderr.isEmpty, "man -l \(page): \(man)")
            rendered[URL(fileURLWithPath: page).lastPathComponent] = man.stdout
            let lint = try await Self.run("/usr/bin/mandoc", ["-T", "lint", "-W", "all", page])
            #expect(lint.exitCode == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "mandoc -T lint \(page): \(lint)")
        }
        // The command table through --help: every command has a page, and its page every option.
        let home = try CLIHome()
        defer { home.remove() }
        for path in HelpAndUsageTests.commands {
            let name = (["authdeck"] + path).joined(separator: "-") + ".1.gz"
            let page = try #require(rendered[name], "a page for \(path.joined(separator: " "))")
            let help = try await home.run(path + ["--help"]).stdout
            let options = help.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                // `--name`, without what follows it in prose (`'COMMAND --help'.`).
                return words.first { $0.hasPrefix("--") }.map { String($0.prefix { $0 == "-" || $0.isLetter || $0.isNumber }) }
            }
            #expect(!options.isEmpty)
            for option in options where option != "--help" {
                #expect(page.contains(option), "\(name) lists \(option)")
            }
        }
    }

    @Test("systemd-analyze verify accepts the installed user units of authdeck check (the binary and the man page they name exist)")
    func systemdUnits() async throws {
        if let problem = ShippedBinary.problem { throw ShippedBinaryMissing(problem: problem) }
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-units-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let installed = try await Self.run("/bin/bash", [packageRoot.appendingPathComponent("scripts/install").path, "--prefix", prefix.path, "--binary", authdeckBinary])
        try #require(installed.exitCode == 0, "scripts/install: \(installed)")
        let units = prefix.path + "/lib/systemd/user"
        let service = try String(contentsOfFile: units + "/authdeck-check.service", encoding: .utf8)
        #expect(service.contains("ExecStart=\(prefix.path)/bin/authdeck check --all"), "\(service)")
        let runtime = prefix.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["MANPATH"] = prefix.path + "/share/man"
        let verify = try await Self.run("/usr/bin/systemd-analyze", ["verify", "--user", units + "/authdeck-check.timer", units + "/authdeck-check.service"],
                                        environment: environment)
        #expect(verify.exitCode == 0 && verify.stderr.isEmpty, "systemd-analyze verify: \(verify)")
    }

    @Test("bash with the installed completion completes 'authdeck to' to token; scripts/install --uninstall leaves nothing")
    func completionAndUninstall() async throws {
        if let problem = ShippedBinary.problem { throw ShippedBinaryMissing(problem: problem) }
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let install = packageRoot.appendingPathComponent("scripts/install").path
        let installed = try await Self.run("/bin/bash", [install, "--destdir", destination.path, "--prefix", "/usr", "--binary", authdeckBinary])
        try #require(installed.exitCode == 0, "scripts/install: \(installed)")
        let root = destination.path + "/usr"
        let script = """
        source "$1/share/bash-completion/completions/authdeck"
        COMP_WORDS=("$1/bin/authdeck" to); COMP_CWORD=1; _authdeck; printf '%s\\n' "${COMPREPLY[@]}"
        """
        let completion = try await Self.run("/bin/bash", ["--norc", "--noprofile", "-c", script, "bash", root])
        #expect(completion.exitCode == 0 && completion.stdout == "token\n", "\(completion)")
        for path in ["bin/authdeck", "share/man/man1/authdeck-token.1", "share/man/man5/authdeck.5", "share/zsh/vendor-completions/_authdeck",
                     "share/fish/vendor_completions.d/authdeck.fish", "share/doc/authdeck/README.md"] {
            #expect(FileManager.default.fileExists(atPath: root + "/" + path), "installed \(path)")
        }
        let removed = try await Self.run("/bin/bash", [install, "--destdir", destination.path, "--prefix", "/usr", "--uninstall"])
        #expect(removed.exitCode == 0, "\(removed)")
        let left = FileManager.default.enumerator(atPath: destination.path)?.allObjects as? [String] ?? []
        #expect(left.filter { $0 != "usr" }.isEmpty, "left behind: \(left)")
        let again = try await Self.run("/bin/bash", [install, "--destdir", destination.path, "--prefix", "/usr", "--uninstall"])
        #expect(again.exitCode == 1 && again.stderr.contains("nothing to uninstall"), "\(again)")
    }
}
