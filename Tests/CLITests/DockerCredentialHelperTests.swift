// With the shipped binary: docker's credential-helper protocol, the binary run as
// `docker-credential-authdeck` (a symlink of that name, as docker finds helpers on $PATH).
import Foundation
import Testing
import TestSupport

@Suite("docker credential helper: docker-credential-authdeck get|list|store|erase", .serialized)
struct DockerCredentialHelperTests {
    @Test("get answers a registry a provider serves with its username and the access token; an unknown one is 'credentials not found' and exit 1; list; store and erase change nothing")
    func protocolThroughTheSymlink() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        #expect(try await home.run(["provider", "add", "local", "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID,
                                    "--registry", "127.0.0.1:5000", "--registry", "*.registry.example", "--registry-username", "oauth2accesstoken"]).exitCode == 0)
        try await home.login()
        if let problem = ShippedBinary.problem { throw ShippedBinaryMissing(problem: problem) }
        let bin = try makeDirectory(home.root.appendingPathComponent("bin"))
        let helper = bin.appendingPathComponent("docker-credential-authdeck")
        try FileManager.default.createSymbolicLink(atPath: helper.path, withDestinationPath: URL(fileURLWithPath: authdeckBinary).resolvingSymlinksInPath().path)
        func run(_ operation: String, _ stdin: String) async throws -> RunResult {
            try await RunningCommand([operation], environment: home.environment, stdin: Data(stdin.utf8), executable: helper.path).wait()
        }
        let token = try await home.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let got = try await run("get", "http://127.0.0.1:5000\n")
        #expect(got.exitCode == 0, "\(got)")
        let answer = try jsonObject(got.stdout)
        #expect(answer["ServerURL"] as? String == "http://127.0.0.1:5000" && answer["Username"] as? String == "oauth2accesstoken")
        #expect(answer["Secret"] as? String == token)
        let pattern = try jsonObject(try await run("get", "eu.registry.example").stdout)
        #expect(pattern["Username"] as? String == "oauth2accesstoken")

        let unknown = try await run("get", "https://index.docker.io/v1/\n")
        #expect(unknown.exitCode == 1 && unknown.stdout == "credentials not found in native keychain\n", "\(unknown) \(unknown.stdout)")
        let insecure = try await run("get", "http://eu.registry.example")
        #expect(insecure.exitCode != 0 && insecure.stdout.isEmpty && insecure.stderr.contains("only over https"), "\(insecure)")
        let bad = try await run("get", "https://user@127.0.0.1:5000")
        #expect(bad.exitCode == 2 && bad.stdout.isEmpty, "\(bad)")

        let list = try jsonObject(try await run("list", "").stdout)
        #expect(list as NSDictionary == ["127.0.0.1:5000": "oauth2accesstoken"] as NSDictionary, "patterns are not listed: \(list)")
        for operation in ["store", "erase"] {
            let result = try await run(operation, operation == "store" ? #"{"ServerURL":"x","Username":"u","Secret":"s"}"# : "x\n")
            #expect(result.exitCode == 0 && result.stdout.isEmpty, "\(operation): \(result)")
        }
        #expect(try await run("get", "http://127.0.0.1:5000").exitCode == 0, "still answered after erase")
        // The same through the subcommand.
        let subcommand = try await home.run(["docker-credential", "get"], stdin: Data("127.0.0.1:5000".utf8))
        #expect(try jsonObject(subcommand.stdout)["Secret"] as? String == token)
    }

    @Test("skopeo with credHelpers in containers-auth.json inspects an image at a registry that accepts only an active token; without the helper it is refused")
    func skopeoInspect() async throws {
        let idp = try await CLIProvider.shared.provider()
        var home = try CLIHome(provider: idp)
        defer { home.remove() }
        let secretFile = home.root.appendingPathComponent("registry-client-secret")
        _ = FileManager.default.createFile(atPath: secretFile.path, contents: Data(try #require(idp.confidentialClient.clientSecret?.exposedValue).utf8),
                                           attributes: [.posixPermissions: 0o600])
        let registry = try FixtureProcess.spawn(
            executable: "/usr/bin/python3",
            arguments: [packageRoot.appendingPathComponent("Tests/RegistryServer/registry-server.py").path, "--introspect", idp.endpoints.introspection.absoluteString,
                        "--client-id", idp.confidentialClient.clientID, "--client-secret-file", secretFile.path],
            environment: ["PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "http_proxy": nil, "https_proxy": nil])
        defer { Task { _ = await registry.terminate() } }
        let line = try await registry.readFirstLine(timeout: .seconds(20))
        let port = try #require(line.hasPrefix("PORT ") ? Int(line.dropFirst(5)) : nil, "\(line)")
        let host = "127.0.0.1:\(port)"
        #expect(try await home.run(["provider", "add", "local", "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID,
                                    "--registry", host, "--registry-username", "oauth2accesstoken"]).exitCode == 0)
        try await home.login()
        if let problem = ShippedBinary.problem { throw ShippedBinaryMissing(problem: problem) }
        let bin = try makeDirectory(home.root.appendingPathComponent("bin"))
        try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("docker-credential-authdeck").path,
                                                   withDestinationPath: URL(fileURLWithPath: authdeckBinary).resolvingSymlinksInPath().path)
        home.environment["PATH"] = "\(bin.path):/usr/bin:/bin"
        let authFile = home.root.appendingPathComponent("containers-auth.json")
        func inspect(_ auth: String) async throws -> RunResult {
            try auth.write(to: authFile, atomically: true, encoding: .utf8)
            return try await RunningCommand(["inspect", "--authfile", authFile.path, "--tls-verify=false", "docker://\(host)/demo:latest"],
                                            environment: home.environment, executable: "/usr/bin/skopeo").wait(timeout: 60)
        }
        let refused = try await inspect("{}")
        #expect(refused.exitCode != 0, "\(refused)")
        let inspected = try await inspect(#"{"credHelpers": {"\#(host)": "authdeck"}}"#)
        #expect(inspected.exitCode == 0, "\(inspected)")
        #expect((try jsonObject(inspected.stdout)["RepoTags"] as? [String]) == ["latest"], "\(inspected.stdout)")
        #expect(registry.stderrText().contains("auth ok oauth2accesstoken"), "\(registry.stderrText())")
    }
}
