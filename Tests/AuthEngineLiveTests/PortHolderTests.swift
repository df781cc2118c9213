import Foundation
import Testing
import TestSupport
@testable import AuthEngineLive
#if canImport(Glibc)
import Glibc
#endif

@Suite("Who holds a busy redirect port")
struct PortHolderTests {
    /// A listening socket a child inherited is held by both: the one asking is never named while another holds it
    /// (a sign-in spawned by a process holding the port named itself once process ids wrapped: /proc's order put it first).
    @Test("An inherited listening socket: the other holder is named, never the process asking, whatever their order in /proc")
    func inheritedSocketNamesTheOther() throws {
        let port = try FreePort.loopback()
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)  // no CLOEXEC: the child below inherits it
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = INADDR_LOOPBACK.bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(holder, 1) == 0)
        var child: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
        defer { argv.forEach { free($0) } }
        try #require(posix_spawn(&child, "/bin/sleep", nil, nil, argv, environ) == 0)
        defer { kill(child, SIGKILL); var status: Int32 = 0; waitpid(child, &status, 0) }
        // The child's /proc/PID/fd shows the socket once it has started.
        var asChild: String?
        for _ in 0..<200 {
            asChild = PortHolder.describe(port: UInt16(port), ownPID: child)
            if asChild == "pid \(getpid()) (\(Self.ownName()))" { break }
            usleep(10_000)
        }
        #expect(asChild == "pid \(getpid()) (\(Self.ownName()))")
        #expect(PortHolder.describe(port: UInt16(port), ownPID: getpid()) == "pid \(child) (sleep)")
    }

    static func ownName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8)) ?? "?"
        return String(comm.prefix { $0 != "\n" }.map { $0.isASCII && $0 != " " ? $0 : "?" })
    }
}
