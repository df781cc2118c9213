// sd-bus as the launcher uses it: the shim's prototypes are the header's, every function resolves
// in the installed libsystemd, and a bus that is not there is nil at once (the full program asks).
import Foundation
@testable import QuickToken
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

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

    @Test("A socket that accepts and never answers: nil within the 1 s deadline (sd-bus's own wait for the sign-in is 25 s or more)")
    func silentBus() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-silent-\(UUID().uuidString)").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listener, 8) == 0)
        let started = Date()
        let secret = SessionBusSecret.withSecret(address: "unix:path=\(path)", attributes: SecretServiceItem.attributes(provider: "p", account: "a")) {
            Array($0)
        }
        #expect(secret == nil)
        // The deadline is 1 s; the bound leaves room for a loaded machine.
        #expect(Date().timeIntervalSince(started) < 10, "waited \(Date().timeIntervalSince(started)) s")
    }

    @Test("One unix: address of key=value pairs, as GDBus reads it; anything else is the full program's", arguments: [
        ("unix:path=/run/user/1/bus", true), ("unix:abstract=/tmp/dbus-x,guid=0123", true), ("unix:path=/x,", false),
        ("unix:,path=/x", false), ("unix:path", false), ("unix:=x", false), ("unix:path=", false), ("unix:path=/a;unix:path=/b", false),
        ("unixexec:path=/bin/sh", false), ("tcp:host=localhost,port=1", false), ("", false),
    ])
    func addresses(address: String, accepted: Bool) {
        #expect(SessionBusSecret.isOneUnixSocket(address) == accepted)
    }

    @Test("The item's attributes are the ones libsecret writes for authdeck's schema, in one place")
    func attributes() {
        let attributes = SecretServiceItem.attributes(provider: "local", account: "1")
        #expect(attributes.map(\.0) == ["xdg:schema", "application", "provider", "account"])
        #expect(attributes.map(\.1) == ["dev.authdeck.AccountSecrets", "authdeck", "local", "1"])
    }
}
