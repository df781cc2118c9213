// libFuzzer target (scripts/fuzz resource): RFC 9728 protected-resource metadata and
// RFC 7591 client registration responses.
// Input: status byte, Content-Type byte, then the body (HTTPResponseInput.swift).
import AuthEngine
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResourceMetadata(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var response = fuzzHTTPResponse(data, size)
    if response.status == 200 { response.status = size % 2 == 0 ? 200 : 201 }
    let url = URL(string: "https://mcp.example/.well-known/oauth-protected-resource/mcp")!
    for location in [ProtectedResourceMetadataLocation.challenge, .pathInserted, .root] {
        do {
            _ = String(describing: try ProtectedResourceDiscovery.processResponse(response, requestedResource: "https://mcp.example/mcp",
                                                                                   location: location, requestURL: url))
        } catch {
            _ = String(describing: error)
        }
    }
    do {
        _ = String(describing: try processClientRegistrationResponse(response, requestURL: url, now: Date(timeIntervalSince1970: 1_800_000_000)))
    } catch {
        _ = String(describing: PresentableError(from: .resourceStep(.clientRegistration, url: url.absoluteString, cause: error)))
    }
    return 0
}
