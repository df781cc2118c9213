// libFuzzer target (scripts/fuzz loopback): the loopback redirect listener's HTTP request
// parser, fed as the listener feeds it: the whole buffer, and every prefix of a short one
// (a request arriving in pieces). Compiled together with
// Sources/AuthEngineLive/Authorization/LoopbackRequest.swift (the parser is internal).
// The same bytes also go to the credential helpers' request parsers (git's key=value lines,
// docker's server URL: Sources/AppCore/Models/CredentialHelperRequests.swift, compiled in too):
// line-oriented requests from another program, like the listener's; one target keeps CI's
// fuzzing time as it was.
import AuthEngine
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoopbackRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = HTTPRequestParser.parse(bytes)
    if let request = try? GitCredentialRequest.parse(bytes) { _ = request.takesAuthtype }
    _ = try? DockerCredentialRequest.parse(bytes)
    if size <= 512 {
        for end in stride(from: 0, through: size, by: 16) { _ = HTTPRequestParser.parse(Array(bytes[..<end])) }
    }
    return 0
}
