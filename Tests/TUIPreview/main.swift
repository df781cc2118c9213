// tui-preview: a test-only executable that runs the real ncurses backend on a sample ScreenModel
// with ticking countdowns. Driven under tmux by TerminalUITests/TmuxBackendTests.
//   tui-preview            run the UI (q quits, j/k select, l shows the device dialog with a QR code)
//   tui-preview --accounts N  the same with N generated accounts (idle-cost measurements)
//   tui-preview --crash-key  pressing ! crashes (fatalError) to test the crash-path terminal restore
//   tui-preview --bench N  print the time to render a frame with N accounts (no terminal needed)
import Foundation
import AppCore
import TerminalUI
import TerminalUINCurses

enum PreviewMessage: Sendable {
    case backgroundResult(String)
}

func sampleAccounts(start: Date, count: Int = 3) -> [AccountRow] {
    if count == 3 {
        return [
            AccountRow(id: "alice", displayName: "alice@example.test", provider: "Local IdP", isActive: true,
                       status: .valid, accessExpiresAt: start.addingTimeInterval(250), accessLifetime: 300),
            AccountRow(id: "bob", displayName: "bob@example.test", provider: "Local IdP", status: .valid,
                       accessExpiresAt: start.addingTimeInterval(3000), accessLifetime: 3600),
            AccountRow(id: "carol", displayName: "carol", provider: "GitHub", status: .needsSignIn),
        ]
    }
    let statuses: [AccountStatus] = [.valid, .expiringSoon, .refreshing, .expired, .needsSignIn, .storeLocked]
    return (0..<count).map { i in
        AccountRow(id: AccountID("acct-\(i)"), displayName: "user\(i)@example.test", provider: i % 2 == 0 ? "Local IdP" : "Auth0",
                   isActive: i == 0, status: statuses[i % statuses.count],
                   accessExpiresAt: start.addingTimeInterval(Double(60 + i * 7)), accessLifetime: 3600)
    }
}

/// The preview's own view state: selection, tab, scroll, reveal and help (the real screen's are
/// AccountsScreen's).
struct PreviewView {
    var selection: AccountID?
    var tab = DetailTab.overview
    var scroll = 0
    var revealed = false
    var helpVisible = false

    /// Applies a view command; false for the others.
    mutating func apply(_ command: UICommand, visibleIDs: [AccountID]) -> Bool {
        switch command {
        case .moveSelection(let by):
            guard !visibleIDs.isEmpty else { return true }
            let current = selection.flatMap { visibleIDs.firstIndex(of: $0) } ?? 0
            selection = visibleIDs[min(visibleIDs.count - 1, max(0, current + by))]
        case .select(let id): selection = id
        case .selectTab(let t): tab = t; scroll = 0
        case .nextTab: tab = tab.next; scroll = 0
        case .scrollDetail(let by): scroll = max(0, scroll + by)
        case .toggleReveal: revealed.toggle()
        case .toggleHelp: helpVisible.toggle()
        default: return false
        }
        return true
    }

    func applied(to model: ScreenModel) -> ScreenModel {
        var m = model
        m.selection = selection
        m.helpVisible = helpVisible
        return m
    }
}

func detail(for a: AccountRow, ui: PreviewView) -> DetailModel {
    let token = "eyJhbGciOiJSUzI1NiJ9.preview-\(a.id)"
    return DetailModel(
        overview: OverviewModel(provider: a.provider, issuer: "http://127.0.0.1:8999", subject: "sub-\(a.id)",
                                storage: "encrypted file", accessExpiresAt: a.accessExpiresAt,
                                accessLifetime: a.accessLifetime, hasRefreshToken: true),
        idToken: IDTokenModel(header: .object([ClaimMember(key: "alg", value: .string("RS256"))]),
                              claims: .object([ClaimMember(key: "sub", value: .string("sub-\(a.id)")),
                                               ClaimMember(key: "name", value: .string(a.displayName))]),
                              signature: .verified(algorithm: "RS256", keyID: "k1")),
        raw: [RawTokenEntry(label: "access token", value: ui.revealed ? .revealed(token) : .masked(TokenMask.mask(token)))])
}

