// Eight processes asking for a token of the same account at once, against the real provider
// with rotating refresh tokens and reuse detection: exactly one refresh request is made, every
// process gets the same fresh token, none ends with invalid_grant (issue: credential store,
// "never lossy"; ARCHITECTURE.md: single-flight across processes through the account lock).
import AppCore
import AppCoreLive
import Foundation
import Testing
import TestSupport

/// The binary that ships (``ShippedBinary``).
let authdeckBinary = URL(fileURLWithPath: ShippedBinary.path)

struct CommandResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `authdeck` with exactly `environment` (no secrets in argv), waiting up to `timeout` s.
func runAuthdeck(_ arguments: [String], environment: [String: String], timeout: Double = 60) async throws -> CommandResult {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do {
                let process = Process()
                process.executableURL = authdeckBinary
                process.arguments = arguments
                process.environment = environment
                let out = Pipe(), err = Pipe()
                process.standardOutput = out
                process.standardError = err
                process.standardInput = FileHandle.nullDevice
                try process.run()
                let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
                let stdout = out.fileHandleForReading.readDataToEndOfFile()
                let stderr = err.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                killer.cancel()
                continuation.resume(returning: CommandResult(
                    status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                    stderr: String(decoding: stderr, as: UTF8.self)))
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.start()
    }
}

@Suite("Concurrent refresh across processes against the real local provider")
struct ConcurrentRefreshTests {
    @Test("REF-09: 8 processes run 'authdeck token --min-valid' on one expiring account: one refresh request, one new token, no invalid_grant")
    func eightProcessesOneRefresh() async throws {
        // The sign-in's token lives 20 s, a refreshed one 300 s: --min-valid 19 (less than the
        // whole lifetime, so it is not halved) needs a refresh once the first token is 2 s old,
        // and the refreshed token satisfies it for minutes.
        let idp = try await LocalIdentityProvider.start(accessTokenLifetime: 300, signInAccessTokenLifetime: 20, logRequests: true)
        defer { Task { await idp.stop() } }
        let home = try TemporaryHome(provider: idp)
        defer { home.remove() }
        let env = AppEnvironment.live(processEnvironment: home.environment, vaultLimits: .minimum)
        try env.files.saveProvider(ProviderConfig(id: "local", issuer: idp.issuer, clientID: idp.nativeClient.clientID))
        let record = try await SignIn(env).run(SignInRequest(providerID: "local"), progress: { _ in }).record
        let original = try await TokenForScripts(env).accessToken(record.id, minimumValidity: .zero)
        let expiresAt = try #require(original.expiresAt)

        let wait = expiresAt.timeIntervalSinceNow - 18
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }

        func tokenRequests() -> Int { idp.process.stderrText().components(separatedBy: "POST /o/token/").count - 1 }
        let before = tokenRequests()
        let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
            for _ in 0..<8 {
                group.addTask { try await runAuthdeck(["token", "--min-valid", "19"], environment: home.environment) }
            }
            return try await group.reduce(into: [CommandResult]()) { $0.append($1) }
        }
        for result in results {
            #expect(result.status == 0, "authdeck token failed: \(result.stderr)")
            #expect(!result.stderr.contains("invalid_grant"))
        }
        let tokens = Set(results.map { $0.stdout.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(tokens.count == 1, "every process printed the same token")
        #expect(tokens.first != original.value.exposedValue, "the token was refreshed")
        #expect(tokenRequests() - before == 1, "exactly one refresh request reached the provider")

        // The rotated refresh token still works: nothing was revoked by a reuse.
        let again = await UseCaseClient(environment: env).refresh(record.id, true) { _ in }
        #expect((try? again.get()) != nil, "refresh after the race: \(again)")
    }
}
