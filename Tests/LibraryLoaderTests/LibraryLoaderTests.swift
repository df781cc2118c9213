@testable import AuthEngineLive
@testable import CredentialStoreLive
@testable import TerminalUINCurses
import Foundation
import LibraryLoader
import Testing
import TestSupport

/// The dlopen loader: typed errors that name the library and the Debian package, every symbol
/// authdeck calls present in the installed libraries, and none of the lazily loaded libraries
/// linked into the binary.
@Suite("LibraryLoader")
struct LibraryLoaderTests {
    static let bogus = LibrarySpec(soname: "libauthdeck-no-such-library.so.7", debianPackage: "libauthdeck-bogus7")

    @Test("A library that is not installed: notLoadable, naming the soname and the Debian package")
    func missingLibrary() {
        #expect(throws: LibraryLoadError.self) { try DynamicLibrary.open(Self.bogus) }
        do {
            _ = try DynamicLibrary.open(Self.bogus)
        } catch {
            #expect(error.reason == .notLoadable)
            #expect(error.library == Self.bogus)
            #expect(error.description.contains("libauthdeck-no-such-library.so.7"))
            #expect(error.description.contains("apt-get install libauthdeck-bogus7"))
            #expect(error.detail.contains("libauthdeck-no-such-library.so.7"), "dlerror's text: \(error.detail)")
        }
    }

    @Test("A symbol the library lacks: missingSymbol, naming it")
    func missingSymbol() throws {
        let libc = try DynamicLibrary.open(LibrarySpec(soname: "libc.so.6", debianPackage: "libc6"))
        _ = try libc.symbol("getpid")
        do {
            _ = try libc.symbol("authdeck_no_such_function")
            Issue.record("dlsym found a symbol that does not exist")
        } catch {
            #expect(error.reason == .missingSymbol("authdeck_no_such_function"))
            #expect(error.description.contains("authdeck_no_such_function"))
            #expect(error.description.contains("libc6"))
        }
    }

    @Test("A resolved function is callable")
    func callsThroughTheResolvedPointer() throws {
        typealias GetPID = @convention(c) () -> Int32
        let libc = try DynamicLibrary.open(LibrarySpec(soname: "libc.so.6", debianPackage: "libc6"))
        let getpidFunction: GetPID = try libc.function("getpid")
        #expect(getpidFunction() == getpid())
    }

    @Test("Every function authdeck calls resolves in the installed libcurl, libsecret, gio, libcrypto, libqrencode and ncurses")
    func installedLibrariesResolve() throws {
        _ = try Curl.load()
        _ = try LibSecret.load()
        _ = try GDBus.load()
        _ = try LibCrypto.load()
        _ = try LibQREncode.load()
        _ = try NCurses.load()
    }

