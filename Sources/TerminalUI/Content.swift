// Content of the detail tabs and the dialogs as lines of spans (pure; sanitised here).
import AppCore
import FoundationEssentials
import TextSupport

enum DetailContent {
    static func field(_ key: String, _ value: String, _ role: StyleRole = .claimValue, keyWidth: Int = 15) -> Line {
        [.text(DisplayWidth.pad(key, to: keyWidth), .claimKey), .text(" " + value, role)]
    }

    static func expiry(_ key: String, _ date: Date?, lifetime: TimeInterval?, m: ScreenModel, width: Int) -> Line {
        guard let date else { return field(key, "unknown", .textDim) }
        let role: StyleRole = date <= m.now ? .statusExpired : (date.timeIntervalSince(m.now) < 60 ? .statusExpiringSoon : .statusValid)
        var l = field(key, TimeText.countdown(to: date, now: m.now), role)
        if width >= 50 { l.append(.text("  " + TimeText.absolute(date, timeZone: m.timeZone), .claimTime)) }
        if let frac = TimeText.remainingFraction(expiresAt: date, lifetime: lifetime, now: m.now), width >= 60 {
            l += [.flexibleSpace, .bar(width: 10, fraction: frac, role: role)]
        }
        return l
    }

    static func claims(_ value: ClaimValue, m: ScreenModel) -> [Line] {
        let rows = ClaimTable.rows(value, now: m.now, timeZone: m.timeZone, provider: m.detail?.provider)
        let keyWidth = min(24, rows.map { DisplayWidth.of($0.guide) + DisplayWidth.of($0.key) }.max() ?? 0)
        return rows.map { r in
            var l: Line = []
            if !r.guide.isEmpty { l.append(.text(r.guide, .treeGuide)) }
            l.append(.text(DisplayWidth.pad(r.key, to: max(1, keyWidth - DisplayWidth.of(r.guide))), .claimKey))
            l.append(.text("  " + r.value, r.isTimestamp ? .claimTime : .claimValue))
            if let rel = r.relative { l.append(.text(" (" + rel + ")", .textDim)) }
            return l
        }
    }

