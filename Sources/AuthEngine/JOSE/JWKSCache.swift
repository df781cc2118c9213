import FoundationEssentials

/// A cache of the provider's JWK Set (OIDC Core §10.1.1: keys rotate; fetch again on an unknown
/// `kid`). Time comes in as `now` on every call (no clock inside). Rules:
/// - a cached set older than ``maximumAge`` (300 s) is fetched again; when that fetch meets an
///   outage (no answer, HTTP 5xx) the cached keys keep verifying (re-dated to `now`);
/// - a token whose `kid` is not in the cached set (key rotation, JWKS-04) fetches the set again
///   when the cached set was not itself fetched by such a lookup, or was at least
///   ``unknownKeyCooldown`` ago: a genuine rotation is always found, however soon after a
///   fetch, and a flood of tokens with bogus `kid`s makes at most one lookup per cool-down;
/// - any other token no key fits (no `kid`, or a known `kid` of another `kty`/`alg`) fetches
///   again when the cache is at least ``minimumRefetchAge`` (60 s) old;
/// - when no cached candidate verifies a signature, the set is re-fetched once if it is at least
///   ``minimumRefetchAge`` old (a key replaced under its `kid`,
///   ``candidateKeysAfterFailedSignature(for:algorithm:now:)``);
/// - a lookup that fails (no answer, an error status, a malformed set) changes nothing: the
///   cached keys stay, the cool-down does not start, the next token tries again (JWKS-05);
/// - concurrent callers share one fetch in flight.
public actor JWKSCache {
    /// Why the set is fetched (the fetch closure may keep it, e.g. in a file between processes).
    public enum FetchReason: Sendable, Equatable {
        /// None cached, or the cached one is older than ``JWKSCache/maximumAge``.
        case expired
        /// A token's key is not in the cached set; the ``JWKSCache/unknownKeyCooldown`` runs from it.
        case keyLookup
    }

    /// A fetched set: when (`fetchedAt`), and whether a key lookup fetched it.
    public struct Entry: Sendable, Equatable {
        public var set: JWKSet
        public var fetchedAt: Date
        public var forKeyLookup: Bool
        public init(set: JWKSet, fetchedAt: Date, forKeyLookup: Bool = false) {
            self.set = set
            self.fetchedAt = fetchedAt
            self.forKeyLookup = forKeyLookup
        }
    }

    /// The cool-down between two lookups for unknown `kid`s (seconds), unless told otherwise.
    public static let defaultUnknownKeyCooldown: TimeInterval = 30

    public let maximumAge: TimeInterval
    public let minimumRefetchAge: TimeInterval
    /// Seconds after a lookup for an unknown `kid` during which another does not fetch again
    /// (0: every unknown `kid` fetches). Measured from the lookup, never from a plain fetch.
    public let unknownKeyCooldown: TimeInterval
    private let fetch: @Sendable (FetchReason) async throws(AuthError) -> JWKSet
    private var cached: Entry?
    /// The fetch in flight, shared by every caller that needs one meanwhile.
    private var inFlight: Flight?
    private var flights = 0

    private struct Flight {
        var id: Int
        var reason: FetchReason
        var startedAt: Date
        var task: Task<Result<JWKSet, AuthError>, Never>
    }

    /// - Parameters:
    ///   - initial: a set fetched earlier (by another process), when, and why.
    ///   - fetch: downloads and parses the JWK Set (e.g. ``fetchJWKS(metadata:http:)``); told why.
    public init(maximumAge: TimeInterval = 300, minimumRefetchAge: TimeInterval = 60,
                unknownKeyCooldown: TimeInterval = JWKSCache.defaultUnknownKeyCooldown, initial: Entry? = nil,
                fetch: @escaping @Sendable (FetchReason) async throws(AuthError) -> JWKSet) {
        self.maximumAge = maximumAge
        self.minimumRefetchAge = minimumRefetchAge
        self.unknownKeyCooldown = unknownKeyCooldown
        self.fetch = fetch
        self.cached = initial
    }

    /// As ``init(maximumAge:minimumRefetchAge:unknownKeyCooldown:initial:fetch:)`` with a fetch
    /// that does not need to know why.
    public init(maximumAge: TimeInterval = 300, minimumRefetchAge: TimeInterval = 60,
                unknownKeyCooldown: TimeInterval = JWKSCache.defaultUnknownKeyCooldown, initial: Entry? = nil,
                fetch: @escaping @Sendable () async throws(AuthError) -> JWKSet) {
        self.init(maximumAge: maximumAge, minimumRefetchAge: minimumRefetchAge, unknownKeyCooldown: unknownKeyCooldown,
                  initial: initial) { (_: FetchReason) async throws(AuthError) -> JWKSet in try await fetch() }
    }

    /// Seeds the cache (e.g. with a set fetched at start-up).
    public func store(_ set: JWKSet, fetchedAt: Date) {
        cached = Entry(set: set, fetchedAt: fetchedAt)
    }

    /// The current set, fetched when absent or older than ``maximumAge`` (during an outage the
    /// cached one, re-dated to `now`).
    /// - Throws: the fetch error when nothing is cached, or when it is not an outage.
    public func keySet(now: Date) async throws(AuthError) -> JWKSet {
        if let cached, now.timeIntervalSince(cached.fetchedAt) < maximumAge { return cached.set }
        do throws(AuthError) {
            return try await shared(.expired, now: now)
        } catch {
            // An outage: the keys known from an earlier fetch still verify.
            guard let cached, Self.isOutage(error) else { throw error }
            self.cached = Entry(set: cached.set, fetchedAt: now)
            return cached.set
        }
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
            guard case .protocolViolation(.noMatchingKey) = error, wasFresh, let cached, mayLookUp(header, in: cached, now: now) else { throw error }
            let refreshed = try await shared(.keyLookup, now: now)
            return try verificationKeyCandidates(in: refreshed, header: header, algorithm: algorithm)
        }
    }

    /// Whether a token with `header` that no key of `entry` fits may fetch the set again.
    private func mayLookUp(_ header: JOSEHeader, in entry: Entry, now: Date) -> Bool {
        let age = now.timeIntervalSince(entry.fetchedAt)
        if let kid = header.keyID, !entry.set.keys.contains(where: { $0.keyID.exactlyEquals(kid) }) {
            return !entry.forKeyLookup || age >= unknownKeyCooldown || age < 0
        }
        return age >= minimumRefetchAge
    }

    /// After no cached candidate verified a signature: re-fetches the set when the cached one is
    /// at least ``minimumRefetchAge`` old (a provider that replaced a key but kept its `kid`), and
    /// returns the new candidates; nil when the set is too fresh to fetch again (fail closed).
    public func candidateKeysAfterFailedSignature(for header: JOSEHeader, algorithm: JWSAlgorithm, now: Date) async throws(AuthError) -> [JWK]? {
        guard let cached, now.timeIntervalSince(cached.fetchedAt) >= minimumRefetchAge else { return nil }
        let refreshed = try await shared(.keyLookup, now: now)
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

    /// One fetch for every caller that needs one while it runs; a successful one becomes the
    /// cached set (a failed one changes nothing). A caller that joined a fetch refused as
    /// `.transport(.cancelled)` (its starter had no network to use, ``AuthError``) fetches for itself.
    private func shared(_ reason: FetchReason, now: Date) async throws(AuthError) -> JWKSet {
        while true {
            let flight: Flight
            let joined = inFlight != nil
            if let running = inFlight {
                flight = running
            } else {
                flights += 1
                let fetch = self.fetch
                flight = Flight(id: flights, reason: reason, startedAt: now, task: Task {
                    do throws(AuthError) { return .success(try await fetch(reason)) } catch { return .failure(error) }
                })
                inFlight = flight
            }
            let result = await flight.task.value
            if inFlight?.id == flight.id {
                inFlight = nil
                if case .success(let set) = result {
                    cached = Entry(set: set, fetchedAt: flight.startedAt, forKeyLookup: flight.reason == .keyLookup)
                }
            }
            if joined, case .failure(.transport(.cancelled)) = result { continue }
            return try result.get()
        }
    }

    /// No answer, or a server error: the provider is down, not wrong.
    static func isOutage(_ error: AuthError) -> Bool {
        switch error {
        case .transport(let transport): transport != .cancelled
        case .httpStatus(let failure): failure.status >= 500
        default: false
        }
    }
}
