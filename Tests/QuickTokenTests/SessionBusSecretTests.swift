// sd-bus as the launcher uses it: the shim's prototypes are the header's, every function resolves
// in the installed libsystemd, and a bus that is not there is nil at once (the full program asks).
import Foundation
@testable import QuickToken
import Testing
import TestSupport

@Suite("SessionBusSecret: the launcher's read of a Secret Service item over sd-bus")
struct SessionBusSecretTests {
    @Test("CSystemdBus shim prototypes match <systemd/sd-bus.h> (libsystemd-dev)")
    func shimMatchesHeader() throws {
        let problems = try ShimHeaders.problems(module: "CSystemdBus", header: "systemd/sd-bus.h")
        #expect(problems == nil, "\(problems ?? "")")
    }

    @Test("Every sd-bus function the launcher calls resolves in the installed libsystemd")
    func everyFunctionResolves() throws {
        _ = try SDBus.load()
    }

    @Test("A bus that is not there, an address that is not one, or one that would run a program: nil, nothing waited for or run")
    func noBus() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-unixexec-\(UUID().uuidString)").path
        defer { unlink(marker) }
        let run = "unixexec:path=/bin/sh,argv0=sh,argv1=-c,argv2=touch%20\(marker)"
        for address in ["unix:path=/nonexistent/authdeck-test-bus", "not an address", "tcp:host=127.0.0.1,port=1", run,
                        "unix:path=/nonexistent/authdeck-test-bus;\(run)"] {
            let secret = SessionBusSecret.withSecret(address: address, attributes: SecretServiceItem.attributes(provider: "p", account: "a")) {
                Array($0)
            }
            #expect(secret == nil, "\(address)")
        }
        #expect(!FileManager.default.fileExists(atPath: marker), "a program was run for a unixexec: address")
    }

    @Test("The item's attributes are the ones libsecret writes for authdeck's schema, in one place")
    func attributes() {
        let attributes = SecretServiceItem.attributes(provider: "local", account: "1")
        #expect(attributes.map(\.0) == ["xdg:schema", "application", "provider", "account"])
        #expect(attributes.map(\.1) == ["dev.authdeck.AccountSecrets", "authdeck", "local", "1"])
    }
}