    /// Splits text into chunks of `width` columns (for long URLs and revealed tokens).
    /// Greedy word wrap at spaces; a word wider than `width` is broken with ``wrap(_:width:)``.
    static func wrapWords(_ s: String, width: Int) -> [String] {
        guard width > 0 else { return [s] }
        var out: [String] = []
        var cur = ""
        for word in s.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let candidate = cur.isEmpty ? word : cur + " " + word
            if DisplayWidth.of(candidate) <= width {
                cur = candidate
                continue
            }
            if !cur.isEmpty { out.append(cur) }
            let pieces = wrap(word, width: width)
            out += pieces.dropLast()
            cur = pieces.last ?? ""
        }
        if !cur.isEmpty || out.isEmpty { out.append(cur) }
        return out
    }

    static func wrap(_ s: String, width: Int) -> [String] {
        guard width > 0 else { return [s] }
        var out: [String] = []
        var cur = ""
        var w = 0
        for ch in s {
            let cw = DisplayWidth.of(ch)
            if w + cw > width {
                out.append(cur)
                cur = ""
                w = 0
            }
            cur.append(ch)
            w += cw
        }
        if !cur.isEmpty || out.isEmpty { out.append(cur) }
        return out
    }

    static func lines(_ d: DetailModel, account a: AccountRow, model m: ScreenModel, width: Int) -> [Line] {
        let v = Sanitizer.visible
        switch d.tab {
        case .overview:
            let o = d.overview
            let picture = o.timeline.map { GrantTimelineLayout.lines($0, now: m.now, width: width) } ?? []
            var out: [Line] = (picture.isEmpty ? [] : picture + [[]]) + [
                field("Provider", v(o.provider)),
                field("Issuer", o.issuer.map(v) ?? "— (not OpenID Connect)"),
            ] + (o.resource.map { [field("Resource", v($0)), field("Client", v(o.client ?? "—"))] } ?? []) + [
                field("Subject", o.subject.map(v) ?? "—"),
                field("Status", StatusText.text(a.status, now: m.now), StatusText.role(a.status)),
                field("Storage", v(o.storage)) + (o.storageIsInsecure ? [.text(" ⚠ PLAINTEXT", .badgeInsecure)] : []),
                [],
                a.status.accessTokenUsable ? expiry("Access token", o.accessExpiresAt, lifetime: o.accessLifetime, m: m, width: width)
                    : field("Access token", AccountStatus.unusableAccessTokenText, .statusError),
            ]
            // RFC 9449: sender-constrained tokens, with the key's RFC 7638 thumbprint.
            if let thumbprint = a.dpopThumbprint { out.append(field("Token binding", "DPoP, key " + v(thumbprint))) }
            if o.isMachine {
                out.append(field("Refresh token", "none: a machine account, renewed by client credentials", .textDim))
            } else if o.hasRefreshToken {
                if o.refreshExpiresAt != nil {
                    out.append(expiry("Refresh token", o.refreshExpiresAt, lifetime: nil, m: m, width: width))
                } else {
                    out.append(field("Refresh token", "present (no expiry given)"))
                }
            } else {
                out.append(field("Refresh token", "none", .textDim))
            }
            // `check`'s ending_soon: the date to sign in again by, next to the countdowns.
            if let ends = o.grantEndsSoonAt {
                out.append(field("Ending soon", TimeText.absolute(ends, timeZone: m.timeZone) + " — sign in again by then", .statusExpiringSoon))
            }
            if o.idTokenExpiresAt != nil { out.append(expiry("ID token", o.idTokenExpiresAt, lifetime: nil, m: m, width: width)) }
            if let authentication = o.authentication { out.append(field("Authentication", v(authentication.text(now: m.now)))) }
            out.append(field("Last refresh", o.lastRefresh.map {
                TimeText.absolute($0, timeZone: m.timeZone) + " (" + TimeText.relative($0, now: m.now) + ")"
            } ?? "never"))
            if let e = o.lastError {
                out.append(field("Last error", v(e.message), .statusError))
                if let c = e.clause { out.append(field("", "see " + v(c), .textDim)) }
            }
            if a.isLoopbackHTTP {
                out.append([])
                out.append([.text("Issuer is plain HTTP on loopback (local only)", .textDim)])
            }
            if let changes = o.lastRefreshChanges {
                out += [[], [.text("Changed on the last refresh", .title)]]
                for change in changes {
                    for (i, piece) in wrapWords(v(change), width: max(10, width - 4)).enumerated() {
                        out.append([.text((i == 0 ? "  " : "    ") + piece, .claimValue)])
                    }
                }
            }
            return out
        case .scopes:
            let s = d.scopes
            var out: [Line] = [[.text("Requested", .title)]]
            if s.requested.isEmpty { out.append([.text("  (none)", .textDim)]) }
            for sc in s.requested {
                let granted = s.granted.contains(sc)
                out.append([.text(granted ? "  ✓ " : "  ✗ ", granted ? .diffAdded : .diffRemoved),
                            .text(v(sc), .claimValue)] + (granted ? [] : [.text("  not granted", .diffRemoved)]))
            }
            out.append([])
            out.append([.text("Granted", .title)])
            if s.granted.isEmpty { out.append([.text("  (none; the token response had no scope)", .textDim)]) }
            for sc in s.granted {
                let extra = !s.requested.contains(sc)
                out.append([.text("  • ", .claimKey), .text(v(sc), .claimValue)] + (extra ? [.text("  not requested", .diffAdded)] : []))
            }
            if let diff = s.lastRefreshDiff {
                out.append([])
                out.append([.text("Changed at the last refresh", .title)])
                if diff.added.isEmpty && diff.removed.isEmpty { out.append([.text("  no change", .textDim)]) }
                for sc in diff.added { out.append([.text("  + " + v(sc), .diffAdded)]) }
                for sc in diff.removed { out.append([.text("  - " + v(sc), .diffRemoved)]) }
            }
            return out
        case .idToken:
            guard let t = d.idToken else { return [[.text("No ID token (the provider is plain OAuth 2.0).", .textDim)]] }
            var out: [Line]
            switch t.signature {
            case .verified(let alg, let kid):
                out = [[.text("✓ signature verified", .statusValid),
                        .text(" (" + v(alg) + (kid.map { ", kid " + v($0) } ?? "") + ")", .textDim)]]
            case .notVerified(let reason):
                out = [[.text("✗ signature not verified: ", .statusError), .text(v(reason), .statusError)]]
            }
            out.append([])
            out.append([.text("Header", .title)])
            out += claims(t.header, m: m)
            out.append([])
            out.append([.text("Claims", .title)])
            out += claims(t.claims, m: m)
            return out
        case .accessToken:
            if d.accessTokens.isEmpty { return [[.text("No access token.", .textDim)]] }
            var out: [Line] = []
            for (i, e) in d.accessTokens.enumerated() {
                if i > 0 { out.append([]) }
                out.append([.text("Resource ", .title), .text(e.resource.map(v) ?? "(default)", .claimValue)])
                out.append(expiry("Expires", e.expiresAt, lifetime: nil, m: m, width: width))
                switch e.kind {
                case .decoded(let header, let claimsValue):
                    out.append([.text("JWT decoded for information only:", .textDim)])
                    out.append([.text("not verified (access tokens are opaque to clients)", .textDim)])
                    out.append([.text("Header", .title)])
                    out += claims(header, m: m)
                    out.append([.text("Claims", .title)])
                    out += claims(claimsValue, m: m)
                case .opaque:
                    out.append([.text("opaque", .claimValue), .text(e.introspection == nil ? " — press i to introspect (RFC 7662)" : "", .textDim)])
                case .encrypted:
                    out.append([.text("encrypted (JWE)", .claimValue), .text(" — only its audience can read it (RFC 7516)", .textDim)])
                }
                if let intro = e.introspection {
                    out.append([.text("Introspection (RFC 7662)", .title)])
                    out += claims(intro, m: m)
                }
            }
            return out
        case .userinfo:
            switch d.userinfo {
            case .notFetched: return [[.text("Press u to fetch userinfo (OIDC Core §5.3).", .textDim)]]
            case .loading: return [[.text("Fetching userinfo…", .statusRefreshing)]]
            case .loaded(let c): return claims(c, m: m)
            case .failed(let e):
                return [[.text("✗ " + v(e.message), .statusError)]] + (e.clause.map { [[.text("see " + v($0), .textDim)]] } ?? [])
            }
        case .raw:
            if d.raw.isEmpty { return [[.text("No tokens stored.", .textDim)]] }
            var out: [Line] = []
            for e in d.raw {
                out.append([.text(v(e.label), .claimKey)])
                switch e.value {
                case .masked(let s): out.append([.text("  " + v(s), .secretMasked)])
                case .revealed(let s):
                    for chunk in wrap(v(s), width: max(10, width - 2)) { out.append([.text("  " + chunk, .secretRevealed)]) }
                }
            }
            out.append([])
            out.append([.text("v reveal/mask · c copy the access token (OSC 52)", .textDim)])
            return out
        }
    }
}

