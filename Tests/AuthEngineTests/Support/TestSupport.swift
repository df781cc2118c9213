import Foundation
import Testing
@testable import AuthEngine

/// Fixed instants for every test.
let testNow = Date(timeIntervalSince1970: 1_900_000_000)

/// A CryptoProvider for unit tests. No hashing or RNG is implemented here:
/// - `digest` answers from a table of precomputed outputs and records an issue for unknown inputs;
/// - `randomBytes` returns the given byte patterns in turn (then a counter pattern);
/// - `verifySignature` succeeds exactly when the signature bytes are `validSignature`.
/// Real vectors run against libcrypto in AuthEngineLiveTests.
final class TestCrypto: @unchecked Sendable {
    static let validSignature = Data("valid-signature".utf8)
    private let lock = NSLock()
    private var digests: [String: Data] = [:]
    private var randomQueue: [Data] = []
    private var counter: UInt8 = 0
    private(set) var verifiedWith: [(JWSAlgorithm, JWK)] = []
    var signatureError: SignatureVerificationError = .invalidSignature

    init(digests: [(DigestAlgorithm, Data, Data)] = [], random: [Data] = []) {
        for (algorithm, input, output) in digests { self.digests[Self.key(algorithm, input)] = output }
        randomQueue = random
    }

    private static func key(_ algorithm: DigestAlgorithm, _ input: Data) -> String {
        algorithm.rawValue + ":" + input.base64EncodedString()
    }

    func addDigest(_ algorithm: DigestAlgorithm, of input: Data, is output: Data) {
        lock.withLock { digests[Self.key(algorithm, input)] = output }
    }

    var provider: CryptoProvider {
        CryptoProvider(
            digest: { [self] algorithm, data in
                lock.withLock {
                    if let known = digests[Self.key(algorithm, data)] { return known }
                    Issue.record("TestCrypto: no precomputed \(algorithm) digest for this input")
                    return Data(repeating: 0, count: 32)
                }
            },
            randomBytes: { [self] count in
                lock.withLock {
                    if !randomQueue.isEmpty { return randomQueue.removeFirst() }
                    counter &+= 1
                    return Data(repeating: counter, count: count)
                }
            },
            verifySignature: { [self] (algorithm: JWSAlgorithm, key: JWK, _: Data, signature: Data) throws(SignatureVerificationError) in
                let error: SignatureVerificationError? = lock.withLock {
                    verifiedWith.append((algorithm, key))
                    return signature == Self.validSignature ? nil : signatureError
                }
                if let error { throw error }
            },
            generateKeyPair: UnusedSigning.generateKeyPair, sign: UnusedSigning.sign, readPKCS8P256: UnusedSigning.readPKCS8P256)
    }
}

/// The signing members of a test `CryptoProvider` whose story signs nothing: using one is a test issue.
enum UnusedSigning {
    static let generateKeyPair: @Sendable (JWSAlgorithm) throws(JWSSigningError) -> JWSKeyPair = { algorithm throws(JWSSigningError) in
        Issue.record("unimplemented: crypto.generateKeyPair")
        throw .unsupportedAlgorithm(algorithm)
    }
    static let sign: @Sendable (JWSKeyPair, Data) throws(JWSSigningError) -> Data = { _, _ throws(JWSSigningError) in
        Issue.record("unimplemented: crypto.sign")
        throw .signingFailed("unimplemented")
    }
    static let readPKCS8P256: @Sendable (Data) throws(JWSSigningError) -> JWSKeyPair = { _ throws(JWSSigningError) in
        Issue.record("unimplemented: crypto.readPKCS8P256")
        throw .unusableKey("unimplemented")
    }
}

/// Builds a compact JWS from JSON objects without signing (the stub verifier decides).
func makeJWT(header: [String: Any], claims: [String: Any], signature: Data = TestCrypto.validSignature) -> String {
    func part(_ object: [String: Any]) -> String {
        Base64URL.encode(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
    return part(header) + "." + part(claims) + "." + Base64URL.encode(signature)
}

func jsonResponse(_ object: Any, status: Int = 200, contentType: String = "application/json", headers: [String: String] = [:]) -> HTTPResponse {
    var all = headers
    all["Content-Type"] = contentType
    return HTTPResponse(status: status, headers: all, body: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
}

func textResponse(_ text: String, status: Int = 200, contentType: String?) -> HTTPResponse {
    HTTPResponse(status: status, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: Data(text.utf8))
}

/// A fixture file under Fixtures/<spec>/<case>.json.
func fixture(_ path: String) throws -> Data {
    let url = try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures").appendingPathComponent(path)
    return try Data(contentsOf: url)
}

/// The thrown AuthError of `body`, or nil (and an issue) when it did not throw.
func authError<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> AuthError? {
    do {
        _ = try body()
        Issue.record("expected an AuthError", sourceLocation: sourceLocation)
        return nil
    } catch {
        guard let error = error as? AuthError else {
            Issue.record("expected an AuthError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }
}

func asyncAuthError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> AuthError? {
    do {
        _ = try await body()
        Issue.record("expected an AuthError", sourceLocation: sourceLocation)
        return nil
    } catch {
        guard let error = error as? AuthError else {
            Issue.record("expected an AuthError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }
}

/// Decodes a form body into ordered pairs.
func formBody(_ request: HTTPRequest) -> [FormParameter] {
    FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)) ?? []
}

/// A stub HTTP client: routes by method + URL, records requests, fails on anything unmatched.
final class StubHTTPClient: @unchecked Sendable {
    private let lock = NSLock()
    private var routes: [String: [HTTPResponse]] = [:]
    private var errors: [String: TransportError] = [:]
    private(set) var requests: [HTTPRequest] = []

    func on(_ method: HTTPRequest.Method, _ url: String, respond responses: HTTPResponse...) {
        lock.withLock { routes[method.rawValue + " " + url, default: []] += responses }
    }

    func fail(_ method: HTTPRequest.Method, _ url: String, with error: TransportError) {
        lock.withLock { errors[method.rawValue + " " + url] = error }
    }

    var client: HTTPClient {
        HTTPClient { [self] (request: HTTPRequest) async throws(TransportError) -> HTTPResponse in
            let key = request.method.rawValue + " " + request.url.absoluteString
            let result: Result<HTTPResponse, TransportError> = lock.withLock {
                requests.append(request)
                if let error = errors[key] { return .failure(error) }
                guard var queue = routes[key], !queue.isEmpty else {
                    Issue.record("StubHTTPClient: unexpected request \(key)")
                    return .failure(.connection(url: key, detail: "unmatched"))
                }
                let response = queue.count > 1 ? queue.removeFirst() : queue[0]
                routes[key] = queue
                return .success(response)
            }
            return try result.get()
        }
    }
}
