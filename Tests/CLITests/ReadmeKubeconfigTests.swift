// README's kubeconfig for kubectl, as a newcomer copies it: valid YAML (loaded by PyYAML from the
// provider's pinned venv), a kubeconfig with the exec plugin, and the command it names prints the
// ExecCredential of the apiVersion it asks for.
import Foundation
import Testing
import TestSupport

@Suite("README: the kubectl kubeconfig", .serialized)
struct ReadmeKubeconfigTests {
    /// The ```yaml block of README's kubectl item, without the list item's indentation.
    static func kubeconfigBlock() throws -> String {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let item = try #require(readme.range(of: "- **kubectl**"), "README has the kubectl item")
        let rest = readme[item.upperBound...]
        let open = try #require(rest.range(of: "```yaml\n"), "a yaml block follows the kubectl item")
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : String($0) }.joined(separator: "\n")
    }

    /// `yaml.safe_load` of `text`, as JSON.
    static func loadYAML(_ text: String, in directory: URL) async throws -> [String: Any] {
        let file = directory.appendingPathComponent("kubeconfig")
        try Data(text.utf8).write(to: file)
        let script = "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"
        let result = try await RunningCommand(["-c", script, file.path], environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
                                              executable: LocalIdentityProvider.pythonPath).wait()
        try #require(result.exitCode == 0, "PyYAML refused README's kubeconfig: \(result.stderr)")
        return try jsonObject(result.stdout)
    }

    @Test("The kubeconfig is YAML with the exec plugin; its command prints the ExecCredential it asks for; the https note is there")
    func kubeconfigLoads() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let config = try await Self.loadYAML(try Self.kubeconfigBlock(), in: home.root)
        #expect(config["apiVersion"] as? String == "v1" && config["kind"] as? String == "Config")
        let users = try #require(config["users"] as? [[String: Any]])
        let exec = try #require((users.first?["user"] as? [String: Any])?["exec"] as? [String: Any], "\(config)")
        #expect(exec["command"] as? String == "authdeck")
        #expect(exec["interactiveMode"] as? String == "Never")
        let args = try #require(exec["args"] as? [String])
        #expect(args == ["token", "--exec-credential"])
        let clusters = try #require(config["clusters"] as? [[String: Any]])
        let server = try #require((clusters.first?["cluster"] as? [String: Any])?["server"] as? String)
        #expect(server.hasPrefix("https://"), "kubectl runs exec plugins only for https servers")
        let contexts = try #require(config["contexts"] as? [[String: Any]])
        let context = try #require(contexts.first?["context"] as? [String: Any])
        #expect(context["user"] as? String == users.first?["name"] as? String && context["cluster"] as? String == clusters.first?["name"] as? String)
        #expect(config["current-context"] as? String == contexts.first?["name"] as? String)

        // What kubectl would run: the ExecCredential of the apiVersion the kubeconfig names.
        let credential = try jsonObject(try await home.run(args).stdout)
        #expect(credential["apiVersion"] as? String == exec["apiVersion"] as? String)
        #expect(credential["kind"] as? String == "ExecCredential")

        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("kubectl runs exec plugins only for an `https://` server"))
    }

    @Test("The old one-line snippet is what PyYAML refuses (the test can fail)")
    func oneLineSnippetIsRefused() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-yaml-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = "users: - name: me  user: exec: {apiVersion: client.authentication.k8s.io/v1, command: authdeck, args: [token, --exec-credential], interactiveMode: Never}\n"
        try Data(old.utf8).write(to: dir.appendingPathComponent("kubeconfig"))
        let script = "import sys, yaml; yaml.safe_load(open(sys.argv[1]))"
        let result = try await RunningCommand(["-c", script, dir.appendingPathComponent("kubeconfig").path], environment: ["PATH": "/usr/bin:/bin"],
                                              executable: LocalIdentityProvider.pythonPath).wait()
        #expect(result.exitCode != 0 && result.stderr.contains("yaml"), "\(result)")
    }
}