enum DialogContent {
    static func input(_ label: String, _ text: String, focused: Bool, width: Int) -> Line {
        let shown = DisplayWidth.pad(Sanitizer.visible(text) + (focused ? "▏" : ""), to: max(8, width - 16))
        return [.text(DisplayWidth.pad(label, to: 15), focused ? .title : .text), .text(" " + shown, focused ? .inputFocused : .input)]
    }

    /// The provider rows shown: all of them when they fit in `rows`, else a window that keeps the
    /// selection visible, with "↑ N more" / "↓ N more" lines standing for the rest (below three
    /// rows, the selection alone: the title's "(N of M)" counts the rest).
    static func providerWindow(count: Int, selected: Int, rows: Int) -> (range: Range<Int>, above: Int, below: Int) {
        guard count > rows else { return (0..<count, 0, 0) }
        if rows < 3 {
            let start = min(max(0, selected), max(0, count - 1))
            return (start..<(start + 1), 0, 0)
        }
        let visible = rows - 2  // room for the two "more" lines
        let start = min(max(0, selected - visible / 2), count - visible)
        return (start..<(start + visible), start, count - start - visible)
    }

    static func signIn(_ s: SignInDialog, width: Int, providerRows: Int = .max) -> [Line] {
        var out: [Line] = [[.text("Provider", s.focusedField == .provider ? .title : .text),
                            .text(s.providers.count > 1 ? "  (\(s.selectedProvider + 1) of \(s.providers.count))" : "", .textDim)]]
        if s.providers.isEmpty && !s.addFromPreset {
            out.append([.text("  No provider configured: see 'authdeck provider add --help'", .statusError)])
        }
        let rows = s.providers.count + (s.addFromPreset ? 1 : 0)
        let window = providerWindow(count: rows, selected: s.selectedProvider, rows: providerRows)
        if window.above > 0 { out.append([.text("   ↑ \(window.above) more", .textDim)]) }
        for i in window.range {
            if i == s.providers.count {
                let sel = i == s.selectedProvider
                let role: StyleRole = sel ? (s.focusedField == .provider ? .selection : .selectionUnfocused) : .text
                out.append([.text(sel ? " ▸ " : "   ", role), .text("Add a provider from a preset…", role)])
                continue
            }
            let p = s.providers[i]
            let sel = i == s.selectedProvider
            let role: StyleRole = sel ? (s.focusedField == .provider ? .selection : .selectionUnfocused) : .text
            out.append([.text(sel ? " ▸ " : "   ", role), .text(Sanitizer.visible(p.name), role),
                        .text("  " + Sanitizer.visible(p.detail), sel ? role : .textDim)])
        }
        if window.below > 0 { out.append([.text("   ↓ \(window.below) more", .textDim)]) }
        out.append([])
        let device = s.providers.indices.contains(s.selectedProvider) ? s.providers[s.selectedProvider].supportsDevice : true
        let flowFocused = s.focusedField == .flow
        out.append([
            .text(DisplayWidth.pad("Flow", to: 15), flowFocused ? .title : .text),
            .text(s.flow == .browser ? " (•) browser" : " ( ) browser", s.flow == .browser && flowFocused ? .inputFocused : .text),
            .text(s.flow == .device ? "  (•) device code" : "  ( ) device code",
                  device ? (s.flow == .device && flowFocused ? .inputFocused : .text) : .textDim),
        ] + (device ? [] : [.text("  (not supported)", .textDim)]))
        out.append(input("Extra scopes", s.extraScopes, focused: s.focusedField == .scopes, width: width))
        out.append(input("Audience", s.audience, focused: s.focusedField == .audience, width: width))
        out.append(input("Resource", s.resource, focused: s.focusedField == .resource, width: width))
        out.append(input("Or a URL", s.resourceURL, focused: s.focusedField == .url, width: width))
        out.append([])
        out.append([.text("Tab next field · Enter sign in · Esc cancel", .textDim)])
        return out
    }

