import CJansson
import TextSupport
#if canImport(Glibc)
import Glibc
#endif

/// `authdeck token` answered by the launcher, before the full program is loaded: the stored access
/// token of the default account, when every input is one the full program would read without a
/// word and its answer would be that same token. The rules are the full program's (the account
/// resolution of `AccountResolution`, the freshness of `TokenForScripts`); this is the subset
/// that needs no network, no prompt and nothing to say on stderr. Anything else — an option, an
/// account named, `AUTHDECK_ACCOUNT`, a git config or directory rule that could name an account,
/// a file not exactly as authdeck wrote it (``WrittenMark``), a store other than the vault or the
/// Secret Service, a vault key not cached, a Secret Service that does not answer at once, a
/// token within a minute of its expiry, a grant under refresh or gone, a DPoP token — is nil,
/// and the full program answers.
public enum QuickAnswer {
    /// The `AUTHDECK_*` variables that do not change what a plain `authdeck token` answers when
    /// the vault's key is cached (a passphrase source is not read then; the screen's settings).
    static let harmlessVariables = [
        "AUTHDECK_PASSPHRASE_FILE", "AUTHDECK_PASSPHRASE_FD", "AUTHDECK_HOOK_EVENT", "AUTHDECK_THEME", "AUTHDECK_THEMES_DIR", "AUTHDECK_NOTES",
    ]

    /// What the launcher does with a call: prints `output` and exits, or hands the call over
    /// for `reason` (words for `authdeck doctor`; no value from a file or a variable).
    public enum Decision: Equatable, Sendable {
        /// `output` printed, then the exit status `exitCode`.
        case answer(output: String, exitCode: Int32 = 0)
        case handOver(reason: String)

        public var output: String? { if case .answer(let output, _) = self { output } else { nil } }
    }

    /// What to print (the token and a line end; with `--exec-credential` the ExecCredential JSON,
    /// as the full program writes it) for `arguments` (argv, with the program name) with the process
    /// environment `variables` (`NAME=value` entries, as `environ` holds them) run in `directory`
    /// (the real path of the current directory), at `now` (seconds since 1970); nil when the full
    /// program must answer (``decide(arguments:variables:directory:now:)`` says why).
    public static func output(arguments: [String], variables: [String], directory: String?, now: Double) -> String? {
        decide(arguments: arguments, variables: variables, directory: directory, now: now).output
    }

