import Foundation
import Testing

/// `authdeck apple client-secret` (Sign in with Apple's ES256 client secret), the real binary;
/// the signature is checked with `openssl dgst -sha256 -verify` on the key's public half.
@Suite("Apple client secret (authdeck apple client-secret)")
struct AppleClientSecretTests {
    /// Runs a tool to completion and returns stdout; fails the test on a non-zero exit.
    @discardableResult
    func tool(_ arguments: [String], stdin: Data? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(arguments.joined(separator: " "))")
        return String(decoding: data, as: UTF8.self)
    }

    /// Python stdlib: the JWT's header and claims as JSON, and r||s re-encoded as a DER
    /// ECDSA-Sig-Value for openssl.
    static let verifier = #"""
    import base64, json, subprocess, sys
    jwt, pub, work = sys.argv[1], sys.argv[2], sys.argv[3]
    h, p, s = jwt.split(".")
    b = lambda x: base64.urlsafe_b64decode(x + "=" * (-len(x) % 4))
    sig = b(s)
    assert len(sig) == 64
    def der_int(v):
        v = v.lstrip(b"\x00") or b"\x00"
        if v[0] & 0x80: v = b"\x00" + v
        return b"\x02" + bytes([len(v)]) + v
    body = der_int(sig[:32]) + der_int(sig[32:])
    open(work + "/sig.der", "wb").write(b"\x30" + bytes([len(body)]) + body)
    open(work + "/input", "wb").write((h + "." + p).encode())
    out = subprocess.run(["openssl", "dgst", "-sha256", "-verify", pub, "-signature", work + "/sig.der", work + "/input"], capture_output=True, text=True)
    print(json.dumps({"header": json.loads(b(h)), "claims": json.loads(b(p)), "verified": out.stdout.strip()}))
    """#

    @Test("Sign in with Apple: the client secret is an ES256 JWT (kid; iss, iat, exp ≤ 15777000 s, aud, sub) that openssl verifies")
    func clientSecretVerifies() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let key = home.root.appendingPathComponent("AuthKey_ABC123DEFG.p8").path, pub = home.root.appendingPathComponent("pub.pem").path
        try tool(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key])
        try tool(["openssl", "pkey", "-in", key, "-pubout", "-out", pub])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        let result = try await home.run(["apple", "client-secret", "--team-id", "TEAM123456", "--key-id", "ABC123DEFG",
                                         "--client-id", "com.example.web", "--key", key, "--days", "182"])
        #expect(result.exitCode == 0, "\(result)")
        let jwt = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let script = home.root.appendingPathComponent("verify.py").path
        try Data(Self.verifier.utf8).write(to: URL(fileURLWithPath: script))
        let report = try tool(["python3", script, jwt, pub, home.root.path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        #expect(object["verified"] as? String == "Verified OK")
        let header = try #require(object["header"] as? [String: Any]), claims = try #require(object["claims"] as? [String: Any])
        #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "ABC123DEFG")
        #expect(claims["iss"] as? String == "TEAM123456" && claims["sub"] as? String == "com.example.web")
        #expect(claims["aud"] as? String == "https://appleid.apple.com")
        let iat = try #require(claims["iat"] as? Int), exp = try #require(claims["exp"] as? Int)
        #expect(exp - iat == 182 * 86_400 && exp - iat <= 15_777_000)
        #expect(abs(Double(iat) - Date().timeIntervalSince1970) < 300)
    }

    @Test("Sign in with Apple: bad inputs are refused with a clear usage error (ids, days, mode 0600, symlink, not PKCS#8)")
    func inputsValidated() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let key = home.root.appendingPathComponent("AuthKey.p8").path, sec1 = home.root.appendingPathComponent("sec1.pem").path
        let link = home.root.appendingPathComponent("link.p8").path
        try tool(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key])
        try tool(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", sec1])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: sec1)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: key)
        func run(team: String = "TEAM123456", keyID: String = "ABC123DEFG", file: String, days: String = "180") async throws -> RunResult {
            try await home.run(["apple", "client-secret", "--team-id", team, "--key-id", keyID, "--client-id", "com.example.web", "--key", file, "--days", days])
        }
        let cases: [(RunResult, String)] = [
            (try await run(team: "team", file: key), "Invalid --team-id"),
            (try await run(keyID: "ABC123DEF!", file: key), "Invalid --key-id"),
            (try await run(file: key, days: "183"), "--days 183 is out of range"),
            (try await run(file: link), "is a symbolic link"),
            (try await run(file: sec1), "is not a PKCS#8 P-256 private key"),
        ]
        for (result, message) in cases {
            #expect(result.exitCode == 2, "\(result)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
        let open = try await run(file: key)
        #expect(open.exitCode == 2 && open.stderr.contains("chmod 600"), "\(open)")
    }
}
