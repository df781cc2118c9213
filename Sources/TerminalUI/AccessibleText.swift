// The accessible mode's words (`authdeck --accessible`): the screen model read as
// plain lines in order — the accounts, then the selected account's details, the dialog with
// numbered choices, the keys in words — and a typed line read back as keys. Pure; no cursor, no
// colour: every line stands alone. What changed between two states is AppCore's Announcements.
import AppCore
import FoundationEssentials
import TextSupport

public enum AccessibleText {
    /// Whether the next typed line is a secret (the preset form's client secret, a pasted
    /// redirect with its code): the terminal then does not echo it.
    public static func typesSecret(_ model: ScreenModel) -> Bool {
        switch model.dialog {
        case .presetForm(let form): return form.focused == .clientSecret
        case .providerEdit(let form): return form.focused == .clientSecret
        case .browserWaiting(let dialog): return dialog.paste != nil
        default: return false
        }
    }

    /// What a typed line asks for besides keys.
    public enum Request: Equatable, Sendable {
        /// Keys, in order, through the same key bindings as the screen.
        case keys([KeyEvent])
        /// "read": the accounts and the selected account's details.
        case read
        /// "keys": the keys that work now, in words.
        case listKeys
        /// "time": every account's time left, now.
        case time
    }

    /// Key names a line may hold alone (ASCII case ignored).
    static let named: [(String, KeyEvent)] = [
        ("up", .up), ("down", .down), ("left", .left), ("right", .right), ("home", .home), ("end", .end), ("pageup", .pageUp),
        ("pagedown", .pageDown), ("enter", .enter), ("tab", .tab), ("backtab", .backTab), ("escape", .escape), ("esc", .escape),
        ("backspace", .backspace), ("delete", .delete), ("space", .char(" ")),
    ]

    /// What `line` (without its line end) asks for, with `m` on screen: in a text field (the
    /// filter, a sign-in field, the paste field) its characters then Enter; else an empty line is
    /// Enter, a key's name or `read`/`keys`/`time` that, a number in the sign-in dialog's provider
    /// list that choice; in the "Edit provider" form the focused field's new text (it replaces the
    /// prefilled text: backspaces, then its characters; `delete` empties it); anything else its characters as keys.
    public static func request(_ line: String, model m: ScreenModel) -> Request {
        let word = line.trimmingWhitespace().lowercased()
        if isTyping(m) {
            if let key = named.first(where: { $0.0 == word })?.1, key != .char(" ") { return .keys([key]) }
            return .keys(line.map { KeyEvent.char($0) } + [.enter])
        }
        if word.isEmpty { return .keys([.enter]) }
        switch word {
        case "read": return .read
        case "keys", "help": return .listKeys
        case "time": return .time
        default: break
        }
        if let key = named.first(where: { $0.0 == word })?.1 { return .keys([key]) }
        if case .signIn(let s) = m.dialog, s.focusedField == .provider, let number = Int(word),
           number >= 1, number <= s.providers.count + (s.addFromPreset ? 1 : 0) {
            let moves = number - 1 - s.selectedProvider
            return .keys(Array(repeating: moves < 0 ? KeyEvent.up : .down, count: abs(moves)))
        }
        if case .providerEdit(let p) = m.dialog {
            let typed = p.fields.first { $0.kind == p.focused }?.value.count ?? 0
            return .keys(Array(repeating: KeyEvent.backspace, count: typed) + line.map { KeyEvent.char($0) })
        }
        return .keys(line.map { KeyEvent.char($0) })
    }

    /// Whether typed characters go to a text field (filter, sign-in field, paste field).
    static func isTyping(_ m: ScreenModel) -> Bool {
        if m.filter.isEditing { return true }
        if case .signIn(let d) = m.dialog, d.text(of: d.focusedField) != nil { return true }
        if case .browserWaiting(let d) = m.dialog, d.paste != nil { return true }
        return false
    }

    /// One account in a line: "2. bob at Local demo: valid, access token valid for 42 minutes, active, selected".
    public static func account(_ row: AccountRow, number: Int?, model m: ScreenModel) -> String {
        var parts = [StatusText.text(row.status, now: m.now)]
        if row.status.accessTokenUsable, let at = row.accessExpiresAt {
            let left = TimeText.secondsUntil(at, now: m.now)
            parts.append(left > 0 ? "access token valid for \(Announcements.spoken(left))" : "access token expired")
        }
        if row.isActive { parts.append("active") }
        if row.id == m.selection { parts.append("selected") }
        let name = "\(Sanitizer.visible(row.displayName)) at \(Sanitizer.visible(row.provider))"
        return (number.map { "\($0). " } ?? "") + name + ": " + parts.joined(separator: ", ")
    }

    /// The screen in order: the accounts (numbered), then the selected account's tab, line by line.
    public static func screen(_ m: ScreenModel) -> [String] {
        if let damage = m.storeDamage { return damage.map(Sanitizer.visible) }
        let rows = m.visibleAccounts
        guard !rows.isEmpty else { return ["No accounts. Type l to sign in."] }
        var out = ["Accounts, \(rows.count):"] + rows.enumerated().map { account($1, number: $0 + 1, model: m) }
        out += details(m)
        return out
    }

    /// The selected account's open tab: "Details of alice at Local demo, Overview tab:" and its lines.
    public static func details(_ m: ScreenModel) -> [String] {
        guard let row = m.selectedAccount, let d = m.detail else { return [] }
        let title = "Details of \(Sanitizer.visible(row.displayName)) at \(Sanitizer.visible(row.provider)), \(d.tab.title) tab"
        // The time line's picture is said in words instead (glyphs mean nothing read aloud).
        var plain = d
        plain.overview.timeline = nil
        let spoken = d.tab == .overview ? d.overview.timeline.flatMap { GrantTimelineLayout.spoken($0, now: m.now) } : nil
        return [title + " (keys 1 to 6 choose a tab):"] + (spoken.map { [$0] } ?? [])
            + DetailContent.lines(plain, account: row, model: m, width: 200).compactMap(text)
    }