    /// The lines of the preset form besides the preset rows.
    /// The preset form in at most `maxLines` lines (the terminal's height less the box): the
    /// fields, the error and the key hints always; the field hints when they fit; the preset list
    /// scrolls in what is left (at least one preset).
    static func presetForm(_ p: PresetFormDialog, width: Int, maxLines: Int = .max) -> [Line] {
        func fields(hints: Bool) -> [Line] {
            formFields(p.fields.filter { $0.kind != .preset }, focused: p.focused, submitting: p.submitting, error: p.error,
                       keys: "Tab next field · Enter add · Esc back", width: width, hints: hints)
        }
        // The title and a blank line; the list takes at least three rows (``providerWindow``: one
        // preset between its two "more" lines).
        let frame = 2, fewestRows = 3
        var rest = fields(hints: true)
        if rest.count + frame + fewestRows > maxLines { rest = fields(hints: false) }
        let presetRows = max(fewestRows, min(p.choices.count, maxLines - frame - rest.count))
        let presetFocused = p.focused == .preset
        var out: [Line] = [[.text("Preset", presetFocused ? .title : .text), .text("  (\(p.selected + 1) of \(p.choices.count))", .textDim)]]
        let window = providerWindow(count: p.choices.count, selected: p.selected, rows: presetRows)
        if window.above > 0 { out.append([.text("   ↑ \(window.above) more", .textDim)]) }
        for i in window.range {
            let sel = i == p.selected
            let role: StyleRole = sel ? (presetFocused ? .selection : .selectionUnfocused) : .text
            out.append([.text(sel ? " ▸ " : "   ", role), .text(DisplayWidth.pad(Sanitizer.visible(p.choices[i].name), to: 10), role),
                        .text("  " + Sanitizer.visible(p.choices[i].displayName), sel ? role : .textDim)])
        }
        if window.below > 0 { out.append([.text("   ↓ \(window.below) more", .textDim)]) }
        out.append([])
        return out + rest
    }

