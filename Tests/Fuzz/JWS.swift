// libFuzzer target (scripts/fuzz jws): compact JWS/JWT parsing and the claims decoding that
// `authdeck decode`, the Raw tab and `doctor` show. Never part of `swift build`.
import AuthEngine
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWS(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    do {
        let jws = try CompactJWS(parsing: text)
        _ = String(describing: jws.header.members)
        let claims = try IDTokenClaims(payload: jws.payload)
        _ = String(describing: claims)
    } catch {
        _ = String(describing: error)
    }
    // The payload decoder on raw bytes too (a JSON claims set without the base64url layer).
    _ = try? IDTokenClaims(payload: bytes)
    return 0
}
