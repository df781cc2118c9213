import Foundation
import Glibc
import Testing
import TestSupport

/// `status`, `doctor` and `token` agree on a vault others may read (one check,
/// `AccountsFile.permissionProblem`): `token` refuses it, so `status` is not "valid" and exit 0.
@Suite("A vault with loose permissions: status, doctor and token agree", .serialized)
struct StorePermissionsTests {
    @Test("A 0644 vault or a 0755 data directory: token, status and doctor each exit 1 naming the problem; fixed, all three are fine")
    func loosePermissionsAgree() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let data = home.root.appendingPathComponent("data/authdeck").path
        let vault = data + "/secrets.vault"
        for (path, mode) in [(vault, mode_t(0o644)), (data, mode_t(0o755))] {
            chmod(path, mode)
            let token = try await home.run(["token"])
            #expect(token.exitCode == 1 && token.stderr.contains("lets group or others"), "\(token)")
            let status = try await home.run(["status"])
            #expect(status.exitCode == 1 && status.stderr.contains("lets group or others") && status.stderr.contains(path), "\(status)")
            let doctor = try await home.run(["doctor"])
            #expect(doctor.exitCode == 1 && "\(doctor.stdout)\(doctor.stderr)".contains("lets group or others"), "\(doctor)")
            chmod(path, path == data ? 0o700 : 0o600)
        }
        #expect(try await home.run(["token"]).exitCode == 0)
        #expect(try await home.run(["status"]).exitCode == 0)
    }
}