func bench(count: Int) {
    let start = Date()
    var ui = PreviewView()
    let accounts = sampleAccounts(start: start, count: count)
    let theme = BuiltInThemes.defaultTheme
    for size in [Size(width: 120, height: 40), Size(width: 240, height: 70)] {
        let iterations = 200
        var checksum = 0
        let t0 = DispatchTime.now().uptimeNanoseconds
        for i in 0..<iterations {
            var m = ScreenModel(now: start.addingTimeInterval(Double(i)), header: HeaderModel(storeBackend: "encrypted file"),
                                accounts: accounts)
            // Move the selection through the list so scrolling is exercised.
            ui.selection = accounts[(i * 7) % accounts.count].id
            m = ui.applied(to: m)
            m.detail = detail(for: m.selectedAccount!, ui: ui)
            checksum &+= Renderer.render(m, size: size, theme: theme).cells.count
        }
        let ms = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6 / Double(iterations)
        print("render \(count) accounts at \(size.width)x\(size.height): \(String(format: "%.3f", ms)) ms/frame (\(iterations) frames, checksum \(checksum))")
    }
}

let args = CommandLine.arguments
if let i = args.firstIndex(of: "--bench") {
    bench(count: i + 1 < args.count ? Int(args[i + 1]) ?? 1000 : 1000)
    exit(0)
}

let start = Date()
var ui = PreviewView()
var accounts = sampleAccounts(start: start, count: args.firstIndex(of: "--accounts").flatMap { i in
    i + 1 < args.count ? Int(args[i + 1]) : nil } ?? 3)
var dialog: Dialog?
var flash: Flash? = Flash(level: .info, text: "tui-preview: sample accounts")
var themeIndex = 0
let themeNames = BuiltInThemes.names

let app: TerminalApp<PreviewMessage>
do {
    app = try TerminalApp<PreviewMessage>()
} catch {
    FileHandle.standardError.write(Data("tui-preview: \(error)\n".utf8))
    exit(2)
}
ui.selection = accounts.first?.id

// A background "effect" posting its result through the inbox from another thread.
let inbox = app.inbox
Thread.detachNewThread {
    Thread.sleep(forTimeInterval: 0.3)
    inbox.post(.backgroundResult("background check finished"))
}

let traceFD: Int32 = ProcessInfo.processInfo.environment["TUI_PREVIEW_TRACE"].map { open($0, O_WRONLY | O_CREAT | O_APPEND, 0o600) } ?? -1

@MainActor func model(_ now: Date) -> ScreenModel {
    if traceFD >= 0 {
        let line = "model \(now.timeIntervalSince1970)\n"
        _ = line.withCString { write(traceFD, $0, strlen($0)) }
    }
    var m = ScreenModel(now: now, timeZone: .utc,
                        header: HeaderModel(activeAccountName: accounts.first { $0.isActive }?.displayName,
                                            storeBackend: "encrypted file"),
                        accounts: accounts, dialog: dialog, flash: flash)
    m = ui.applied(to: m)
    if let a = m.selectedAccount { m.detail = detail(for: a, ui: ui); m.detail!.tab = ui.tab; m.detail!.scroll = ui.scroll }
    return m
}

let exitReason = app.run(
    model: model,
    theme: { BuiltInThemes.theme(named: themeNames[themeIndex])! },
    handle: { event in
        switch event {
        case .message(.backgroundResult(let text)):
            flash = Flash(level: .info, text: text)
        case .resize:
            break
        case .key(_, .disabled(let reason)):
            flash = Flash(level: .warn, text: reason)
        case .key(.char("!"), .unhandled) where args.contains("--crash-key"):
            fatalError("tui-preview: deliberate crash to test the terminal restore")
        case .key(_, .unhandled):
            break
        case .key(_, .command(let cmd)):
            if ui.apply(cmd, visibleIDs: model(Date()).visibleAccounts.map(\.id)) { return .continue }
            switch cmd {
            case .quit: return .quit
            case .nextTheme: themeIndex = (themeIndex + 1) % themeNames.count
            case .makeActive(let id):
                for i in accounts.indices { accounts[i].isActive = accounts[i].id == id }
            case .openSignIn:
                let url = "http://127.0.0.1:8999/device?user_code=WDJB-MJHT"
                dialog = .device(DeviceDialog(providerName: "Local IdP", userCode: "WDJB-MJHT",
                                              verificationURI: "http://127.0.0.1:8999/device",
                                              verificationURIComplete: url, qr: QRCode.matrix(for: url),
                                              expiresAt: Date().addingTimeInterval(900), polling: .authorizationPending))
            case .cancel: dialog = nil
            case .copyAccessToken: app.copyToClipboard("preview-token"); flash = Flash(level: .info, text: "copied (OSC 52)")
            default: flash = Flash(level: .info, text: "intent: \(cmd)")
            }
        }
        return .continue
    })
print("tui-preview exited: \(exitReason)")
