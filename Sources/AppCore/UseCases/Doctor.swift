import AuthEngine
import CredentialStore
import FoundationEssentials

/// What `authdeck doctor` found: every file with its condition, accounts whose secrets are
/// missing, secrets no account or configured provider owns, and what could not be checked.
public struct DoctorReport: Equatable, Sendable {
    public var files: [FileHealth]
    /// Account records with no secret set in the store (sign in again, or log out); nil when
    /// that could not be decided (see ``notes``).
    public var accountsWithoutSecrets: [AccountID]?
    /// Store keys with no account record (provider client secrets of configured providers
    /// excluded); nil when that could not be decided (see ``notes``).
    public var orphanedSecrets: [AccountKey]?
    /// What could not be checked and why.
    public var notes: [String]
    /// Stored secret sets that do not decode (a damaged Secret Service item, a vault record).
    public var damagedSecrets: [AccountKey] {
        files.compactMap { file in file.kind == .secretItem ? Doctor.key(named: file.path) : nil }
    }

    public init(files: [FileHealth], accountsWithoutSecrets: [AccountID]?, orphanedSecrets: [AccountKey]?, notes: [String]) {
        self.files = files
        self.accountsWithoutSecrets = accountsWithoutSecrets
        self.orphanedSecrets = orphanedSecrets
        self.notes = notes
    }

    /// Files that are damaged (a repair moves them aside).
    public var damaged: [FileHealth] { files.filter { if case .damaged = $0.condition { true } else { false } } }

    /// Whether nothing needs doing: no damaged, unreadable or unchecked (locked) file, no
    /// orphaned secret, no account without secrets.
    public var isHealthy: Bool {
        !files.contains { !$0.condition.isUsable }
            && (accountsWithoutSecrets ?? []).isEmpty && (orphanedSecrets ?? []).isEmpty
    }
}

/// One step of a repair, reported as it ends.
public struct RepairStep: Equatable, Sendable {
    public enum Outcome: Equatable, Sendable {
        case done(String)
        case skipped(String)
        case failed(AppError)
    }
    /// What the step is about: a path or an account key.
    public var subject: String
    /// "move aside", "rebuild account", "reset active account", "drop cache file", "delete orphaned secret".
    public var action: String
    public var outcome: Outcome

    public init(subject: String, action: String, outcome: Outcome) {
        self.subject = subject
        self.action = action
        self.outcome = outcome
    }
}

