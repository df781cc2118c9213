// sd-bus as the launcher uses it: the shim's prototypes are the header's, every function resolves
// in the installed libsystemd, and a bus that is not there is nil at once (the full program asks).
import Foundation
@testable import QuickToken
import Testing

@Suite("SessionBusSecret: the launcher's read of a Secret Service item over sd-bus")
struct SessionBusSecretTests {
    @Test("CSystemdBus shim prototypes match <systemd/sd-bus.h> (libsystemd-dev)")
    func shimMatchesHeader() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", """
            CC=$(command -v clang || command -v cc)
            printf '#include <systemd/sd-bus.h>\\n#include "shim.h"\\n' | "$CC" -fsyntax-only -Werror -I "$1" -x c -
            """, "sh", root.appendingPathComponent("Sources/CSystemdBus").path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: output, as: UTF8.self))")
    }

    @Test("Every sd-bus function the launcher calls resolves in the installed libsystemd")
    func everyFunctionResolves() throws {
        _ = try SDBus.load()
    }

    @Test("A bus that is not there, or an address that is not one: nil, nothing waited for")
    func noBus() {
        for address in ["unix:path=/nonexistent/authdeck-test-bus", "not an address", "tcp:host=127.0.0.1,port=1"] {
            let secret = SessionBusSecret.withSecret(address: address, attributes: SecretServiceItem.attributes(provider: "p", account: "a")) {
                Array($0)
            }
            #expect(secret == nil, "\(address)")
        }
    }

    @Test("The item's attributes are the ones libsecret writes for authdeck's schema, in one place")
    func attributes() {
        let attributes = SecretServiceItem.attributes(provider: "local", account: "1")
        #expect(attributes.map(\.0) == ["xdg:schema", "application", "provider", "account"])
        #expect(attributes.map(\.1) == ["dev.authdeck.AccountSecrets", "authdeck", "local", "1"])
    }
}