    static func browserWaiting(_ b: BrowserWaitingDialog, width: Int) -> [Line] {
        let provider = Span.text(Sanitizer.visible(b.providerName), .title)
        var out: [Line] = switch b.stage {
        case .contacting: [[.text("Contacting ", .text), provider, .text("…", .text)]]
        case .waiting: [[.text("Waiting for the sign-in to ", .text), provider, .text(" in the browser…", .text)]]
        case .verifying: [[.text("Back from ", .text), provider, .text(": exchanging the code, verifying the ID token…", .text)]]
        case .failed: [[.text("The sign-in to ", .text), provider, .text(" failed", .statusError)]]
        }
        // No URL yet (contacting the provider) or any more (exchanging the code, failed): no hint.
        if !b.url.isEmpty {
            out += [[], [.text("If no browser opened, open this URL:", .textDim)]]
            for chunk in DetailContent.wrap(Sanitizer.visible(b.url), width: max(20, width)) { out.append([.text(chunk, .link)]) }
        }
        if let note = b.browserNote {
            out.append([])
            for chunk in DetailContent.wrapWords(Sanitizer.visible(note), width: max(20, width)) { out.append([.text(chunk, .textDim)]) }
        }
        if let paste = b.paste {
            let prompt = "Signed in on another machine? Paste the address its browser ended on (http://127.0.0.1:…/callback?code=…),"
                + " or the code, then press Enter:"
            out.append([])
            for chunk in DetailContent.wrapWords(prompt, width: max(20, width)) { out.append([.text(chunk, .text)]) }
            let dots = String(repeating: "•", count: min(8, paste.typedCount))
            let typed = paste.typedCount == 0 ? "(nothing pasted yet)" : "\(dots) \(paste.typedCount) characters (hidden)"
            out.append([.text("› ", .keyHint), .text(typed, .textDim)])
        }
        let keys = b.stage == .failed ? "Esc closes" : (b.paste == nil ? "Esc cancels" : "Enter uses the pasted address · Esc cancels")
        out += [[], [.text(keys, .textDim)]]
        return out
    }