    /// The dialog on screen in lines, its choices numbered (the sign-in dialog's providers).
    public static func dialog(_ dialog: Dialog, now: Date) -> [String] {
        switch dialog {
        case .signIn(let s):
            var out = ["Sign in. Which provider? Type its number, then Enter (Tab moves to the next field, Escape cancels):"]
            for (i, p) in s.providers.enumerated() {
                let mark = i == s.selectedProvider ? " (chosen)" : ""
                out.append("\(i + 1). \(Sanitizer.visible(p.name)) \(Sanitizer.visible(p.detail))".trimmingWhitespace() + mark)
            }
            if s.addFromPreset {
                out.append("\(s.providers.count + 1). Add a provider from a preset" + (s.selectedProvider == s.providers.count ? " (chosen)" : ""))
            }
            out.append("Flow: \(s.flow == .browser ? "browser" : "device code") (Space switches it when the flow field is focused)")
            out.append("Focused field: \(fieldName(s.focusedField))")
            return out
        case .presetForm(let p): return DialogContent.presetForm(p, width: 200).compactMap(text)
        case .providerEdit(let p): return DialogContent.providerEdit(p, width: 200).compactMap(text)
        case .browserWaiting(let b): return DialogContent.browserWaiting(b, width: 200).compactMap(text)
        case .device(let d): return DialogContent.device(d, now: now, width: 200).compactMap(text)
        case .signOutConfirm(let c): return DialogContent.signOutConfirm(c).compactMap(text)
        case .signOutProgress(let p): return DialogContent.signOutProgress(p, width: 200).compactMap(text)
        case .resourceSignInConfirm(let c): return DialogContent.resourceSignInConfirm(c).compactMap(text)
        }
    }

    static func fieldName(_ field: SignInField) -> String {
        switch field {
        case .provider: "provider (a number chooses)"
        case .flow: "flow"
        case .scopes: "extra scopes (type them, then Enter)"
        case .audience: "audience (type it, then Enter)"
        case .resource: "resource (type it, then Enter)"
        case .url: "a resource URL (type it, then Enter)"
        }
    }

    /// The keys that work now, a line each: "r: refresh the selected account", in words.
    public static func keys(_ m: ScreenModel) -> [String] {
        var out = ["Type a key, or its name (up, down, enter, tab, escape, space), then Enter. Also: read, keys, time."]
        for section in KeyBindings.helpSections(for: m) {
            out.append("\(section.title):")
            for binding in section.bindings {
                out.append("  \(binding.keys.map(spokenKey).joined(separator: " or ")): \(binding.description)")
            }
        }
        return out
    }

    public static func spokenKey(_ key: KeyEvent) -> String {
        switch key {
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        case .pageUp: "page up"
        case .pageDown: "page down"
        case .char(" "): "space"
        case .ctrl(let c): "control \(c)"
        default: key.label.lowercased()
        }
    }

    /// A line of spans as plain text: "Key: value" for a field, bars and padding left out; nil when empty.
    static func text(_ line: Line) -> String? {
        var parts: [String] = []
        for span in line {
            guard case .text(let text, let role) = span else { continue }
            let trimmed = text.trimmingWhitespace()
            guard !trimmed.isEmpty else { continue }
            parts.append(role == .claimKey ? trimmed + ":" : trimmed)
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// What the screen model shows differently from `old` besides the app's state (Announcements):
    /// the selection, the tab, the focus, the filter, the help, and a dialog (whole when it opens,
    /// then only its lines that changed, compared at one instant so that a countdown inside it is
    /// not said again at every wake).
    public static func changed(from old: ScreenModel, to new: ScreenModel) -> [String] {
        var out: [String] = []
        switch (old.dialog, new.dialog) {
        case (nil, let opened?): out += dialog(opened, now: new.now)
        case (_?, nil): out.append("Dialog closed.")
        case (let before?, let after?):
            let was = dialog(before, now: new.now), lines = dialog(after, now: new.now)
            // Within one dialog: the lines that changed, a choice no longer chosen left unsaid.
            if kind(before) != kind(after) { out += lines } else { out += lines.filter { !was.contains($0) && !was.contains($0 + " (chosen)") } }
        case (nil, nil): break
        }
        if new.selection != old.selection, let row = new.selectedAccount {
            out.append("Selected: " + account(row, number: new.visibleAccounts.firstIndex { $0.id == row.id }.map { $0 + 1 }, model: new))
        } else if new.detail?.tab != old.detail?.tab, new.detail != nil {
            out += details(new)
        }
        if new.focus != old.focus { out.append(new.focus == .detail ? "Focus: the details." : "Focus: the accounts list.") }
        if new.filter != old.filter {
            if new.filter.isEditing && !old.filter.isEditing { out.append("Filter: type the text, then Enter.") }
            let count = new.visibleAccounts.count
            if new.filter.text != old.filter.text {
                out.append("Filter '\(Sanitizer.visible(new.filter.text))': \(count) account\(count == 1 ? "" : "s") shown.")
            }
        }
        if new.helpVisible && !old.helpVisible { out += keys(new) }
        return out
    }

    static func kind(_ dialog: Dialog) -> Int {
        switch dialog {
        case .signIn: 0
        case .presetForm: 1
        case .browserWaiting: 2
        case .device: 3
        case .signOutConfirm: 4
        case .signOutProgress: 5
        case .resourceSignInConfirm: 6
        case .providerEdit: 7
        }
    }
}
