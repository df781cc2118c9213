import FoundationEssentials

/// A cache of the provider's JWK Set (OIDC Core §10.1.1: keys rotate; fetch again on an unknown
/// `kid`). Time comes in as `now` on every call (no clock inside). Rules:
/// - a cached set older than ``maximumAge`` (300 s) is fetched again;
/// - when no key matches, the set is re-fetched once per lookup if the token's `kid` is not in
///   the cached set (key rotation, JWKS-04) and the set is at least ``unknownKeyCooldown`` old,
///   or the cache is at least ``minimumRefetchAge`` (60 s) old; a failed re-fetch keeps the
///   cached keys and fails closed (JWKS-05);
/// - when no cached candidate verifies a signature, the set is re-fetched once if it is at least
///   ``minimumRefetchAge`` old (a key replaced under its `kid`,
///   ``candidateKeysAfterFailedSignature(for:algorithm:now:)``).
public actor JWKSCache {
    public let maximumAge: TimeInterval
    public let minimumRefetchAge: TimeInterval
    /// Seconds after a fetch during which an unknown `kid` does not fetch again (0: always).
    public let unknownKeyCooldown: TimeInterval
    private let fetch: @Sendable () async throws(AuthError) -> JWKSet
    private var cached: (set: JWKSet, fetchedAt: Date)?

    /// - Parameters:
    ///   - initial: a set fetched earlier (by another process) and when.
    ///   - fetch: downloads and parses the JWK Set (e.g. ``fetchJWKS(metadata:http:)``).
    public init(maximumAge: TimeInterval = 300, minimumRefetchAge: TimeInterval = 60, unknownKeyCooldown: TimeInterval = 0,
                initial: (set: JWKSet, fetchedAt: Date)? = nil,
                fetch: @escaping @Sendable () async throws(AuthError) -> JWKSet) {
        self.maximumAge = maximumAge
        self.minimumRefetchAge = minimumRefetchAge
        self.unknownKeyCooldown = unknownKeyCooldown
        self.fetch = fetch
        self.cached = initial
    }

    /// Seeds the cache (e.g. with a set fetched at start-up).
    public func store(_ set: JWKSet, fetchedAt: Date) {
        cached = (set, fetchedAt)
    }

    /// The current set, fetched when absent or older than ``maximumAge``.
    public func keySet(now: Date) async throws(AuthError) -> JWKSet {
        if let cached, now.timeIntervalSince(cached.fetchedAt) < maximumAge { return cached.set }
        let set = try await fetch()
        cached = (set, now)
        return set
    }

    /// Every key that may verify a JWS with `header`/`algorithm`
    /// (``verificationKeyCandidates(in:header:algorithm:)``), re-fetching once as described above.
    /// - Throws: `.protocolViolation(.noMatchingKey / .multipleMatchingKeys)`, or the fetch error.
    public func candidateKeys(for header: JOSEHeader, algorithm: JWSAlgorithm, now: Date) async throws(AuthError) -> [JWK] {
        let wasFresh = cached.map { now.timeIntervalSince($0.fetchedAt) < maximumAge } ?? false
        let set = try await keySet(now: now)
        do throws(AuthError) {
            return try verificationKeyCandidates(in: set, header: header, algorithm: algorithm)
        } catch {
            guard case .protocolViolation(.noMatchingKey) = error, wasFresh, let cached else { throw error }
            let age = now.timeIntervalSince(cached.fetchedAt)
            let unknownKid = header.keyID.map { kid in !cached.set.keys.contains { $0.keyID.exactlyEquals(kid) } } ?? false
            guard (unknownKid && age >= unknownKeyCooldown) || age >= minimumRefetchAge else { throw error }
            let refreshed = try await fetch()
            self.cached = (refreshed, now)
            return try verificationKeyCandidates(in: refreshed, header: header, algorithm: algorithm)
        }
    }

    /// After no cached candidate verified a signature: re-fetches the set when the cached one is
    /// at least ``minimumRefetchAge`` old (a provider that replaced a key but kept its `kid`), and
    /// returns the new candidates; nil when the set is too fresh to fetch again (fail closed).
    public func candidateKeysAfterFailedSignature(for header: JOSEHeader, algorithm: JWSAlgorithm, now: Date) async throws(AuthError) -> [JWK]? {
        guard let cached, now.timeIntervalSince(cached.fetchedAt) >= minimumRefetchAge else { return nil }
        let refreshed = try await fetch()
        self.cached = (refreshed, now)
        return try verificationKeyCandidates(in: refreshed, header: header, algorithm: algorithm)
    }

    /// The one key that fits a JWS with `header`/`algorithm` (``candidateKeys(for:algorithm:now:)``,
    /// re-fetching once as described above). ID token validation does not use this: it tries
    /// every candidate.
    /// - Throws: `.protocolViolation(.noMatchingKey / .multipleMatchingKeys)`, or the fetch error.
    public func key(for header: JOSEHeader, algorithm: JWSAlgorithm, now: Date) async throws(AuthError) -> JWK {
        let candidates = try await candidateKeys(for: header, algorithm: algorithm, now: now)
        guard candidates.count == 1 else { throw .protocolViolation(.multipleMatchingKeys(kid: header.keyID, count: candidates.count)) }
        return candidates[0]
    }
}
