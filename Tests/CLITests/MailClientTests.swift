// Mail through authdeck's token: Debian's msmtp, configured with README's lines, delivers a
// message to an SMTP server (Tests/MailServer, aiosmtpd) whose AUTH XOAUTH2 checks the bearer
// token by the real local provider's introspection.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("Mail clients draw their token from authdeck", .serialized)
struct MailClientTests {
    /// README's fenced block that follows the line containing `marker`.
    static func readmeBlock(after marker: String) throws -> String {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: marker), "README has '\(marker)'")
        let rest = readme[start.upperBound...]
        let open = try #require(rest.range(of: "```"))
        let body = rest[open.upperBound...].drop { $0 != "\n" }.dropFirst()
        let close = try #require(body.range(of: "```"))
        return String(body[..<close.lowerBound]).split(separator: "\n").map { $0.drop { $0 == " " } }.joined(separator: "\n") + "\n"
    }

    /// A directory with `authdeck` (the shipped binary) for PATH, as an installed authdeck is.
    static func binDirectory(in home: CLIHome) throws -> String {
        let bin = home.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("authdeck").path, withDestinationPath: authdeckBinary)
        return bin.path
    }

    @Test("msmtp with README's passwordeval and auth xoauth2 delivers a message; the server's introspection accepts the token")
    func msmtpDelivers() async throws {
        if let problem = ShippedBinary.problem { throw ShippedBinaryMissing(problem: problem) }
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        try await home.addLocalProvider(idp)
        try await home.login(extra: ["--name", "mail"])
        let spool = home.root.appendingPathComponent("spool")
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        let client = idp.confidentialClient
        let server = try FixtureProcess.spawn(
            executable: packageRoot.appendingPathComponent("Tests/MailServer/smtp-server").path,
            arguments: ["--introspection", idp.endpoints.introspection.absoluteString, "--spool", spool.path, "--parent-pid", String(getpid())],
            environment: ["SMTP_INTROSPECTION_CLIENT_ID": client.clientID,
                          "SMTP_INTROSPECTION_CLIENT_SECRET": try #require(client.clientSecret).exposedValue])
        defer { Task { await server.terminate() } }
        let ready = try JSONSerialization.jsonObject(with: Data(try await server.readFirstLine(timeout: .seconds(30)).utf8)) as? [String: Any]
        let port = try #require(ready?["port"] as? Int)

        // README's lines, pointed at the local server (no TLS on loopback; the rest as written).
        var config = try Self.readmeBlock(after: "**msmtp** (`~/.msmtprc`")
        for (from, to) in [("smtp.example.com", "127.0.0.1"), ("port 587", "port \(port)"), ("tls on", "tls off"),
                           ("user alice@example.com", "user alice")] {
            #expect(config.contains(from), "README's msmtp lines have '\(from)'")
            config = config.replacingOccurrences(of: from, with: to)
        }
        let rc = home.root.appendingPathComponent("msmtprc")
        try #require(FileManager.default.createFile(atPath: rc.path, contents: Data(config.utf8), attributes: [.posixPermissions: 0o600]))
        let message = "From: alice@example.com\nTo: bob@example.com\nSubject: sent with authdeck's token\n\nHello.\n"
        var environment = home.environment
        environment["PATH"] = try Self.binDirectory(in: home) + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try await RunningCommand(["-C", rc.path, "-t"], environment: environment, stdin: Data(message.utf8),
                                              executable: "/usr/bin/msmtp").wait(timeout: 60)
        #expect(result.exitCode == 0, "msmtp: \(result)")
        let log = (try? String(contentsOf: spool.appendingPathComponent("auth.log"), encoding: .utf8)) ?? ""
        #expect(log == "alice accepted\n", "server's auth log: \(log)")
        let delivered = try String(contentsOf: spool.appendingPathComponent("1.eml"), encoding: .utf8)
        #expect(delivered.contains("Subject: sent with authdeck's token"))
    }
}
