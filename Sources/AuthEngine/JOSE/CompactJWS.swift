import FoundationEssentials

/// The JOSE header of a JWS (RFC 7515 §4.1), with the members the engine looks at.
public struct JOSEHeader: Sendable, Equatable {
    /// `alg` as sent (compared case-sensitively, RFC 7515 §4.1.1).
    public var algorithm: String
    /// `kid`.
    public var keyID: String?
    /// `typ`.
    public var type: String?
    /// `crit`.
    public var critical: [String]?
    /// All members, for display.
    public var members: [String: JSONValue]

    public init(algorithm: String, keyID: String? = nil, type: String? = nil, critical: [String]? = nil, members: [String: JSONValue] = [:]) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
        self.critical = critical
        self.members = members
    }
}

/// A compact-serialised JWS (RFC 7515 §7.1), decoded but not verified.
public struct CompactJWS: Sendable, Equatable {
    public var header: JOSEHeader
    /// The decoded payload bytes.
    public var payload: Data
    /// ASCII `BASE64URL(header).BASE64URL(payload)`: the signing input (RFC 7515 §5.2).
    public var signingInput: Data
    /// The decoded signature (raw `r||s` for ECDSA).
    public var signature: Data

    /// Parses `BASE64URL(header).BASE64URL(payload).BASE64URL(signature)`.
    /// - Throws: `.unsupported(.encryptedIDToken)` for a 5-part JWE (RFC 7516 §7.1);
    ///   `.protocolViolation(.duplicateMember)` for a header that repeats a member (RFC 7515 §4);
    ///   `.protocolViolation(.malformedJWT)` for anything else that is not a JWS;
    ///   `.protocolViolation(.unsupportedCriticalHeader)` for any `crit` (RFC 7515 §4.1.11).
    public init(parsing compact: String) throws(AuthError) {
        var text = compact
        switch text.withUTF8({ Self.parse(utf8: $0) }) {
        case .success(let jws): self = jws
        case .failure(let error): throw error
        }
    }

    /// The parts of `compact` found on its UTF-8 bytes ("." is ASCII): no `String` per part and
    /// no Character-wise split, whose grapheme breaking was a large part of the parse
    /// (PERFORMANCE.md, "Signatures").
    private static func parse(utf8 compact: UnsafeBufferPointer<UInt8>) -> Result<CompactJWS, AuthError> {
        Result { () throws(AuthError) in
            var dots = 0, first = 0, second = 0
            for index in compact.indices where compact[index] == UInt8(ascii: ".") {
                if dots == 0 { first = index } else if dots == 1 { second = index }
                dots += 1
            }
            if dots + 1 == 5 { throw .unsupported(.encryptedIDToken) }
            guard dots + 1 == 3 else { throw .protocolViolation(.malformedJWT(reason: "expected 3 parts, found \(dots + 1)")) }
            func part(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: compact[range]) }
            return try CompactJWS(
                header: part(0 ..< first), payload: part(first + 1 ..< second),
                signature: part(second + 1 ..< compact.count), signingInput: part(0 ..< second))
        }
    }

    private init(
        header headerPart: UnsafeBufferPointer<UInt8>, payload payloadPart: UnsafeBufferPointer<UInt8>,
        signature signaturePart: UnsafeBufferPointer<UInt8>, signingInput: UnsafeBufferPointer<UInt8>
    ) throws(AuthError) {
        guard let headerData = Base64URL.decode(utf8: headerPart) else {
            throw .protocolViolation(.malformedJWT(reason: "the header is not base64url JSON"))
        }
        let headerObject: [String: JSONValue]
        switch parseJSONObject(headerData) {
        case .success(let object): headerObject = object
        case .failure(.duplicateMember(let name)): throw .protocolViolation(.duplicateMember(name: name, context: "JOSE header"))
        case .failure(.malformed): throw .protocolViolation(.malformedJWT(reason: "the header is not base64url JSON"))
        }
        guard let payload = Base64URL.decode(utf8: payloadPart) else {
            throw .protocolViolation(.malformedJWT(reason: "the payload is not base64url"))
        }
        guard let signature = Base64URL.decode(utf8: signaturePart) else {
            throw .protocolViolation(.malformedJWT(reason: "the signature is not base64url"))
        }
        guard let alg = headerObject.member("alg")?.stringValue else {
            throw .protocolViolation(.malformedJWT(reason: "the header has no alg"))
        }
        // RFC 7515 §4.1.4, §4.1.9: `kid` and `typ` are strings; another type is not "absent" (PARSE-07).
        let keyID: String?, type: String?
        do {
            keyID = try headerObject.optionalString("kid")
            type = try headerObject.optionalString("typ")
        } catch {
            throw .protocolViolation(.malformedJWT(reason: "kid or typ is not a string"))
        }
        let critical: [String]?
        do {
            critical = try headerObject.optionalStringArray("crit")
        } catch {
            throw .protocolViolation(.malformedJWT(reason: "crit is not an array of strings"))
        }
        if let critical { throw .protocolViolation(.unsupportedCriticalHeader(critical)) }
        self.header = JOSEHeader(algorithm: alg, keyID: keyID, type: type, critical: critical, members: headerObject)
        self.payload = payload
        self.signingInput = Data(signingInput)
        self.signature = signature
    }
}