    /// ``output(arguments:variables:directory:now:)``, or why the full program answers.
    public static func decide(arguments: [String], variables: [String], directory: String?, now: Double) -> Decision {
        func handOver(_ reason: String) -> Decision { .handOver(reason: reason) }
        let execCredential = arguments.count == 3 && arguments[2].utf8.elementsEqual("--exec-credential".utf8)
        guard arguments.count == 2 || execCredential, arguments[1].utf8.elementsEqual("token".utf8),
              let name = arguments.first.map(PathText.lastComponent), name.utf8.elementsEqual(ProgramLayout.launcherName.utf8),
              let directory else { return handOver("only a plain 'authdeck token' (or 'token --exec-credential') is answered") }
        var reason = ""
        guard let plain = plain(variables: variables, directory: directory, reason: &reason) else { return handOver(reason) }
        let paths = plain.paths, store = plain.store, environment = plain.environment, systemdVariable = plain.systemdVariable
        let changed = " is missing, or not as authdeck last wrote it (a hand edit, its mode, another version; the next write marks it)"
        guard let accounts = Document(WrittenMark.readUnchanged("\(paths.stateDirectory)/accounts.json")) else {
            return handOver("accounts.json" + changed)
        }
        let activePath = "\(paths.stateDirectory)/active.json"
        let active = Document(WrittenMark.readUnchanged(activePath))
        guard active != nil || !exists(activePath) else { return handOver("active.json" + changed) }
        // The default account: the active one, else the only one (AccountResolution's last two rules).
        let count = json_array_size(accounts.root)
        guard count > 0 else { return handOver("no account is signed in") }
        var chosen: UnsafeMutablePointer<json_t>?
        if let active {
            guard let id = active.string("account") else { return handOver("no active account") }
            for index in 0..<count {
                let record = json_array_get(accounts.root, index)
                if Document.string(record, "id").map({ $0.utf8.elementsEqual(id.utf8) }) == true {
                    chosen = record
                    break
                }
            }
            // An active account that is gone is a warning in the full program.
            guard chosen != nil else { return handOver("the active account is not signed in any more") }
        } else {
            guard count == 1 else { return handOver("no active account among several") }
            chosen = json_array_get(accounts.root, 0)
        }
        guard let record = chosen, let provider = Document.string(record, "providerID"), let subject = Document.string(record, "subject"),
              Document.string(record, "storage").flatMap(StoreKind.init) == store,
              Document.isAbsentOrNull(record, "needsSignInSince"), Document.isAbsentOrNull(record, "refreshSentAt") else {
            return handOver("the account needs signing in, is being refreshed, or keeps its secrets elsewhere")
        }
        let output: String?
        switch store {
        case .vault:
            reason = "the vault cannot be read here: not private to you, no key cached in the kernel keyring, or not this format"
            output = StoredVault.withSecrets(vault: paths.vaultFile, provider: provider, account: subject) { envelope in
                answer(envelope, now: now, execCredential: execCredential, reason: &reason)
            }
        case .secretService:
            guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else {
                return handOver("DBUS_SESSION_BUS_ADDRESS is unset (the full program looks for the session bus)")
            }
            guard SessionBusSecret.isOneUnixSocket(address) else {
                return handOver("DBUS_SESSION_BUS_ADDRESS is not one unix: address (the full program reads the others)")
            }
            // libsystemd's logging and debugging switches: the launcher prints nothing but the token.
            if let systemdVariable { return handOver("\(systemdVariable) is set (libsystemd reads it)") }
            reason = "the Secret Service did not hand over the item at once: not running, no unlocked item, an error, or late"
            let attributes = SecretServiceItem.attributes(provider: provider, account: subject)
            output = SessionBusSecret.withSecret(address: address, attributes: attributes) { bytes in
                guard let envelope = Document(parsing: bytes), SecretSetShape.isReadable(envelope.root) else {
                    reason = "the Secret Service's item is not a secret set the full program reads (damaged, or another program's)"
                    return nil
                }
                return answer(envelope.root, now: now, execCredential: execCredential, reason: &reason)
            }
        }
        return output.map { Decision.answer(output: $0) } ?? handOver(reason)
    }

    /// What every quick answer needs, found by ``plain(variables:directory:reason:)``.
    struct Plain {
        var paths: XDGPaths
        var store: StoreKind
        /// The variables the answers read (XDG, git, authdeck's own, `HOME`, `PATH`, the session bus).
        var environment: [String: String]
        /// A `SYSTEMD_*` variable set (libsystemd reads them).
        var systemdVariable: String?
    }

