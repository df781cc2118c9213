// The refresh-storm benchmark's parts on a few accounts: the bundled provider's
// mint-grants fixture, the test-only storm-driver (the TUI's store on the live environment).
import Foundation
import Testing
import TestSupport

/// `.build/debug/storm-driver` (built with the package), or `$AUTHDECK_STORM_DRIVER`.
private let stormDriverBinary: String = {
    if let path = ProcessInfo.processInfo.environment["AUTHDECK_STORM_DRIVER"], !path.isEmpty { return path }
    return packageRoot.appendingPathComponent(".build/debug/storm-driver").path
}()

@Suite("Refresh storm driver", .serialized)
struct RefreshStormDriverTests {
    @Test("django-oauth-toolkit (bundled provider): 6 minted accounts expiring in the same second are all refreshed by the TUI's scheduler, never more than 4 at once, one token request each")
    func stormDriverOnSixAccounts() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        // A provider of our own, with its data directory known (mint-grants writes into its database).
        let dataDir = home.root.appendingPathComponent("idp")
        try FileManager.default.createDirectory(at: dataDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let provider = try FixtureProcess.spawn(
            executable: LocalIdentityProvider.directory.appendingPathComponent("run").path,
            arguments: ["--port", "0", "--data-dir", dataDir.path, "--parent-pid", String(getpid())],
            environment: ["IDP_LOG_REQUESTS": "1", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"])
        let ready = try await provider.readFirstLine(timeout: .seconds(90))
        let info = try #require(try JSONSerialization.jsonObject(with: Data(ready.utf8)) as? [String: Any])
        let port = try #require(info["port"] as? Int), issuer = try #require(info["issuer"] as? String)
        do {
            let added = try await home.run(["provider", "add", "local", "--issuer", issuer, "--client-id", "authdeck-native"])
            try #require(added.exitCode == 0, "provider add: \(added)")
            // The tokens go to a 0600 file in the home, never to the test's output.
            let grants = home.root.appendingPathComponent("grants.jsonl").path
            #expect(FileManager.default.createFile(atPath: grants, contents: nil, attributes: [.posixPermissions: 0o600]))
            let expiresAt = Int(Date().timeIntervalSince1970) + 8
            let minted = try await RunningCommand(
                ["--data-dir", dataDir.path, "--port", String(port), "--count", "6", "--expires-at", String(expiresAt)],
                environment: home.environment, stdout: .file(grants),
                executable: LocalIdentityProvider.directory.appendingPathComponent("mint-grants").path).wait(timeout: 120)
            try #require(minted.exitCode == 0, "mint-grants: \(minted.stderr)")
            let tokenRequestsBefore = provider.stderrText().components(separatedBy: "POST /o/token/").count - 1

            let storm = try await RunningCommand(["--grants", grants, "--provider", "local", "--timeout", "120"],
                                                 environment: home.environment, executable: stormDriverBinary).wait(timeout: 180)
            try #require(storm.exitCode == 0, "storm-driver: exit \(storm.exitCode), \(storm.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(storm.stdout.utf8)) as? [String: Any])
            #expect(report["accounts"] as? Int == 6)
            #expect(report["refreshed"] as? Int == 6, "errors: \(report["errors"] ?? [])")
            #expect(report["failed"] as? Int == 0)
            let maxInFlight = try #require(report["max_in_flight"] as? Int)
            #expect(maxInFlight >= 1 && maxInFlight <= 4)
            #expect(report["bound"] as? Int == 4)
            #expect(report["timed_out"] as? Bool == false)
            #expect((report["longest_frame_gap_ms"] as? Double) != nil)
            #expect(provider.stderrText().components(separatedBy: "POST /o/token/").count - 1 - tokenRequestsBefore == 6)
            // Every account was stored and refreshed: status shows each one valid.
            let status = try await home.run(["status"])
            #expect(status.exitCode == 0, "status: \(status)")
            #expect(status.stdout.components(separatedBy: "status: valid").count - 1 == 6)
        } catch {
            _ = await provider.terminate()
            throw error
        }
        _ = await provider.terminate()
    }
}
