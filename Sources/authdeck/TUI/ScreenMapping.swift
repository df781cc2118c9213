import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import TerminalUI

/// What the TUI keeps besides the store's state: pure UI state (selection, tab, filter, help),
/// the sign-in form being edited, the sign-out confirmation, revealed secrets.
struct TUIState: Equatable {
    var local = LocalUIState()
    /// The sign-in form before it is submitted.
    var signInForm: SignInDialog?
    /// The account whose sign-out awaits confirmation.
    var confirmSignOut: AccountID?
    /// The device-flow QR code, computed once per verification URI.
    var qr: (text: String, matrix: [[Bool]]?)?
    var readOnly = false
    /// `AUTHDECK_NOTES`: lines under the panes (room permitting) and at the foot of the `?` overlay.
    var notes: [String] = []

    static func == (lhs: TUIState, rhs: TUIState) -> Bool {
        lhs.local == rhs.local && lhs.signInForm == rhs.signInForm && lhs.confirmSignOut == rhs.confirmSignOut
            && lhs.qr?.text == rhs.qr?.text && lhs.readOnly == rhs.readOnly
    }
}

/// The view model: AppCore's state plus the TUI's own state → TerminalUI's `ScreenModel`.
/// Pure: `now` comes from the state.
enum ScreenMapping {
    static func model(_ state: AppState, _ ui: TUIState, now: Date) -> ScreenModel {
        let active = state.effectiveActiveAccountID
        let providers = Dictionary(state.providers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = state.accounts.map { account -> AccountRow in
            let record = account.record
            let token = record.defaultAccessToken
            var row = AccountRow(
                id: record.id.rawValue, displayName: record.alias.map { "\($0) (\(record.displayName))" } ?? record.displayName,
                provider: providers[record.providerID]?.displayName ?? record.providerID.rawValue,
                isActive: record.id == active, status: state.status(of: account),
                accessExpiresAt: token?.expiresAt, accessLifetime: token.flatMap { t in t.expiresAt.map { $0.timeIntervalSince(t.issuedAt) } },
                isLoopbackHTTP: providers[record.providerID]?.isLoopbackHTTP ?? false)
            row.dpopThumbprint = record.dpopThumbprint
            return row
        }
        var model = ScreenModel(
            now: now, timeZone: .system,
            header: HeaderModel(activeAccountName: active.flatMap { state.account($0)?.record.displayName },
                                storeBackend: state.credentialStore.name, storeIsInsecure: state.credentialStore.isInsecure),
            accounts: rows, readOnly: ui.readOnly)
        model.notes = ui.notes
        model.flash = state.flash
        if let damage = storeDamage(state) {
            model.storeDamage = ["store damaged:"] + state.damage.flatMap { ["  \($0.file)", "  (\($0.damage))"] } + ["run 'authdeck doctor'"]
            if model.flash == nil { model.flash = Flash(level: .error, text: damage) }
        }
        model = ui.local.applied(to: model)
        if let selected = model.selectedAccount, let account = state.account(AccountID(selected.id)) {
            model.detail = detail(account, state: state, ui: ui)
            model = ui.local.applied(to: model)
        }
        model.dialog = dialog(state, ui)
        return model
    }

    /// "store damaged: FILE (what is wrong); run 'authdeck doctor'", nil when nothing is damaged.
    static func storeDamage(_ state: AppState) -> String? {
        guard let first = state.damage.first else { return nil }
        let more = state.damage.count > 1 ? " and \(state.damage.count - 1) more" : ""
        return "store damaged: \(first.file) (\(first.damage))\(more); run 'authdeck doctor'"
    }

    static func claims(_ value: JSONValue) -> ClaimValue {
        switch value {
        case .null: .null
        case .bool(let b): .bool(b)
        case .number(let n): .number(n)
        case .string(let s): .string(s)
        case .array(let a): .array(a.map(claims))
        case .object(let o): .object(o.keys.sorted().map { ClaimMember(key: $0, value: claims(o[$0]!)) })
        }
    }

    static func errorLine(_ error: AppError) -> ErrorLine {
        ErrorLine(message: error.detail.isEmpty ? error.title : "\(error.title): \(error.detail)", clause: error.specReference)
    }

    static func detail(_ account: AccountState, state: AppState, ui: TUIState) -> DetailModel {
        let record = account.record
        let provider = state.providers.first { $0.id == record.providerID }
        let token = record.defaultAccessToken
        let overview = OverviewModel(
            provider: provider?.displayName ?? record.providerID.rawValue, issuer: record.issuer, subject: record.subject,
            storage: record.storage.rawValue, storageIsInsecure: record.storage.isInsecure,
            accessExpiresAt: token?.expiresAt, accessLifetime: token.flatMap { t in t.expiresAt.map { $0.timeIntervalSince(t.issuedAt) } },
            hasRefreshToken: record.hasRefreshToken, refreshExpiresAt: record.refreshTokenExpiresAt,
            idTokenExpiresAt: record.idToken?.expiresAt, lastRefresh: record.lastRefreshAt, lastError: account.lastError.map(errorLine))
        let change = record.scopeChange
        let scopes = ScopesModel(requested: record.requestedScopes, granted: record.grantedScopes,
                                 lastRefreshDiff: change.map { ScopeDiff(added: $0.added, removed: $0.removed) })
        let idToken = record.idToken.map { info -> IDTokenModel in
            IDTokenModel(header: claims(info.header), claims: claims(info.claims), signature: info.signature)
        }
        let introspection: ClaimValue? = if case .loaded(let value) = account.introspection { claims(value) } else { nil }
        let accessTokens = record.accessTokens.map { info -> AccessTokenEntry in
            let kind: AccessTokenEntry.Kind
            if case .object(let decoded)? = info.informationalClaims, let header = decoded["header"], let body = decoded["claims"] {
                kind = .decoded(header: claims(header), claims: claims(body))
            } else {
                kind = info.format == .encrypted ? .encrypted : .opaque
            }
            return AccessTokenEntry(resource: info.resource, kind: kind, expiresAt: info.expiresAt,
                                    introspection: info.resource == nil ? introspection : nil)
        }
        let userinfo: UserinfoState = switch account.userinfo {
        case .idle: .notFetched
        case .loading: .loading
        case .loaded(let value): .loaded(claims(value))
        case .failed(let error): .failed(errorLine(error))
        }
        var raw: [RawTokenEntry] = []
        if case .loaded(let entries) = account.storedTokens {
            // The renderer's last step: revealed values leave the redacting type only here.
            raw = entries.map { entry in
                RawTokenEntry(label: entry.label, value: ui.local.revealed ? .revealed(entry.value.exposedValue) : .masked(TokenMask.mask(entry.value.exposedValue)))
            }
        }
        return DetailModel(overview: overview, scopes: scopes, idToken: idToken, accessTokens: accessTokens, userinfo: userinfo, raw: raw,
                           provider: provider)
    }

    static func dialog(_ state: AppState, _ ui: TUIState) -> Dialog? {
        if let signOut = state.signOut {
            let steps = signOut.steps.map { step -> SignOutStep in
                let result: SignOutStep.Result = switch step.outcome {
                case .done(let text): .done(text)
                case .skipped(let text): .skipped(text)
                case .failed(let error): .failed(errorLine(error))
                }
                return SignOutStep(name: step.step.rawValue, result: result)
            }
            let running = signOut.finished ? [] : [SignOutStep(name: "working", result: .running)]
            return .signOutProgress(SignOutProgressDialog(accountName: signOut.displayName, steps: steps + running, finished: signOut.finished))
        }
        if let id = ui.confirmSignOut, let account = state.account(id) {
            return .signOutConfirm(SignOutConfirmDialog(accountID: id.rawValue, accountName: account.record.displayName,
                                                        willRevoke: true, willEndSession: true))
        }
        if let flow = state.signIn {
            let providerName = state.providers.first { $0.id == flow.request.providerID }?.displayName ?? flow.request.providerID.rawValue
            if let device = flow.device {
                let polling: DevicePollStatus
                switch flow.phase {
                case .failed(let error): polling = .failed(errorLine(error))
                case .progress(.deviceSlowDown(let interval)): polling = .slowDown(interval: Int(interval.components.seconds))
                case .progress(.devicePending): polling = .authorizationPending
                case .progress(.verifying): polling = .approved
                default: polling = .waiting
                }
                let complete = device.verificationURIComplete?.absoluteString
                return .device(DeviceDialog(
                    providerName: providerName, userCode: device.userCode, verificationURI: device.verificationURI.absoluteString,
                    verificationURIComplete: complete, qr: ui.qr?.text == (complete ?? device.verificationURI.absoluteString) ? ui.qr?.matrix : nil,
                    expiresAt: device.expiresAt, polling: polling))
            }
            switch flow.phase {
            case .progress(.waitingForBrowser(let url, let opened)):
                return .browserWaiting(BrowserWaitingDialog(
                    providerName: providerName, url: url.absoluteString,
                    browserNote: opened ? "Opened in your browser; finish signing in there." : "No browser could be opened here: open this URL in any browser on this machine."))
            case .failed(let error):
                return .browserWaiting(BrowserWaitingDialog(providerName: providerName, url: "", browserNote: errorLine(error).message, stage: .failed))
            case .progress(.exchangingCode), .progress(.verifying):
                return .browserWaiting(BrowserWaitingDialog(providerName: providerName, url: "", stage: .verifying))
            default:
                return .browserWaiting(BrowserWaitingDialog(providerName: providerName, url: "", stage: .contacting))
            }
        }
        if let form = state.presetForm { return .presetForm(PresetFormMapping.dialog(form)) }
        if let form = ui.signInForm { return .signIn(form) }
        return nil
    }
}
