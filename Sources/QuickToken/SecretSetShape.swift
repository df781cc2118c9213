import CJansson

/// Whether a secret set that reached the launcher from a Secret Service item is one the full
/// program reads (`AccountSecretsEncoding.decode` returns it rather than "damaged"). The
/// launcher's files carry ``WrittenMark`` and its vault is authenticated encryption, both
/// written only by authdeck; an item can be written by any program of the session, so it is
/// checked as the full program checks it:
/// - StrictJSON's document rules beyond jansson's flags: nesting below
///   `authdeck_json_maximum_stored_depth()` levels, and no two member names of one object equal as
///   Swift strings (canonically equivalent spellings, which jansson's byte comparison lets through);
/// - the secret set's shape: `{"version": 1, "secrets": {…}}`; in `secrets`, `resourceAccessTokens`
///   an object of token entries, `defaultAccessToken` absent, `null` or an entry, and
///   `refreshToken`, `idToken`, `clientSecret`, `dpopKey`, `registrationAccessToken` absent, `null`
///   or strings; an entry an object with the string `token`, and `expiresAt` (a number),
///   `tokenType` (a string) and `scope` (a list of strings) each absent, `null` or of that type.
///   Other members are ignored, as the full program ignores them; a name that is not ASCII in
///   those objects is handed over (the full program may read it as one of them, ``hasASCIINames(_:)``).
///
/// Never looser than the full program (what this refuses is handed over, and the full program
/// names the damage); stricter only in the version, which must be 1 (this format's).
enum SecretSetShape {
    static func isReadable(_ envelope: UnsafeMutablePointer<json_t>) -> Bool {
        guard isStrict(envelope, depth: 0), authdeck_json_typeof(envelope) == JSON_OBJECT, hasASCIINames(envelope),
              let version = json_object_get(envelope, "version"), isNumber(version), json_number_value(version) == 1,
              let secrets = json_object_get(envelope, "secrets"), authdeck_json_typeof(secrets) == JSON_OBJECT, hasASCIINames(secrets),
              let resources = json_object_get(secrets, "resourceAccessTokens"), authdeck_json_typeof(resources) == JSON_OBJECT
        else { return false }
        var iterator = json_object_iter(resources)
        while let current = iterator {
            guard isEntry(json_object_iter_value(current)) else { return false }
            iterator = json_object_iter_next(resources, current)
        }
        let strings = ["refreshToken", "idToken", "clientSecret", "dpopKey", "registrationAccessToken"]
        guard isAbsentOrNull(secrets, "defaultAccessToken") || isEntry(json_object_get(secrets, "defaultAccessToken")) else { return false }
        return strings.allSatisfy { isAbsentOrNull(secrets, $0) || isString(json_object_get(secrets, $0)) }
    }

    /// `{"token": "…", "expiresAt": 1800000000, "tokenType": "Bearer", "scope": ["openid"]}`, all but `token` optional.
    static func isEntry(_ entry: UnsafeMutablePointer<json_t>?) -> Bool {
        guard let entry, authdeck_json_typeof(entry) == JSON_OBJECT, hasASCIINames(entry), isString(json_object_get(entry, "token")) else {
            return false
        }
        guard isAbsentOrNull(entry, "expiresAt") || isNumber(json_object_get(entry, "expiresAt")),
              isAbsentOrNull(entry, "tokenType") || isString(json_object_get(entry, "tokenType")) else { return false }
        guard !isAbsentOrNull(entry, "scope") else { return true }
        guard let scope = json_object_get(entry, "scope"), authdeck_json_typeof(scope) == JSON_ARRAY else { return false }
        return (0..<json_array_size(scope)).allSatisfy { isString(json_array_get(scope, $0)) }
    }

    /// Whether every member name of `object` is ASCII. The full program looks members up as Swift
    /// strings, canonically: `"dpop\u{212A}ey"` (KELVIN SIGN) is its `dpopKey`, and not the
    /// launcher's. Where members are looked up by name, any other name is handed over.
    static func hasASCIINames(_ object: UnsafeMutablePointer<json_t>) -> Bool {
        var iterator = json_object_iter(object)
        while let current = iterator {
            guard let key = json_object_iter_key(current),
                  UnsafeRawBufferPointer(start: key, count: json_object_iter_key_len(current)).allSatisfy({ $0 < 0x80 }) else { return false }
            iterator = json_object_iter_next(object, current)
        }
        return true
    }

    /// StrictJSON's rules for every value below `value` (the root at depth 0).
    static func isStrict(_ value: UnsafeMutablePointer<json_t>, depth: Int32) -> Bool {
        guard depth < authdeck_json_maximum_stored_depth() else { return false }
        switch authdeck_json_typeof(value) {
        case JSON_OBJECT:
            var names: [String] = []
            var allASCII = true
            var iterator = json_object_iter(value)
            while let current = iterator {
                guard let key = json_object_iter_key(current), let member = json_object_iter_value(current),
                      isStrict(member, depth: depth + 1) else { return false }
                let name = String(decoding: UnsafeRawBufferPointer(start: key, count: json_object_iter_key_len(current)), as: UTF8.self)
                allASCII = allASCII && name.utf8.allSatisfy { $0 < 0x80 }
                names.append(name)
                iterator = json_object_iter_next(value, current)
            }
            // jansson refused byte-equal names; ASCII names equal as strings are byte-equal.
            return allASCII || Set(names).count == names.count
        case JSON_ARRAY:
            return (0..<json_array_size(value)).allSatisfy { index in json_array_get(value, index).map { isStrict($0, depth: depth + 1) } ?? false }
        default:
            return true
        }
    }

    static func isAbsentOrNull(_ object: UnsafeMutablePointer<json_t>, _ name: String) -> Bool { Document.isAbsentOrNull(object, name) }

    static func isString(_ value: UnsafeMutablePointer<json_t>?) -> Bool { value.map { authdeck_json_typeof($0) == JSON_STRING } ?? false }

    static func isNumber(_ value: UnsafeMutablePointer<json_t>?) -> Bool {
        value.map { authdeck_json_typeof($0) == JSON_REAL || authdeck_json_typeof($0) == JSON_INTEGER } ?? false
    }
}