    static func device(_ d: DeviceDialog, now: Date, width: Int) -> [Line] {
        let code = Sanitizer.visible(d.userCode)
        let spaced = code.map(String.init).joined(separator: " ")
        let boxW = DisplayWidth.of(spaced) + 4
        var out: [Line] = [
            [.text("Copy your one-time code:", .text)],
            [.text("╔" + String(repeating: "═", count: boxW - 2) + "╗", .userCode)],
            [.text("║ " + spaced + " ║", .userCode)],
            [.text("╚" + String(repeating: "═", count: boxW - 2) + "╝", .userCode)],
            [],
            [.text("Then open:", .text)],
        ]
        for chunk in DetailContent.wrap(Sanitizer.visible(d.verificationURI), width: max(10, width)) { out.append([.text(chunk, .link)]) }
        // RFC 8628 §3.3.1: the URI with the code in it, as `login --device` prints it.
        if let complete = d.verificationURIComplete, !complete.utf8.elementsEqual(d.verificationURI.utf8) {
            out.append([.text("or, with the code filled in:", .text)])
            for chunk in DetailContent.wrap(Sanitizer.visible(complete), width: max(10, width)) { out.append([.text(chunk, .link)]) }
        }
        if d.qr != nil { out.append([.text("or scan the QR code", .textDim)]) }
        out.append([])
        let expRole: StyleRole = d.expiresAt <= now ? .statusExpired : (d.expiresAt.timeIntervalSince(now) < 60 ? .statusExpiringSoon : .text)
        let countdown = TimeText.countdown(to: d.expiresAt, now: now)
        out.append([.text(countdown.hasPrefix("expired") ? "Code " + countdown : "Code expires " + countdown, expRole)])
        let (text, role): (String, StyleRole) = switch d.polling {
        case .waiting: ("Waiting for approval…", .statusRefreshing)
        case .authorizationPending: ("Waiting (authorization_pending)", .statusRefreshing)
        case .slowDown(let i): ("slow_down: polling every \(i)s", .statusExpiringSoon)
        case .approved: ("✓ Approved", .statusValid)
        case .denied: ("✗ Denied (access_denied)", .statusError)
        case .expired: ("✗ Code expired (expired_token)", .statusError)
        case .failed(let e): ("✗ " + Sanitizer.visible(e.message), .statusError)
        }
        out.append([.text(text, role)])
        out.append([])
        out.append([.text("c copy code · Esc cancel", .textDim)])
        return out
    }

    static func signOutConfirm(_ c: SignOutConfirmDialog) -> [Line] {
        var out: [Line] = [[.text("Sign out ", .text), .text(Sanitizer.visible(c.accountName), .title), .text("?", .text)], []]
        if c.willRevoke { out.append([.text("• Revoke the refresh token (RFC 7009)", .text)]) }
        if c.willEndSession { out.append([.text("• End the provider session in the browser (RP-Initiated Logout)", .text)]) }
        out.append([.text("• Delete the local secrets", .text)])
        out += [[], [.text("y", .keyHint), .text(" sign out   ", .text), .text("n", .keyHint), .text(" cancel", .text)]]
        return out
    }

    static func resourceSignInConfirm(_ c: ResourceSignInConfirmDialog) -> [Line] {
        var out: [Line] = c.lines.map { [.text(Sanitizer.visible($0), .text)] }
        out += [[], [.text("y", .keyHint), .text(" register if needed and open the browser   ", .text),
                     .text("n", .keyHint), .text(" cancel", .text)]]
        return out
    }

    static func signOutProgress(_ p: SignOutProgressDialog, width: Int) -> [Line] {
        var out: [Line] = [[.text("Signing out ", .text), .text(Sanitizer.visible(p.accountName), .title)], []]
        // A step and what came of it on one line when it fits in `width`, else what came of it wrapped below, indented.
        func step(_ head: String, _ role: StyleRole, _ result: String, _ resultRole: StyleRole) -> [Line] {
            let text = Sanitizer.visible(result)
            if DisplayWidth.of(head) + 2 + DisplayWidth.of(text) <= width { return [[.text(head, role), .text(": " + text, resultRole)]] }
            return [[.text(head, role), .text(":", resultRole)]]
                + DetailContent.wrapWords(text, width: max(10, width - 2)).map { [.text("  " + $0, resultRole)] }
        }
        for s in p.steps {
            let name = Sanitizer.visible(s.name)
            switch s.result {
            case .pending: out.append([.text("· " + name, .stepPending)])
            case .running: out.append([.text("… " + name, .statusRefreshing)])
            case .done(let t): out += step("✓ " + name, .stepOK, t, .text)
            case .skipped(let t): out += step("– " + name, .stepSkipped, t, .textDim)
            case .failed(let e):
                out += step("✗ " + name, .stepFailed, e.message, .statusError)
                if let c = e.clause { out.append([.text("  see " + Sanitizer.visible(c), .textDim)]) }
            }
        }
        out.append([])
        out.append([.text(p.finished ? "Done. Enter closes." : "Working…", p.finished ? .textDim : .statusRefreshing)])
        return out
    }
}
