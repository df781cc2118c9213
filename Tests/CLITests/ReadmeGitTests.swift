// README's per-directory accounts block, run as written: each line through /bin/sh in a home
// with two accounts (aliases work and personal), `authdeck` on $PATH, ~/src/oss/project a git
// repository.
import Foundation
import Testing
import TestSupport

@Suite("README: per-directory accounts and git, run as written", .serialized)
struct ReadmeGitTests {
    /// The ```sh block of README's "Per-directory accounts and git" item, its lines unindented.
    static func block() throws -> [String] {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let item = try #require(readme.range(of: "- **Per-directory accounts and git**"))
        let rest = readme[item.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test("Each line succeeds; which names the rule in ~/src/work and the repository's git config in ~/src/oss/project; uninstall leaves no helper")
    func runsAsWritten() async throws {
        let idp = try await CLIProvider.shared.provider()
        var home = try CLIHome(provider: idp)
        defer { home.remove() }
        #expect(try await home.run(["provider", "add", "local", "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID,
                                    "--git-host", "git.example.test"]).exitCode == 0)
        try await home.login(user: "alice", extra: ["--name", "work"])
        try await home.login(user: "bob", extra: ["--name", "personal"])
        let bin = try makeDirectory(home.root.appendingPathComponent("bin"))
        try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("authdeck").path, withDestinationPath: authdeckBinary)
        home.environment["PATH"] = "\(bin.path):/usr/bin:/bin"
        home.environment["GIT_CONFIG_NOSYSTEM"] = "1"
        _ = try makeDirectory(home.root.appendingPathComponent("src/work"))
        try await runGit(["init", "-q"], in: try makeDirectory(home.root.appendingPathComponent("src/oss/project")), home: home)
        if let problem = ShippedBinary.problem { throw ShippedBinaryMissing(problem: problem) }

        var outputs: [String: String] = [:]
        let lines = try Self.block()
        #expect(lines.count == 7, "\(lines)")
        for line in lines {
            let result = try await RunningCommand(["-c", line], environment: home.environment, executable: "/bin/sh").wait()
            #expect(result.exitCode == 0, "\(line): \(result)")
            outputs[line] = result.stdout
        }
        let root = home.root.resolvingSymlinksInPath().path
        #expect(outputs["(cd ~/src/work && authdeck which)"] == "work (local/alice) — rule \(root)/src/work\n", "\(outputs)")
        #expect(outputs["(cd ~/src/oss/project && authdeck which)"] == "personal (local/bob) — git config (\(root)/src/oss/project/.git/config)\n", "\(outputs)")
        let gitconfig = (try? String(contentsOf: home.root.appendingPathComponent(".gitconfig"), encoding: .utf8)) ?? ""
        #expect(!gitconfig.contains("helper"), "setup-git --uninstall removed what setup-git wrote: \(gitconfig)")
        // Nor the section header it leaves empty.
        #expect(!gitconfig.contains("[credential"), "setup-git --uninstall left an empty section: \(gitconfig)")
    }
}