    /// The conditions under which the full program's answer depends on nothing but the files
    /// authdeck wrote: only harmless `AUTHDECK_*` variables, each variable given once, the store
    /// named or recorded (and the two the same), `providers.json` as authdeck wrote it, no
    /// directory rules, and no git config here that could name an account. Nil with `reason` set
    /// (words for `authdeck doctor`) otherwise. Both quick answers (`token`, ``QuickStatus``) start here,
    /// and the full program asks it before it leaves a status for the launcher.
    static func plain(variables: [String], directory: String, reason: inout String) -> Plain? {
        func refuse(_ text: String) -> Plain? {
            reason = text
            return nil
        }
        // Only what the decision reads: the XDG and git variables (`GIT_*` makes the git rule
        // run git), and authdeck's own, each of which is either harmless here or a reason to hand over.
        var environment: [String: String] = [:]
        var systemdVariable: String?
        for entry in variables {
            guard let equals = entry.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(entry[..<equals]), value = String(entry[entry.index(after: equals)...])
            if key.utf8.starts(with: "SYSTEMD_".utf8) { systemdVariable = key }
            if key.utf8.starts(with: "AUTHDECK_".utf8) {
                if key.utf8.elementsEqual("AUTHDECK_STORE".utf8) {
                    guard value.isEmpty || StoreKind(value) != nil else { return refuse("AUTHDECK_STORE names another store") }
                } else if !harmlessVariables.contains(where: { $0.utf8.elementsEqual(key.utf8) }),
                          // The test fixtures' (the browser stand-in's; Argon2id limits for vaults
                          // the tests create, and none is created here).
                          !key.utf8.starts(with: "AUTHDECK_TEST_".utf8) {
                    return refuse("\(key) is set")
                }
            }
            if key.utf8.starts(with: "XDG_".utf8) || key.utf8.starts(with: "GIT_".utf8) || key.utf8.starts(with: "AUTHDECK_".utf8)
                || key.utf8.elementsEqual("HOME".utf8) || key.utf8.elementsEqual("PATH".utf8)
                || key.utf8.elementsEqual("DBUS_SESSION_BUS_ADDRESS".utf8) {
                // A name given twice: which one a library reads is its own choice.
                guard environment.updateValue(value, forKey: key) == nil else { return refuse("\(key) is set twice") }
            }
        }
        let paths = XDGPaths(environment: environment)
        // The store: the one `AUTHDECK_STORE` names, or the one store.json records (StoreSelection's
        // first two rules). A store.json that records another store than the variable names is the
        // full program's to reconcile with it.
        let recorded = Document(WrittenMark.readUnchanged("\(paths.configDirectory)/store.json"))?.string("kind").flatMap(StoreKind.init)
        let named = environment["AUTHDECK_STORE"].flatMap(StoreKind.init)
        guard let store = named ?? recorded else {
            return refuse("no store is named: AUTHDECK_STORE is unset and store.json is missing or not as authdeck wrote it")
        }
        if named != nil, exists("\(paths.configDirectory)/store.json"), recorded != named {
            return refuse("store.json records another store than AUTHDECK_STORE, or is not as authdeck wrote it")
        }
        // Files the full program reads on the way: each as it wrote it, or absent where that is fine.
        let changed = " is missing, or not as authdeck last wrote it (a hand edit, its mode, another version; the next write marks it)"
        guard WrittenMark.readUnchanged("\(paths.configDirectory)/providers.json") != nil else { return refuse("providers.json" + changed) }
        guard !exists("\(paths.configDirectory)/bindings.json") else { return refuse("directory rules exist (bindings.json)") }
        let gitEnvironment = environment.filter { !$0.key.utf8.starts(with: "AUTHDECK_".utf8) }
        guard !GitConfigFiles.mayMention("authdeck", directory: directory, environment: gitEnvironment) else {
            let variable = gitEnvironment.keys.sorted().first(where: GitConfigFiles.mayChangeConfig)
            return refuse("git config here could name an account: "
                + (variable.map { "\($0) is set (it can change what git config reads)" } ?? "a file git reads here mentions authdeck or an include"))
        }
        return Plain(paths: paths, store: store, environment: environment, systemdVariable: systemdVariable)
    }

    /// Whether ``plain(variables:directory:reason:)`` finds the call plain (the full program, before it keeps a status).
    public static func isPlain(variables: [String], directory: String) -> Bool {
        var reason = ""
        return plain(variables: variables, directory: directory, reason: &reason) != nil
    }

