// Through the shipped binary, with no terminal: a machine account of the bundled
// provider's confidential client (client credentials, the secret from a file), git fetching
// through the git server fixture with its token, and the secret nowhere in argv, output or the
// environment of a child.
import Foundation
import Testing
import TestSupport

@Suite("Machine account through the binary: provider add --grant client-credentials, login, token, status, exec, git")
struct MachineAccountCLITests {
    @Test("A client-credentials account from a secret file: login without a browser, status says machine, git ls-remote works; the secret in no output or child environment")
    func machineAccountEndToEnd() async throws {
        let idp = try await LocalIdentityProvider.shared()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        let server = try await GitServerFixture.start(idp: idp, home: home)
        defer { Task { await server.stop() } }
        let secret = try #require(idp.confidentialClient.clientSecret?.exposedValue)
        let secretFile = home.root.appendingPathComponent("ci-secret")
        _ = FileManager.default.createFile(atPath: secretFile.path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600])
        var outputs: [RunResult] = []
        let added = try await home.run(["provider", "add", "ci", "--issuer", idp.issuer.absoluteString, "--client-id", idp.confidentialClient.clientID,
                                        "--grant", "client-credentials", "--client-secret-file", secretFile.path, "--scope", "read",
                                        "--git-host", server.host])
        try #require(added.exitCode == 0, "\(added)")
        // No browser: one that would be opened fails the sign-in.
        let login = try await home.run(["login", "ci"], extra: ["BROWSER": "/bin/false"])
        try #require(login.exitCode == 0, "\(login)")
        let (_, json) = try await home.statusJSON()
        let account = try #require((json["accounts"] as? [[String: Any]])?.first)
        #expect(account["machine"] as? Bool == true && account["subject"] as? String == idp.confidentialClient.clientID)
        let token = try await home.run(["token", "ci"])
        #expect(token.exitCode == 0 && !token.stdout.isEmpty, "\(token)")
        let refreshed = try await home.run(["refresh", "ci"])
        #expect(refreshed.exitCode == 0, "\(refreshed)")
        let exec = try await home.run(["exec", "ci", "--", "/usr/bin/env"])
        #expect(exec.exitCode == 0, "\(exec)")
        #expect(try await home.run(["setup-git"]).exitCode == 0)
        let remote = try await GitCredentialHelperTests.git(["ls-remote", server.url], in: home.root, home: home)
        #expect(remote.exitCode == 0 && remote.stdout.contains("refs/heads/main"), "\(remote)")
        // provider show names the grant and where the credential lives, never the secret.
        let shown = try await home.run(["provider", "show", "ci"])
        #expect(shown.stdout.contains("grant: client credentials") && shown.stdout.contains("(secret in the credential store)"), "\(shown)")
        // django-oauth-toolkit does no token exchange (RFC 8693): the refusal is named, the account kept.
        let exchange = try await home.run(["token", "ci", "--exchange-for", "billing", "--requested-token-type", "jwt"])
        #expect(exchange.exitCode != 0 && exchange.stderr.contains("does not do token exchange"), "\(exchange)")
        #expect(try await home.run(["token", "ci"]).exitCode == 0)
        outputs += [added, login, token, refreshed, exec, remote, shown, exchange]
        for output in outputs {
            #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret), "the client secret in a command's output")
        }
        for file in try FileManager.default.subpathsOfDirectory(atPath: home.root.appendingPathComponent("config").path) {
            let text = (try? String(contentsOf: home.root.appendingPathComponent("config").appendingPathComponent(file), encoding: .utf8)) ?? ""
            #expect(!text.contains(secret), "the client secret in \(file)")
        }
    }
}