/// `authdeck doctor`: a diagnosis that changes nothing, and a repair that runs only when asked.
///
/// Repair, in this order, each step reported:
/// 1. every damaged file is moved aside (same directory, `<name>.damaged-<UTC time>`, 0600,
///    atomic rename under the file's lock): its bytes are kept for the user, never overwritten;
///    a damaged cache file is dropped instead (it is fetched again when needed);
/// 2. when `accounts.json` was moved aside, a record is rebuilt for each stored secret set whose
///    stored ID token names it honestly: a configured provider, `sub` equal to the stored
///    account, `iss` equal to the provider's issuer. The rebuilt record says its ID token is not
///    verified (it is verified again at the next refresh); anything else is not invented;
/// 3. a damaged `active.json`, or one naming an account that no longer exists, is reset (the only
///    account becomes active, else none);
/// 4. orphaned secrets are deleted — only when `providers.json`, `accounts.json` and the secrets
///    were readable at the start of this run: right after a damaged metadata file was moved
///    aside, secrets are never deleted (a second `doctor --repair` does it, once the user has
///    had the chance to restore what was moved aside).
public struct Doctor: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    public func diagnose() -> DoctorReport {
        var files = MetadataFileKind.allCases.map { env.files.check($0) }
        let secrets = env.credentials.check()
        files.append(secrets)
        files += env.cache.check()
        files += env.events.check()
        var notes: [String] = []
        let providersFile = files.first { $0.kind == .providers }
        let accountsFile = files.first { $0.kind == .accounts }
        let records: [AccountRecord]? = accountsFile?.condition.isUsable == true ? try? env.files.accounts() : nil
        let providers: [ProviderConfig]? = providersFile?.condition.isUsable == true ? try? env.files.providers() : nil
        let keys: [AccountKey]? = secrets.condition.isUsable ? storedKeys() : nil
        // Each secret set is read once: a Secret Service item (or a vault record) that does not
        // decode is damaged on its own.
        for key in keys ?? [] {
            do {
                _ = try env.credentials.store().load(key)
            } catch let error as SecretStoreError {
                if let damage = error.damage {
                    files.append(FileHealth(kind: .secretItem, path: Self.name(key), condition: .damaged(damage.description)))
                }
            } catch {}
        }
        if keys == nil {
            notes.append("The stored secrets could not be listed (\(secrets.path): \(secrets.condition.label));"
                + " accounts without secrets and orphaned secrets were not checked.")
        }
        if records == nil { notes.append("accounts.json could not be read; accounts without secrets and orphaned secrets were not checked.") }
        if providers == nil { notes.append("providers.json could not be read; orphaned provider client secrets were not checked.") }
        var withoutSecrets: [AccountID]?
        if let records, let keys {
            let stored = Set(keys)
            withoutSecrets = records.filter { !stored.contains(Accounts.key($0)) }.map(\.id)
        }
        var orphans: [AccountKey]?
        if let records, let keys, let providers {
            orphans = Self.orphans(keys: keys, records: records, providers: providers)
        }
        return DoctorReport(files: files, accountsWithoutSecrets: withoutSecrets, orphanedSecrets: orphans, notes: notes)
    }

    /// A store key as doctor names it: `provider/account`, or `provider (client secret)`.
    public static func name(_ key: AccountKey) -> String {
        key.isProviderClient ? "\(key.provider) (client secret)" : key.description
    }

    /// The key ``name(_:)`` names.
    static func key(named name: String) -> AccountKey? {
        if name.hasSuffix(" (client secret)") { return .providerClient(String(name.dropLast(" (client secret)".count))) }
        guard let slash = name.firstIndex(of: "/") else { return nil }
        return AccountKey(provider: String(name[..<slash]), account: String(name[name.index(after: slash)...]))
    }

    /// Store keys no record and no configured provider owns.
    static func orphans(keys: [AccountKey], records: [AccountRecord], providers: [ProviderConfig]) -> [AccountKey] {
        let owned = Set(records.map(Accounts.key))
        let configured = Set(providers.map(\.id.rawValue))
        return keys.filter { key in
            key.isProviderClient ? !configured.contains(key.provider) : !owned.contains(key)
        }.sorted()
    }

    private func storedKeys() -> [AccountKey]? {
        do { return try env.credentials.store().listAccounts() } catch { return nil }
    }

    /// Repairs what ``diagnose()`` finds (see the type's steps); returns the diagnosis after it.
    public func repair(step: @Sendable (RepairStep) -> Void) -> DoctorReport {
        let before = diagnose()
        let now = env.now()
        var movedAside: Set<FileHealth.Kind> = []

        // 1. Move damaged files aside (cache files are dropped).
        for file in before.damaged {
            switch file.kind {
            case .cache:
                env.cache.drop(file.path)
                step(RepairStep(subject: file.path, action: "drop cache file", outcome: .done("removed; it is fetched again when needed")))
            case .secretItem:
                guard let key = Self.key(named: file.path) else { continue }
                do {
                    let store = try env.credentials.store()
                    try store.withAccountLock(key) { try store.delete(key) }
                    step(RepairStep(subject: file.path, action: "delete damaged secret",
                                    outcome: .done("it could not be read; the account signs in again")))
                } catch {
                    step(RepairStep(subject: file.path, action: "delete damaged secret", outcome: .failed(ErrorMapping.appError(error))))
                }
            case .secrets:
                do throws(AppError) {
                    let moved = try env.credentials.moveAside(now)
                    movedAside.insert(.secrets)
                    step(RepairStep(subject: file.path, action: "move aside",
                                    outcome: .done(moved.map { "moved to \($0); its accounts need to sign in again" } ?? "already gone")))
                } catch {
                    step(RepairStep(subject: file.path, action: "move aside", outcome: .failed(error)))
                }
            case .checkState:
                do throws(AppError) {
                    let moved = try env.events.moveLedgerAside(now)
                    step(RepairStep(subject: file.path, action: "move aside",
                                    outcome: .done(moved.map { "moved to \($0); the next check tells every state again" } ?? "already gone")))
                } catch {
                    step(RepairStep(subject: file.path, action: "move aside", outcome: .failed(error)))
                }
            case .checkConfiguration:
                // The person's own configuration: never moved, said with what to fix.
                step(RepairStep(subject: file.path, action: "leave as it is",
                                outcome: .skipped("your configuration is not moved: fix it (\(file.condition.detail ?? "")) or remove it; "
                                                  + "its members are backstopSeconds, endingSoonSeconds, hooks, notify and providers")))
            case .providers, .storeChoice, .accounts, .active:
                guard let kind = Self.metadataKind(file.kind) else { continue }
                do throws(AppError) {
                    let moved = try env.files.moveAside(kind, now)
                    movedAside.insert(file.kind)
                    let next = switch kind {
                    case .providers: "; add the providers again with 'authdeck provider add'"
                    case .storeChoice: "; the store is chosen again at the next start"
                    default: ""
                    }
                    step(RepairStep(subject: file.path, action: "move aside",
                                    outcome: .done(moved.map { "moved to \($0)\(next)" } ?? "already gone")))
                } catch {
                    step(RepairStep(subject: file.path, action: "move aside", outcome: .failed(error)))
                }
            }
        }

        // 2. Rebuild account records from the stored ID tokens when accounts.json was moved aside.
        if movedAside.contains(.accounts) {
            rebuildAccounts(now: now, step: step)
        }

        // 3. The active account: reset when damaged or pointing at nothing.
        resetActiveAccount(wasDamaged: movedAside.contains(.active), step: step)

        // 4. Orphaned secrets, only from files that were all readable at the start.
        if movedAside.isDisjoint(with: [.providers, .accounts, .secrets]), let orphans = before.orphanedSecrets {
            deleteOrphans(orphans, step: step)
        } else if !movedAside.isDisjoint(with: [.providers, .accounts]) {
            step(RepairStep(subject: "secrets", action: "delete orphaned secrets",
                            outcome: .skipped("a damaged file was just moved aside;"
                                + " run 'authdeck doctor --repair' again to delete secrets no account owns")))
        }
        return diagnose()
    }

    private static func metadataKind(_ kind: FileHealth.Kind) -> MetadataFileKind? {
        switch kind {
        case .providers: .providers
        case .storeChoice: .storeChoice
        case .accounts: .accounts
        case .active: .active
        case .secrets, .cache, .secretItem, .checkConfiguration, .checkState: nil
        }
    }

    private func rebuildAccounts(now: Date, step: @Sendable (RepairStep) -> Void) {
        guard let store = try? env.credentials.store(), let keys = try? store.listAccounts(),
              let providers = try? env.files.providers(), let existing = try? env.files.accounts() else {
            step(RepairStep(subject: "accounts.json", action: "rebuild accounts",
                            outcome: .skipped("the stored secrets or providers.json cannot be read")))
            return
        }
        let owned = Set(existing.map(Accounts.key))
        for key in keys where !key.isProviderClient && !owned.contains(key) {
            guard let provider = providers.first(where: { $0.id.rawValue == key.provider }) else {
                step(RepairStep(subject: key.description, action: "rebuild account",
                                outcome: .skipped("provider '\(key.provider)' is not configured")))
                continue
            }
            guard let secrets = try? store.loadIfPresent(key),
                  let record = Self.rebuiltRecord(key: key, secrets: secrets, provider: provider, storage: store.kind) else {
                step(RepairStep(subject: key.description, action: "rebuild account",
                                outcome: .skipped("no stored ID token names this account and its issuer; sign in again")))
                continue
            }
            do throws(AppError) {
                try env.files.saveAccount(record)
                step(RepairStep(subject: key.description, action: "rebuild account",
                                outcome: .done("rebuilt from the stored ID token (\(record.displayName)); it is verified again at the next refresh")))
            } catch {
                step(RepairStep(subject: key.description, action: "rebuild account", outcome: .failed(error)))
            }
        }
    }

    /// A record from a stored secret set, when its ID token names the account honestly: `sub`
    /// is the stored account and `iss` the provider's issuer. Nil otherwise.
    static func rebuiltRecord(key: AccountKey, secrets: AccountSecrets, provider: ProviderConfig, storage: SecretStoreKind) -> AccountRecord? {
        guard let raw = secrets.idToken?.exposedValue, let jws = try? CompactJWS(parsing: raw),
              let claims = try? IDTokenClaims(payload: jws.payload),
              claims.subject.utf8.elementsEqual(key.account.utf8) else { return nil }
        if let issuer = provider.issuer?.absoluteString {
            func trimmed(_ text: String) -> Substring { text.hasSuffix("/") ? text.dropLast() : Substring(text) }
            guard trimmed(claims.issuer).utf8.elementsEqual(trimmed(issuer).utf8) else { return nil }
        }
        let subject = claims.subject
        let entry = secrets.defaultAccessToken
        let scopes = entry?.scope ?? provider.scopes
        let accessTokens = entry.map { entry in
            [AccessTokenInfo(expiresAt: entry.expiresAt, issuedAt: claims.issuedAt, tokenType: entry.tokenType ?? "Bearer", scopes: scopes,
                             informationalClaims: TokenConversions.informationalClaims(AccessToken(entry.token.exposedValue)))]
        } ?? []
        return AccountRecord(
            id: AccountID(provider: provider.id, subject: subject), providerID: provider.id, issuer: claims.issuer, subject: subject,
            displayName: TokenConversions.displayName(claims.all, subject: subject),
            username: claims.all["preferred_username"]?.stringValue ?? claims.all["login"]?.stringValue, email: claims.all["email"]?.stringValue,
            requestedScopes: provider.scopes, grantedScopes: scopes, accessTokens: accessTokens, hasRefreshToken: secrets.refreshToken != nil,
            idToken: IDTokenInfo(header: .object(jws.header.members), claims: .object(claims.all),
                                 signature: .notVerified(reason: "restored by 'authdeck doctor --repair' from the stored ID token;"
                                     + " verified again at the next refresh"),
                                 expiresAt: claims.expiresAt, issuedAt: claims.issuedAt),
            signedInAt: claims.issuedAt, storage: storage)
    }

    private func resetActiveAccount(wasDamaged: Bool, step: @Sendable (RepairStep) -> Void) {
        guard let records = try? env.files.accounts() else { return }
        let current: AccountID?
        if wasDamaged {
            current = nil
        } else {
            do throws(AppError) { current = try env.files.activeAccount() } catch { return }  // still unreadable: leave it
        }
        let dangling = current.map { id in !records.contains { $0.id == id } } ?? false
        guard wasDamaged || dangling else { return }
        let next = records.count == 1 ? records[0].id : nil
        do throws(AppError) {
            try env.files.saveActiveAccount(next)
            step(RepairStep(subject: "active.json", action: "reset active account",
                            outcome: .done(next.map { "\($0) is the active account" } ?? "no account is active; choose one with 'authdeck switch'")))
        } catch {
            step(RepairStep(subject: "active.json", action: "reset active account", outcome: .failed(error)))
        }
    }

    private func deleteOrphans(_ orphans: [AccountKey], step: @Sendable (RepairStep) -> Void) {
        guard !orphans.isEmpty else { return }
        let store: any SecretStore
        do throws(AppError) { store = try env.credentials.store() } catch {
            step(RepairStep(subject: "secrets", action: "delete orphaned secrets", outcome: .failed(error)))
            return
        }
        for key in orphans {
            do {
                try store.withAccountLock(key) { try store.delete(key) }
                step(RepairStep(subject: Self.name(key), action: "delete orphaned secret",
                                outcome: .done(key.isProviderClient
                                    ? "client secret of a provider that is no longer configured"
                                    : "no account record owns it")))
            } catch {
                step(RepairStep(subject: Self.name(key), action: "delete orphaned secret", outcome: .failed(ErrorMapping.appError(error))))
            }
        }
    }
}
