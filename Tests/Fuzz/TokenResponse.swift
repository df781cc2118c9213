// libFuzzer target (scripts/fuzz token): token endpoint responses, JSON and form, into a TokenSet.
// Input: status byte, Content-Type byte, then the body (HTTPResponseInput.swift).
import AuthEngine
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenResponse(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let response = fuzzHTTPResponse(data, size)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    do {
        let parsed = try parseTokenResponse(response, now: now)
        let tokens = TokenSet(response: parsed, requestedScopes: ["openid", "profile"], now: now)
        _ = String(describing: tokens)
    } catch {
        _ = String(describing: error)
    }
    return 0
}