    @Test("libncursesw missing: notLoadable naming libncursesw6")
    func ncursesMissing() {
        let missing = LibrarySpec(soname: "libncursesw-missing.so.6", debianPackage: "libncursesw6")
        #expect(throws: LibraryLoadError(library: missing, reason: .notLoadable,
                                         detail: "libncursesw-missing.so.6: cannot open shared object file: No such file or directory")) {
            try NCurses.load(missing)
        }
    }

    @Test("libqrencode missing: notLoadable naming libqrencode4; libqrencode present: a QR matrix")
    func qrencodeLoadsOnUse() throws {
        let missing = LibrarySpec(soname: "libqrencode-missing.so.4", debianPackage: "libqrencode4")
        do {
            _ = try LibQREncode.load(missing)
            Issue.record("loaded a library that does not exist")
        } catch {
            #expect(error.reason == .notLoadable)
            #expect(error.description.contains("sudo apt-get install libqrencode4"))
        }
        let matrix = try #require(try QRCode.encode("https://example.test/device?user_code=WDJB-MJHT"))
        #expect(matrix.count >= 21 && matrix.allSatisfy { $0.count == matrix.count })
    }

    @Test("libcurl, libsecret, libcrypto missing: the loaders' errors name the Debian package")
    func wrappersReportTheMissingLibrary() {
        let missingCurl = LibrarySpec(soname: "libcurl-missing.so.4", debianPackage: "libcurl4")
        #expect(throws: LibraryLoadError(library: missingCurl, reason: .notLoadable,
                                         detail: "libcurl-missing.so.4: cannot open shared object file: No such file or directory")) {
            try Curl.load(missingCurl)
        }
        let missingSecret = LibrarySpec(soname: "libsecret-missing.so.0", debianPackage: "libsecret-1-0")
        do {
            _ = try LibSecret.load(missingSecret)
            Issue.record("loaded a library that does not exist")
        } catch {
            #expect(error.description.contains("sudo apt-get install libsecret-1-0"))
        }
        let missingCrypto = LibrarySpec(soname: "libcrypto-missing.so.3", debianPackage: "libssl3")
        #expect(throws: LibraryLoadError.self) { try LibCrypto.load(missingCrypto) }
    }

    @Test("The authdeck binary does not link libcurl, libsecret, GLib, libcrypto, libqrencode, ncurses or libsystemd (they are loaded on use)")
    func binaryDoesNotLinkLazyLibraries() throws {
        let binary = ShippedBinary.path
        try #require(ShippedBinary.problem == nil, "\(ShippedBinary.problem ?? "")")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        process.arguments = ["-d", binary]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let needed = output.split(separator: "\n").filter { $0.contains("(NEEDED)") }.map(String.init)
        #expect(!needed.isEmpty, "readelf printed the NEEDED entries")
        for library in ["libcurl", "libsecret", "libglib", "libgio", "libgobject", "libcrypto", "libqrencode", "libncurses", "libtinfo", "libsystemd"] {
            #expect(!needed.contains { $0.contains(library) }, "\(library) is linked: \(needed)")
        }
    }

    @Test("Start-up: no module imports Foundation (FoundationEssentials only), so ICU and FoundationInternationalization stay out of the static binary")
    func modulesImportFoundationEssentialsOnly() throws {
        for (file, text) in try Self.sourceFiles() {
            let imports = text.split(separator: "\n").filter { $0.hasPrefix("import Foundation") && $0 != "import FoundationEssentials" }
            #expect(imports.isEmpty, "\(file): \(imports) (use FoundationEssentials; TextSupport has the string helpers)")
        }
    }

    @Test("Comments in Sources stand alone: none points at an issue number of a tracker outside the repository")
    func sourcesNameNoIssueNumbers() throws {
        let pattern = try Regex(#"(?i)\bissues?\s+#?[0-9]+"#)
        for (file, text) in try Self.sourceFiles() {
            let hits = text.split(separator: "\n").filter { $0.contains(pattern) }
            #expect(hits.isEmpty, "\(file): \(hits) (say what the code does and why, not which issue asked for it)")
        }
    }

    @Test("Benchmark-only code is out of the shipped API: SignIn.adoptGrant is @_spi(Benchmark), and no module in Sources imports that SPI")
    func benchmarkOnlyCodeIsSPI() throws {
        for (file, text) in try Self.sourceFiles() {
            let imports = text.split(separator: "\n").filter { $0.drop(while: { $0 == " " }).hasPrefix("@_spi(Benchmark) import") }
            #expect(imports.isEmpty, "\(file): \(imports) (only the storm driver and its tests import the benchmark's SPI)")
        }
        let adopt = try #require(Self.sourceFiles().first { $0.file == "AppCore/UseCases/SignIn+AdoptGrant.swift" }?.text)
        let declarations = adopt.split(separator: "\n").filter { $0.contains("func adoptGrant(") }
        #expect(declarations.count == 1, "found adoptGrant")
        #expect(declarations.allSatisfy { $0.contains("@_spi(Benchmark) public func adoptGrant(") }, "\(declarations)")
    }

    @Test("Lines in Sources fit a screen: none is wider than 150 characters")
    func sourceLinesFitAScreen() throws {
        for (file, text) in try Self.sourceFiles() {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let wide = lines.indices.filter { lines[$0].count > 150 }.map { "line \($0 + 1) (\(lines[$0].count))" }
            #expect(wide.isEmpty, "\(file): \(wide) (wrap argument lists one per line, split long literals with +, extract a let)")
        }
    }

    @Test("What builds the release builds both executables: a launcher without authdeck-full beside it cannot hand a call over")
    func releaseBuildsMakeBothExecutables() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let places = ["scripts", ".ci"].map { root.appendingPathComponent($0) }
        var checked = 0
        for place in places {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: place.path)) ?? [] {
                guard let text = try? String(contentsOf: place.appendingPathComponent(name), encoding: .utf8) else { continue }
                let launcherOnly = text.components(separatedBy: "--product authdeck").dropFirst().contains { rest in
                    !rest.hasPrefix("-full")
                }
                guard launcherOnly else { continue }
                checked += 1
                let buildsBoth = text.contains("--product authdeck-full")
                #expect(buildsBoth, "\(place.lastPathComponent)/\(name) builds the launcher alone")
            }
        }
        #expect(checked >= 1, "found scripts/build (which scripts/test, scripts/demo and README use: DemoScriptTests.oneReleaseBuild)")
    }

    /// Every Swift file under Sources/ (its path below Sources/ and its text).
    static func sourceFiles() throws -> [(file: String, text: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "found the sources")
        return try files.map { ($0, try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8)) }
    }
}
