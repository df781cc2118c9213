// libFuzzer target (scripts/fuzz jwks): JWK Set parsing and key selection for a header.
import AuthEngine
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWKS(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    do {
        let set = try JWKSet(parsing: bytes)
        for algorithm in [JWSAlgorithm.rs256, .es256] {
            for keyID in [nil, set.keys.first?.keyID] {
                let header = JOSEHeader(algorithm: algorithm.rawValue, keyID: keyID)
                _ = try? verificationKeyCandidates(in: set, header: header, algorithm: algorithm)
                _ = try? selectVerificationKey(in: set, header: header, algorithm: algorithm)
            }
        }
    } catch {
        _ = String(describing: error)
    }
    return 0
}
