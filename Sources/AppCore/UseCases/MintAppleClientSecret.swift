import AuthEngine
import CredentialStore
import FoundationEssentials

/// The developer's key file as the front end found it (read without following a symlink).
public struct AppleKeyFile: Sendable {
    public var path: String
    public var contents: Data
    /// POSIX permission bits.
    public var permissions: Int
    public var isSymbolicLink: Bool
    public init(path: String, contents: Data, permissions: Int, isSymbolicLink: Bool) {
        self.path = path
        self.contents = contents
        self.permissions = permissions
        self.isSymbolicLink = isSymbolicLink
    }
}

/// `authdeck apple client-secret`: Sign in with Apple's ES256 client-secret JWT from a
/// `AuthKey_<KEYID>.p8` file. Rules: every input checked (10-character team and key ids, the
/// Services ID, at most 15 777 000 s); the key file is not a symlink, readable by its owner only
/// (0600 or stricter) and a PKCS#8 P-256 key.
public struct MintAppleClientSecret: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    public struct Minted: Sendable {
        public var secret: ClientSecret
        public var expiresAt: Date
    }

    /// - Throws: `.usage` ``AppError``s naming the bad input and what to do.
    public func run(teamID: String, keyID: String, clientID: String, days: Int, keyFile: AppleKeyFile) throws(AppError) -> Minted {
        let lifetime = TimeInterval(days) * 86_400
        func usage(_ title: String, _ detail: String) -> AppError {
            AppError(title: title, detail: detail, specReference: "Sign in with Apple REST API, client_secret", disposition: .usage)
        }
        do {
            try AppleClientSecret.validate(teamID: teamID, keyID: keyID, clientID: clientID, lifetimeSeconds: lifetime)
        } catch {
            throw Self.appError(error, days: days)
        }
        guard !keyFile.isSymbolicLink else {
            throw usage("The key file \(keyFile.path) is a symbolic link", "Give the path of the .p8 file itself.")
        }
        guard keyFile.permissions & 0o077 == 0 else {
            throw usage("The key file \(keyFile.path) is readable by others (mode \(String(keyFile.permissions & 0o777, radix: 8)))",
                        "Make it private first: chmod 600 \(keyFile.path)")
        }
        let key: JWSKeyPair
        do { key = try env.crypto.readPKCS8P256(keyFile.contents) } catch {
            throw usage("The key file \(keyFile.path) is not a PKCS#8 P-256 private key", "\(error); download AuthKey_\(keyID).p8 again from Apple.")
        }
        let now = env.now()
        do {
            let secret = try AppleClientSecret.make(key: key, teamID: teamID, keyID: keyID, clientID: clientID, issuedAt: now,
                                                    lifetimeSeconds: lifetime, crypto: env.crypto)
            return Minted(secret: secret, expiresAt: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down) + lifetime))
        } catch {
            throw Self.appError(error, days: days)
        }
    }

    /// The provider's client secret after the renewal rule: the kept one while more than
    /// ``AppleClientSecret/renewalMarginSeconds`` remain before its `exp`, else a new one minted
    /// from the key file and stored (replacing the old one).
    /// - Throws: the minting errors (key file, ids) and store errors.
    func renewed(_ stored: AccountSecrets?, provider: ProviderConfig, source: AppleClientSecretSource) throws(AppError) -> AccountSecrets {
        if let secret = stored?.clientSecret, !AppleClientSecret.needsRenewal(expiresAt: Self.expiry(of: secret.exposedValue), now: env.now()),
           let stored {
            return stored
        }
        let minted = try run(teamID: source.teamID, keyID: source.keyID, clientID: provider.clientID, days: source.days ?? 180,
                             keyFile: try env.readKeyFile(source.keyPath))
        var secrets = stored ?? AccountSecrets()
        secrets.clientSecret = StoredClientSecret(minted.secret.exposedValue)
        do { try env.credentials.store().save(secrets, for: .providerClient(provider.id.rawValue)) } catch { throw ErrorMapping.appError(error) }
        return secrets
    }

    /// The `exp` of a client secret JWT we minted (read, not verified: it is our own), or nil.
    static func expiry(of jwt: String) -> Date? {
        guard let jws = try? CompactJWS(parsing: jwt), case .success(let claims) = parseJSONObject(jws.payload),
              let exp = claims["exp"]?.numberValue else { return nil }
        return Date(timeIntervalSince1970: exp)
    }

    static func appError(_ failure: AppleClientSecret.Failure, days: Int) -> AppError {
        let (title, detail): (String, String)
        switch failure {
        case .invalidTeamID(let value):
            (title, detail) = ("Invalid --team-id '\(value)'", "Apple team ids are 10 characters of A-Z and 0-9 (Membership details).")
        case .invalidKeyID(let value):
            (title, detail) = ("Invalid --key-id '\(value)'",
                               "Apple key ids are 10 characters of A-Z and 0-9 (the XXXXXXXXXX of AuthKey_XXXXXXXXXX.p8).")
        case .invalidClientID(let value): (title, detail) = ("Invalid --client-id '\(value)'", "Give the Services ID, e.g. com.example.web.")
        case .lifetimeOutOfRange:
            (title, detail) = ("--days \(days) is out of range", "Apple accepts at most 15777000 seconds (182 days); give 1 to 182.")
        case .key(let error): (title, detail) = ("The key cannot sign", "\(error)")
        }
        return AppError(title: title, detail: detail, specReference: "Sign in with Apple REST API, client_secret", disposition: .usage)
    }
}
