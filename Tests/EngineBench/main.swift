// engine-bench: a test-only executable for scripts/bench. Figures, never a pass/fail.
//   engine-bench verify FILE SECONDS
//     FILE: {"jwks": {…JWK Set…}, "tokens": [{"alg": "RS256", "compact": "<JWS>"}, …]}
//     For each token, for SECONDS: parse the compact JWS, pick the key from the parsed JWK Set
//     (selectVerificationKey) and verify the signature with the live libcrypto provider
//     (OpenSSLCrypto: JWK → EVP_PKEY → EVP_DigestVerify), i.e. what the engine does per ID token.
//     Prints one JSON line per algorithm: {"alg", "verifications_per_second", "iterations",
//     "wall_verifications_per_second"}. `verifications_per_second` is per second of user CPU time,
//     the divisor `openssl speed` uses by default (without `-elapsed`), so the two compare on a
//     machine shared with other work; the wall-clock rate is printed next to it.
import AuthEngine
import AuthEngineLive
import Foundation

struct Input: Decodable {
    struct Token: Decodable { var alg: String; var compact: String }
    var tokens: [Token]
}

/// User CPU time of this process so far, in seconds (`getrusage`, as `openssl speed` counts).
func userCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("engine-bench: \(message)\n".utf8))
    exit(2)
}

let args = CommandLine.arguments
guard args.count == 4, args[1] == "verify" else { fail("usage: engine-bench verify FILE SECONDS") }
guard let data = FileManager.default.contents(atPath: args[2]) else { fail("cannot read \(args[2])") }
let seconds = Double(args[3]) ?? 1
let input: Input
let jwks: JWKSet
do {
    input = try JSONDecoder().decode(Input.self, from: data)
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let set = object["jwks"] else { fail("no jwks") }
    jwks = try JWKSet(parsing: JSONSerialization.data(withJSONObject: set))
} catch {
    fail("bad input: \(error)")
}

let crypto = OpenSSLCrypto.live
for token in input.tokens {
    guard let algorithm = JWSAlgorithm(rawValue: token.alg) else { fail("unknown alg \(token.alg)") }
    func once() -> Bool {
        do {
            let jws = try CompactJWS(parsing: token.compact)
            let key = try selectVerificationKey(in: jwks, header: jws.header, algorithm: algorithm)
            try crypto.verifySignature(algorithm, key, jws.signingInput, jws.signature)
            return true
        } catch {
            return false
        }
    }
    guard once() else { fail("\(token.alg): the signature does not verify") }
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    let cpu0 = userCPUSeconds()
    let t0 = DispatchTime.now().uptimeNanoseconds
    var iterations = 0
    var now = t0
    while now < deadline {
        for _ in 0..<16 { _ = once() }
        iterations += 16
        now = DispatchTime.now().uptimeNanoseconds
    }
    let wallRate = Double(iterations) / (Double(now - t0) / 1e9)
    let cpuRate = Double(iterations) / max(userCPUSeconds() - cpu0, 1e-6)
    print("{\"alg\": \"\(token.alg)\", \"verifications_per_second\": \(Int(cpuRate)), \"iterations\": \(iterations), "
        + "\"wall_verifications_per_second\": \(Int(wallRate))}")
}
