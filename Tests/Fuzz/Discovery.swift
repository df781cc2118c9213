// libFuzzer target (scripts/fuzz discovery): OpenID Provider / RFC 8414 metadata documents.
// Input: status byte, Content-Type byte, then the body (HTTPResponseInput.swift).
import AuthEngine
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDiscovery(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let response = fuzzHTTPResponse(data, size)
    for kind in [DiscoveryKind.openIDConnect, .oauthAuthorizationServer] {
        do {
            let metadata = try Discovery.processResponse(response, expectedIssuer: "https://op.example", kind: kind)
            _ = String(describing: metadata)
        } catch {
            _ = String(describing: error)
        }
    }
    return 0
}
