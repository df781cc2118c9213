// libFuzzer target (scripts/fuzz challenge): WWW-Authenticate field values (RFC 9110 §11.6.1).
// Input: the field value's bytes (any bytes; a server sends what it sends).
import AuthEngine
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChallenge(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let value = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let challenges = try parseAuthenticationChallenges(value)
        _ = challenges.compactMap(BearerChallenge.init).preferred
    } catch {
        _ = String(describing: error)
    }
    _ = BearerChallenge.challenges(in: HTTPResponse(status: 401, headers: ["www-authenticate": value]))
    // RFC 9470 §3 step-up: a hostile max_age or acr_values is refused by name, never trapped on.
    _ = try? StepUpChallenge.from(HTTPResponse(status: 401, headers: ["www-authenticate": value]))
    return 0
}
