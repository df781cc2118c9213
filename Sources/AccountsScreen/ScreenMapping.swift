import AppCore
import AuthEngine
import FoundationEssentials
import TerminalUI

/// The view model: the screen's state → TerminalUI's `ScreenModel`. Pure: `now` comes from the
/// state (the loop sets the drawing instant on the model it renders).
enum ScreenMapping {
    static func model(_ screen: AccountsScreen.State) -> ScreenModel {
        let state = screen.app, view = screen.view
        let active = state.effectiveActiveAccountID
        var model = ScreenModel(
            now: state.now, timeZone: screen.timeZone,
            header: HeaderModel(activeAccountName: active.flatMap { state.account($0)?.record.displayName },
                                storeBackend: state.credentialStore.name, storeIsInsecure: state.credentialStore.isInsecure),
            accounts: rows(state), selection: view.selection, filter: view.filter, focus: view.focus,
            helpVisible: view.helpVisible, flash: state.flash, readOnly: screen.readOnly)
        model.notes = screen.notes
        model.header.activeAccountSource = placeSource(state)
        if let damage = storeDamage(state) {
            model.storeDamage = ["file damaged:"] + state.damage.flatMap { ["  \($0.file)", "  (\($0.damage))"] } + ["run 'authdeck doctor'"]
            if model.flash == nil { model.flash = Flash(level: .error, text: damage) }
        }
        if let selected = model.selectedAccount, let account = state.account(selected.id) {
            var detail = detail(account, state: state, revealed: view.revealed)
            detail.tab = view.tab
            detail.overview.lastRefreshChanges = account.record.lastRefreshChanges?.lines { TimeText.absolute($0, timeZone: screen.timeZone) }
            detail.scroll = view.scroll
            model.detail = detail
        }
        model.dialog = dialog(screen)
        return model
    }

