import FoundationEssentials
import Synchronization

/// DPoP (RFC 9449): proofs of possession of the account's key, on every token request and on
/// every request that uses a DPoP-bound access token.
public enum DPoP {
    /// `typ` of a proof (RFC 9449 §4.2).
    public static let proofType = "dpop+jwt"

    /// The algorithm of the account's key, from the provider's setting and its metadata
    /// (`dpop_signing_alg_values_supported`, RFC 9449 §5.1): ES256 when offered, else EdDSA; nil
    /// for no DPoP (`never`, or `auto` without the member or without an algorithm we sign).
    /// - Throws: `.unsupported(.dpopAlgorithmNotSupported)` for `always` when the provider
    ///   advertises only algorithms we do not sign.
    public static func algorithm(metadata: AuthorizationServerMetadata, setting: ProtocolFeatureSetting) throws(AuthError) -> JWSAlgorithm? {
        if setting == .never { return nil }
        guard let advertised = metadata.dpopSigningAlgValuesSupported else { return setting == .always ? .es256 : nil }
        for algorithm in JWSKeyPair.signingAlgorithms where advertised.containsExactly(algorithm.rawValue) { return algorithm }
        if setting == .always { throw .unsupported(.dpopAlgorithmNotSupported(advertised: advertised)) }
        return nil
    }

    /// RFC 9449 §4.2 `htu`: the request URI without query and fragment.
    public static func htu(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.query = nil
        components.fragment = nil
        return components.url?.absoluteString ?? url.absoluteString
    }

    /// A fresh proof (RFC 9449 §4.2): header `typ: dpop+jwt`, `alg`, the public `jwk`; claims
    /// `jti` (128 random bits), `htm`, `htu`, `iat` (seconds), `nonce` when the server gave one,
    /// `ath` = BASE64URL(SHA-256(access token)) when one is presented (§4.3, §7.1).
    /// - Throws: `.unsupported(.dpopSigningFailed)` when the key cannot sign.
    public static func proof(key: JWSKeyPair, method: String, url: URL, issuedAt: Date, nonce: String? = nil,
                             accessToken: AccessToken? = nil, crypto: CryptoProvider) throws(AuthError) -> String {
        var claims: [String: JSONValue] = [
            "jti": .string(Base64URL.encode(crypto.randomBytes(16))),
            "htm": .string(method),
            "htu": .string(htu(url)),
            "iat": .number(issuedAt.timeIntervalSince1970.rounded(.down)),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let accessToken { claims["ath"] = .string(Base64URL.encode(crypto.digest(.sha256, Data(accessToken.exposedValue.utf8)))) }
        do {
            return try CompactJWSSigner.sign(header: ["typ": .string(proofType), "jwk": .object(key.publicJWKObject)],
                                             claims: claims, key: key, crypto: crypto)
        } catch {
            throw .unsupported(.dpopSigningFailed(String(describing: error)))
        }
    }

    /// The nonce a server asks for (RFC 9449 §8 at the token endpoint: HTTP 400 `error:
    /// use_dpop_nonce`; §9 at a resource server: HTTP 401 with `WWW-Authenticate: DPoP
    /// error="use_dpop_nonce"`, scheme compared case-insensitively): the `DPoP-Nonce` header, or nil.
    public static func nonceChallenge(_ response: HTTPResponse) -> String? {
        guard let nonce = response.headers["dpop-nonce"], !nonce.isEmpty else { return nil }
        if response.status == 400, case .members(let object) = decodeOAuthBody(response),
           object.member("error")?.stringValue.exactlyEquals("use_dpop_nonce") == true {
            return nonce
        }
        // Any of the response's challenges (several field lines arrive joined, RFC 9110 §5.3).
        if response.status == 401,
           BearerChallenge.challenges(in: response).challenges.contains(where: {
               $0.scheme.equalsIgnoringASCIICase("DPoP") && $0.error?.exactlyEquals("use_dpop_nonce") == true
           }) {
            return nonce
        }
        return nil
    }

    /// RFC 9449 §5, §7.1: the token type against the proof. A `DPoP` token answers a request that
    /// carried a proof; `Bearer` after a proof is refused when the provider's setting is `always`
    /// (DPOP-04), else used as Bearer.
    /// - Throws: `.protocolViolation(.dpopTokenWithoutProof)`, `.unsupported(.tokenType("Bearer"))`.
    public static func checkTokenType(_ tokenType: String, proofSent: Bool, setting: ProtocolFeatureSetting) throws(AuthError) {
        if tokenType.equalsIgnoringASCIICase("DPoP") {
            if !proofSent { throw .protocolViolation(.dpopTokenWithoutProof) }
        } else if proofSent && setting == .always {
            throw .unsupported(.tokenType(tokenType))
        }
    }
}

/// The latest `DPoP-Nonce` of each server (RFC 9449 §8.2: the client uses the server's latest
/// nonce until it gives another), keyed by origin (scheme, host, port). With ``Persistence``
/// the nonces outlive the process: a server's kept nonce is read on first use, and a new one
/// is saved, so the first request of the next process already carries it (one request, not a
/// `use_dpop_nonce` answer and a retry).
public final class DPoPNonceStore: Sendable {
    /// Where nonces are kept between processes, by ``origin(_:)``.
    public struct Persistence: Sendable {
        public var load: @Sendable (_ origin: String) -> String?
        public var save: @Sendable (_ origin: String, _ nonce: String) -> Void
        public init(load: @escaping @Sendable (_ origin: String) -> String?, save: @escaping @Sendable (_ origin: String, _ nonce: String) -> Void) {
            self.load = load
            self.save = save
        }
    }