    /// What to print for the secret set `envelope` (`{"secrets": {…}, "version": 1}`, as
    /// `AccountSecretsEncoding` writes it): the default access token when it is a Bearer token
    /// valid for more than ``TokenFreshness/defaultMinimumValidity``; nil with `reason` set otherwise.
    static func answer(_ envelope: UnsafeMutablePointer<json_t>, now: Double, execCredential: Bool, reason: inout String) -> String? {
        reason = "the store holds no default access token for the account"
        guard let version = json_object_get(envelope, "version"), json_number_value(version) == 1,
              let secrets = json_object_get(envelope, "secrets"), authdeck_json_typeof(secrets) == JSON_OBJECT,
              let entry = json_object_get(secrets, "defaultAccessToken"), authdeck_json_typeof(entry) == JSON_OBJECT,
              let token = Document.string(entry, "token") else { return nil }
        reason = "the access token is not a Bearer token (a DPoP token comes with a note from the full program)"
        if let type = json_object_get(entry, "tokenType"), authdeck_json_typeof(type) != JSON_NULL {
            guard let text = Document.string(entry, "tokenType"),
                  text.utf8.map({ $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }).elementsEqual("bearer".utf8) else { return nil }
        }
        var expiresAt: Double?
        if let value = json_object_get(entry, "expiresAt"), authdeck_json_typeof(value) != JSON_NULL {
            guard authdeck_json_typeof(value) == JSON_REAL || authdeck_json_typeof(value) == JSON_INTEGER else { return nil }
            expiresAt = json_number_value(value)
        }
        guard TokenFreshness.isFresh(expiresAt: expiresAt, now: now, validity: TokenFreshness.defaultMinimumValidity) else {
            reason = "the access token has a minute or less left (the full program refreshes it)"
            return nil
        }
        if execCredential { return Self.execCredential(token, expiresAt: expiresAt) }
        // The full program's line output makes control characters and escape sequences visible
        // (Output, Sanitizer): such a token is its to print.
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) || Sanitizer.visible(token).utf8.elementsEqual(token.utf8) else {
            reason = "the access token holds characters the full program makes visible (control characters, escapes)"
            return nil
        }
        return token + "\n"
    }

    /// The stores the launcher reads: `SecretStoreKind`'s raw values for them, compared byte for byte.
    enum StoreKind: Equatable {
        case vault, secretService

        init?(_ text: String) {
            if text.utf8.elementsEqual("vault".utf8) {
                self = .vault
            } else if text.utf8.elementsEqual("secret-service".utf8) {
                self = .secretService
            } else {
                return nil
            }
        }
    }

    /// Kubernetes' ExecCredential (`client.authentication.k8s.io/v1`), written by jansson with
    /// StrictJSON's flags (sorted members, two-space indentation) as the full program writes it;
    /// nil when the expiry is outside what the arithmetic writes (the full program answers).
    static func execCredential(_ token: String, expiresAt: Double?) -> String? {
        guard let root = json_object(), let status = json_object() else { return nil }
        defer { authdeck_json_decref(root) }
        // Not UTF-8 (never from a provider's JSON): the full program says what it does with it.
        guard let value = json_stringn(token, token.utf8.count) else { return nil }
        json_object_set_new(root, "apiVersion", json_string("client.authentication.k8s.io/v1"))
        json_object_set_new(root, "kind", json_string("ExecCredential"))
        json_object_set_new(root, "status", status)
        json_object_set_new(status, "token", value)
        if let expiresAt {
            guard let text = UTCTimeText.wholeSeconds(expiresAt) else { return nil }
            json_object_set_new(status, "expirationTimestamp", json_string(text))
        }
        guard let dumped = json_dumps(root, authdeck_json_encode_flags(1, 1)) else { return nil }
        defer { free(dumped) }
        return String(cString: dumped) + "\n"
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 || errno != ENOENT
    }
}

/// A JSON document parsed by jansson with StrictJSON's flags (duplicate names rejected), freed
/// with the value.
final class Document {
    let root: UnsafeMutablePointer<json_t>

    init?(_ bytes: [UInt8]?) {
        guard let parsed = bytes?.withUnsafeBytes(Self.parse) else { return nil }
        root = parsed
    }

    /// `bytes` parsed with whole numbers kept as integers (JSON_INTEGER), for a document written
    /// back as it was read (``QuickStatus``); duplicate names rejected as by StrictJSON.
    init?(parsingIntegers bytes: [UInt8]) {
        var error = json_error_t()
        guard !bytes.isEmpty, let parsed = bytes.withUnsafeBytes({ buffer in
            json_loadb(buffer.baseAddress!.assumingMemoryBound(to: CChar.self), buffer.count, Int(JSON_REJECT_DUPLICATES), &error)
        }) else { return nil }
        root = parsed
    }

    /// Parses `bytes` where they are (a secret is not copied into an array first).
    init?(parsing bytes: UnsafeRawBufferPointer) {
        guard let parsed = Self.parse(bytes) else { return nil }
        root = parsed
    }

    static func parse(_ bytes: UnsafeRawBufferPointer) -> UnsafeMutablePointer<json_t>? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        var error = json_error_t()
        return json_loadb(base.assumingMemoryBound(to: CChar.self), bytes.count, authdeck_json_decode_flags(), &error)
    }

    deinit { authdeck_json_decref(root) }

    func string(_ name: String) -> String? { Self.string(root, name) }

    static func string(_ object: UnsafeMutablePointer<json_t>?, _ name: String) -> String? {
        guard let value = json_object_get(object, name), authdeck_json_typeof(value) == JSON_STRING,
              let text = json_string_value(value) else { return nil }
        let length = json_string_length(value)
        // A string with U+0000 inside is refused by the reader's flags; the length still decides.
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }

    static func isAbsentOrNull(_ object: UnsafeMutablePointer<json_t>, _ name: String) -> Bool {
        guard let value = json_object_get(object, name) else { return true }
        return authdeck_json_typeof(value) == JSON_NULL
    }
}