    /// The accounts pane's rows, in the state's order (the filter is applied by the model).
    static func rows(_ state: AppState) -> [AccountRow] {
        let active = state.effectiveActiveAccountID
        let providers = Dictionary(state.providers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return state.accounts.map { account -> AccountRow in
            let record = account.record
            let token = record.defaultAccessToken
            var row = AccountRow(
                id: record.id, displayName: record.alias.map { "\($0) (\(record.displayName))" } ?? record.displayName,
                provider: (providers[record.providerID]?.displayName ?? record.providerID.rawValue) + (record.isMachine == true ? " · machine" : ""),
                isActive: record.id == active, status: state.status(of: account),
                accessExpiresAt: token?.expiresAt, accessLifetime: token.flatMap { t in t.expiresAt.map { $0.timeIntervalSince(t.issuedAt) } },
                isLoopbackHTTP: providers[record.providerID]?.isLoopbackHTTP ?? false)
            row.dpopThumbprint = record.boundDPoPThumbprint
            return row
        }
    }

    /// "file damaged: FILE (what is wrong); run 'authdeck doctor'", nil when nothing is damaged.
    static func storeDamage(_ state: AppState) -> String? {
        guard let first = state.damage.first else { return nil }
        let more = state.damage.count > 1 ? " and \(state.damage.count - 1) more" : ""
        return "file damaged: \(first.file) (\(first.damage))\(more); run 'authdeck doctor'"
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

    /// When the grant ends, if that is "ending soon" by `check`'s rule (``CheckAccounts/verdict(_:now:endingSoonWithin:)``,
    /// the default threshold: 3 days).
    static func grantEndsSoonAt(_ record: AccountRecord, now: Date) -> Date? {
        let threshold = CheckAccounts.Settings.defaultEndingSoonWithin
        guard CheckAccounts.verdict(record, now: now, endingSoonWithin: threshold).0 == .endingSoon else { return nil }
        return CheckAccounts.endsAt(record)
    }

    /// The grant's tokens on one axis: the default access token from its issue, the ID token, the
    /// refresh token since the sign-in (its end when the provider gave one), the planned and the last refreshes.
    static func timeline(_ record: AccountRecord, policy: ExpiryPolicy) -> GrantTimeline {
        let token = record.defaultAccessToken
        return GrantTimeline(
            accessToken: token.map { GrantTimeline.Interval(start: $0.issuedAt, end: $0.expiresAt) },
            idToken: record.idToken.flatMap { info in
                info.expiresAt.map { GrantTimeline.Interval(start: info.issuedAt ?? record.signedInAt, end: $0) }
            },
            refreshToken: record.hasRefreshToken ? GrantTimeline.Interval(start: record.signedInAt, end: record.refreshTokenExpiresAt) : nil,
            plannedRefresh: token.flatMap { record.renewable ? policy.refreshDue(for: $0) : nil },
            refreshes: record.recentRefreshes ?? record.lastRefreshAt.map { [$0] } ?? [])
    }

    static func errorLine(_ error: AppError) -> ErrorLine {
        ErrorLine(message: error.detail.isEmpty ? error.title : "\(error.title): \(error.detail)", clause: error.specReference)
    }

    static func detail(_ account: AccountState, state: AppState, revealed: Bool) -> DetailModel {
        let record = account.record
        let provider = state.providers.first { $0.id == record.providerID }
        let token = record.defaultAccessToken
        var overview = OverviewModel(
            provider: provider?.displayName ?? record.providerID.rawValue, issuer: record.shownIssuer(provider: provider), subject: record.subject,
            storage: record.storage.rawValue, storageIsInsecure: record.storage.isInsecure,
            accessExpiresAt: token?.expiresAt, accessLifetime: token.flatMap { t in t.expiresAt.map { $0.timeIntervalSince(t.issuedAt) } },
            hasRefreshToken: record.hasRefreshToken, refreshExpiresAt: record.refreshTokenExpiresAt,
            idTokenExpiresAt: record.idToken?.expiresAt, grantEndsSoonAt: grantEndsSoonAt(record, now: state.now),
            lastRefresh: record.lastRefreshAt, lastError: account.lastError.map(errorLine))
        overview.resource = provider?.protectedResource?.resource
        overview.client = provider?.protectedResource?.clientDescription
        overview.isMachine = record.isMachine == true
        overview.authentication = AuthenticationContext(record)
        overview.timeline = timeline(record, policy: state.policy)
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
            return AccessTokenEntry(resource: info.resource.map(TokenAudience.displayName(ofKey:)), kind: kind, expiresAt: info.expiresAt,
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
                RawTokenEntry(label: entry.label,
                              value: revealed ? .revealed(entry.value.exposedValue) : .masked(TokenMask.mask(entry.value.exposedValue)))
            }
        }
        return DetailModel(overview: overview, scopes: scopes, idToken: idToken, accessTokens: accessTokens, userinfo: userinfo, raw: raw,
                           provider: provider)
    }

    static func dialog(_ screen: AccountsScreen.State) -> Dialog? {
        let state = screen.app
        if let signOut = state.signOut {
            let steps = signOut.steps.map { step -> SignOutStep in
                let result: SignOutStep.Result = switch step.outcome {
                case .done(let text): .done(text)
                case .skipped(let text): .skipped(text)
                case .started(let text): .done("… " + text)
                case .failed(let error): .failed(errorLine(error))
                }
                return SignOutStep(name: step.step.rawValue, result: result)
            }
            let running = signOut.finished ? [] : [SignOutStep(name: "working", result: .running)]
            return .signOutProgress(SignOutProgressDialog(accountName: signOut.displayName, steps: steps + running, finished: signOut.finished))
        }
        if let plan = state.resourceSignIn?.plan {
            return .resourceSignInConfirm(ResourceSignInConfirmDialog(lines: plan.summaryLines))
        }
        if let id = screen.confirmSignOut, let account = state.account(id) {
            return .signOutConfirm(SignOutConfirmDialog(accountID: id, accountName: account.record.displayName,
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
                    verificationURIComplete: complete,
                    qr: screen.qr?.text == (complete ?? device.verificationURI.absoluteString) ? screen.qr?.matrix : nil,
                    expiresAt: device.expiresAt, polling: polling))
            }
            switch flow.phase {
            case .progress(.waitingForBrowser(let url, let opened)):
                return .browserWaiting(BrowserWaitingDialog(
                    providerName: providerName, url: url.absoluteString,
                    browserNote: opened ? "Opened in your browser; finish signing in there."
                        : "No browser could be opened here: open this URL in any browser.",
                    paste: flow.readsPaste ? .init(typedCount: flow.pasted?.exposedValue.count ?? 0) : nil))
            case .failed(let error):
                return .browserWaiting(BrowserWaitingDialog(providerName: providerName, url: "", browserNote: errorLine(error).message,
                                                            stage: .failed))
            case .progress(.exchangingCode), .progress(.verifying):
                return .browserWaiting(BrowserWaitingDialog(providerName: providerName, url: "", stage: .verifying))
            default:
                return .browserWaiting(BrowserWaitingDialog(providerName: providerName, url: "", stage: .contacting))
            }
        }
        if let form = state.presetForm { return .presetForm(PresetFormMapping.dialog(form)) }
        if let form = state.providerEditForm { return .providerEdit(ProviderEditMapping.dialog(form)) }
        if let form = screen.signInForm { return .signIn(form) }
        return nil
    }

    /// What the header says about the directory's choice (``AppState/defaultAccountChoice``):
    /// the rule or git config that chose, or why nothing is chosen; nil for the active account.
    static func placeSource(_ state: AppState) -> String? {
        switch state.defaultAccountChoice {
        case .success(let choice)?:
            switch choice.source {
            case .gitConfig, .rule: return choice.source.label
            default: return nil
            }
        case .failure(.ruleAccountMissing(let directory, let account))?: return "rule \(directory) names \(account), not signed in"
        case .failure(.noMatch(let query, let source, _))?: return "\(source.settingName ?? "") '\(query)' names no account"
        default: return nil
        }
    }
}