    private struct State {
        var nonces: [String: String] = [:]
        /// Origins whose kept nonce was read (or that got one in this process).
        var loaded: Set<String> = []
    }
    private let state = Mutex(State())
    private let persistence: Persistence?

    public init(persistence: Persistence? = nil) { self.persistence = persistence }

    /// `scheme://host:port` of `url`, lower-cased (the port as written, empty when absent).
    public static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port.map(String.init) ?? "")"
    }

    /// The latest nonce of `url`'s server: this process's, else the kept one.
    public func nonce(for url: URL) -> String? {
        let origin = Self.origin(url)
        let (known, loaded) = state.withLock { ($0.nonces[origin], $0.loaded.contains(origin)) }
        guard !loaded, let persistence else { return known }
        let kept = persistence.load(origin)
        return state.withLock { state in
            state.loaded.insert(origin)
            if state.nonces[origin] == nil { state.nonces[origin] = kept }
            return state.nonces[origin]
        }
    }

    /// Keeps `nonce` as `url`'s server's latest (saved when it changed).
    public func remember(_ nonce: String, for url: URL) {
        let origin = Self.origin(url)
        let changed = state.withLock { state -> Bool in
            state.loaded.insert(origin)
            defer { state.nonces[origin] = nonce }
            return state.nonces[origin] != nonce
        }
        if changed { persistence?.save(origin, nonce) }
    }
}

/// What signs an account's proofs: its key, the clock and the nonces seen so far.
public struct DPoPSigner: Sendable {
    public var key: JWSKeyPair
    public var crypto: CryptoProvider
    public var now: @Sendable () -> Date
    public var nonces: DPoPNonceStore

    public init(key: JWSKeyPair, crypto: CryptoProvider, now: @escaping @Sendable () -> Date, nonces: DPoPNonceStore = DPoPNonceStore()) {
        self.key = key
        self.crypto = crypto
        self.now = now
        self.nonces = nonces
    }

    /// RFC 7638 thumbprint of the public key: `dpop_jkt` (RFC 9449 §10) and what the UI shows.
    public var thumbprint: String { JWKThumbprint.sha256(of: key.publicKey, crypto: crypto) }

    /// A fresh proof for `request` with the server's latest nonce.
    public func proof(for request: HTTPRequest, accessToken: AccessToken? = nil) throws(AuthError) -> String {
        try DPoP.proof(key: key, method: request.method.rawValue, url: request.url, issuedAt: now(),
                       nonce: nonces.nonce(for: request.url), accessToken: accessToken, crypto: crypto)
    }
}

extension HTTPClient {
    /// This client with DPoP: each request gets a fresh `DPoP` proof header (and, with
    /// `accessToken`, `Authorization: DPoP <token>` and `ath`, RFC 9449 §7.1); a nonce in any
    /// answer is kept; a `use_dpop_nonce` answer is retried once with a new proof (§8, §9).
    /// A proof that cannot be signed fails the request as `.connection` naming DPoP.
    public func withDPoP(_ signer: DPoPSigner, accessToken: AccessToken? = nil) -> HTTPClient {
        let base = self
        return HTTPClient { (request: HTTPRequest) throws(TransportError) -> HTTPResponse in
            func signed() throws(TransportError) -> HTTPRequest {
                var copy = request
                let proof: String
                do { proof = try signer.proof(for: request, accessToken: accessToken) } catch {
                    throw .connection(url: request.url.absoluteString, detail: "could not sign a DPoP proof: \(error)")
                }
                copy.headers.removeAll { $0.name.lowercased() == "dpop" || (accessToken != nil && $0.name.lowercased() == "authorization") }
                if let accessToken { copy.headers.append(HTTPHeader("Authorization", "DPoP " + accessToken.exposedValue)) }
                copy.headers.append(HTTPHeader("DPoP", proof))
                return copy
            }
            var response = try await base.send(try signed())
            if let nonce = DPoP.nonceChallenge(response) {
                signer.nonces.remember(nonce, for: request.url)
                response = try await base.send(try signed())
            }
            if let nonce = response.headers["dpop-nonce"], !nonce.isEmpty { signer.nonces.remember(nonce, for: request.url) }
            return response
        }
    }
}
