// Every key of every table, pressed in the binary that ships (the release build), under tmux:
// each context of the key table (panes, dialogs, help, the filter) and each detail tab, on an
// empty store and with a signed-in account, at 80×24 and 200×60. The walk reads the key tables
// themselves (TerminalUI's KeyBindings), so a new binding is pressed without anyone adding a
// test; a new context or key kind does not compile until the walk knows how to reach or press it.
// It fails when the process dies (`?` once ended the accounts screen with SIGILL in the release
// binary only) or when the screen stops answering (Esc no longer brings back the accounts list).
// Screens of failures go to test-output/key-walk/.
import AppCore
import Foundation
import TerminalUI
import Testing
import TestSupport

/// tmux `send-keys` arguments for a key, or nil for a key tmux cannot type.
private func tmuxKeys(_ key: KeyEvent) -> [String]? {
    switch key {
    case .char(let c): ["-l", String(c)]
    case .up: ["Up"]
    case .down: ["Down"]
    case .left: ["Left"]
    case .right: ["Right"]
    case .home: ["Home"]
    case .end: ["End"]
    case .pageUp: ["PPage"]
    case .pageDown: ["NPage"]
    case .enter: ["Enter"]
    case .tab: ["Tab"]
    case .backTab: ["BTab"]
    case .escape: ["Escape"]
    case .backspace: ["BSpace"]
    case .delete: ["DC"]
    case .ctrl(let c): ["C-\(c)"]
    case .resize, .mouse: nil
    }
}

/// The footer a context shows: its bindings' hints, then the global ones where the pane is in
/// charge (the shape of `KeyBindings.contexts(for:)` for a screen with no dialog).
private func footer(_ context: KeyContext) -> String {
    let contexts: [KeyContext] = switch context {
    case .global, .accounts: [.accounts, .global]
    case .detail: [.detail, .global]
    default: [context]
    }
    let hints = contexts.flatMap { KeyBindings.table($0).filter(\.showInFooter).map { "\($0.keyLabel) \($0.shortDescription)" } }
    return " " + hints.prefix(2).joined(separator: "  ")
}

/// The last non-empty line of a screen (the footer).
private func footerLine(_ screen: String) -> String {
    screen.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(String.init) ?? ""
}

private let exitMarker = "TUI-EXIT-STATUS="

/// An accounts screen with nothing on it: what a global key does there (quit or not).
private let emptyScreen = ScreenModel(now: Date(), header: HeaderModel(activeAccountName: nil, storeBackend: "vault", storeIsInsecure: false))

/// A place to press keys in: how to get there from the accounts list, and which keys to press.
private struct Place {
    var name: String
    var context: KeyContext
    var recipe: [KeyEvent]
    var keys: [KeyEvent]
    var needsAccount: Bool
}

/// Every place of the key table: one per context (how to open it, written once per context so a
/// new context must say how it is reached), and the detail pane on each tab.
private func places(resourceURL: String) -> [Place] {
    var out: [Place] = []
    for context in KeyContext.allCases {
        let recipe: [KeyEvent]
        var needsAccount = false
        switch context {
        case .global, .accounts: recipe = []
        case .detail: recipe = [.right]
        case .filter: recipe = [.char("/")]
        case .signIn: recipe = [.char("l")]
        // The preset entry follows the one configured provider.
        case .presetForm: recipe = [.char("l"), .down, .enter]
        // The TUI's $BROWSER does nothing: the sign-in waits for a redirect that never comes.
        case .browserWaiting: recipe = [.char("l"), .enter]
        case .device: recipe = [.char("l"), .tab, .right, .enter]
        case .signOutConfirm: recipe = [.char("o")]; needsAccount = true
        case .providerEdit: recipe = [.char("E")]; needsAccount = true
        case .signOutProgress: recipe = [.char("o"), .char("y")]; needsAccount = true
        // The sign-in dialog's last field takes a resource's URL (Tests/ResourceServer's `ok`); its plan asks.
        case .resourceSignInConfirm:
            recipe = [.char("l"), .tab, .tab, .tab, .tab, .tab] + resourceURL.map { KeyEvent.char($0) } + [.enter]
        case .help: recipe = [.char("?")]
        }
        let keys = KeyBindings.table(context).flatMap(\.keys)
        out.append(Place(name: context.title, context: context, recipe: recipe, keys: keys, needsAccount: needsAccount))
    }
    // Each tab: the detail pane's keys and the global ones but quitting (walked on the Global place).
    for tab in DetailTab.allCases {
        let keys = (KeyBindings.table(.detail) + KeyBindings.table(.global)).flatMap(\.keys)
            .filter { KeyBindings.dispatch($0, model: emptyScreen) != .command(.quit) }
        out.append(Place(name: "Details, tab \(tab.title)", context: .detail, recipe: [.right, .char(Character(String(tab.rawValue)))],
                         keys: keys, needsAccount: true))
    }
    return out
}

/// One TUI under tmux on one home, pressing keys and checking that it is alive and answers.
private final class KeyWalker: @unchecked Sendable {
    let width: Int, height: Int
    let binary: String
    let environment: [String: String]
    let withAccount: Bool
    let resourceURL: String
    let signIn: () async throws -> Void
    let captures: URL
    private var tmux: TmuxSession?
    private(set) var pressed = 0

    init(width: Int, height: Int, binary: String, environment: [String: String], withAccount: Bool, resourceURL: String, captures: URL,
         signIn: @escaping () async throws -> Void) {
        self.resourceURL = resourceURL
        self.width = width
        self.height = height
        self.binary = binary
        self.environment = environment
        self.withAccount = withAccount
        self.captures = captures
        self.signIn = signIn
    }

    var label: String { "\(width)×\(height), \(withAccount ? "with an account" : "empty store")" }

    func start() async throws {
        tmux?.kill()
        if withAccount { try await signIn() }
        let quoted = "'" + binary.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        let session = try TmuxSession(width: width, height: height, command: "\(quoted); echo \(exitMarker)$?; exec sleep 600", environment: environment)
        tmux = session
        try await session.waitFor("the accounts screen (\(label))", timeout: 30) {
            footerLine($0).hasPrefix(footer(.accounts)) && (!self.withAccount || $0.contains("Accounts (1)"))
        }
    }

    func stop() { tmux?.kill() }

    /// The screen once it has stopped changing (two equal captures 40 ms apart, at most 3 s).
    func settled() async throws -> String {
        guard let tmux else { return "" }
        var last = try tmux.capture()
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline {
            try await Task.sleep(for: .milliseconds(40))
            let now = try tmux.capture()
            if now == last { return now }
            last = now
        }
        return last
    }

    func press(_ key: KeyEvent) async throws -> String {
        guard let tmux else { return "" }
        guard let args = tmuxKeys(key) else {
            Issue.record("The walk cannot press \(key.label): teach tmuxKeys how")
            return try tmux.capture()
        }
        try tmux.tmux(["send-keys", "-t", "ui"] + args)
        pressed += 1
        // Esc is held back by ncurses for ESCDELAY: let it arrive alone.
        if key == .escape { try await Task.sleep(for: .milliseconds(40)) }
        return try await settled()
    }

    func save(_ name: String, _ screen: String) {
        let safe = name.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        try? Data(screen.utf8).write(to: captures.appendingPathComponent("\(width)x\(height)-\(withAccount ? "account" : "empty")-\(String(safe)).txt"))
    }

    /// Back to the accounts list with Esc (at most five times); restarts the TUI after a quit, and
    /// signs the account in again after a sign-out. Records an issue when the screen does not answer.
    func reset(after what: String, quitExpected: Bool) async throws -> Bool {
        var screen = try await settled()
        if screen.contains(exitMarker) {
            let status = screen.split(separator: "\n").first { $0.contains(exitMarker) }.map(String.init) ?? ""
            // q quits with 0; Ctrl-C is SIGINT from the terminal: 128 + 2 (README's exit codes).
            if !quitExpected || !(status.hasSuffix("\(exitMarker)0") || (what.hasPrefix("C-c ") && status.hasSuffix("\(exitMarker)130"))) {
                save(what, screen)
                Issue.record("\(label): the TUI ended after \(what): \(status)\n\(screen)")
            }
            try await start()
            return quitExpected
        }
        // A sign-out in progress cannot be closed (its Esc is disabled until it is done).
        // At most SignOut.confirmationWait (60 s) when the provider does not confirm; then the step fails and it ends.
        if screen.contains("Working…") {
            screen = (try? await tmux?.waitFor("the sign-out to finish", timeout: 75) { !$0.contains("Working…") }) ?? screen
        }
        for _ in 0..<5 where !footerLine(screen).hasPrefix(footer(.accounts)) {
            screen = try await press(.escape)
        }
        guard footerLine(screen).hasPrefix(footer(.accounts)) else {
            save(what, screen)
            Issue.record("\(label): the screen did not come back to the accounts list after \(what)\n\(screen)")
            try await start()
            return false
        }
        // A sign-out ended the account: start again with it signed in.
        if withAccount, screen.contains("Accounts (0)") { try await start() }
        return true
    }

    /// Opens `place`; false (with an issue recorded) when its footer does not appear.
    func open(_ place: Place) async throws -> Bool {
        var screen = try await settled()
        for key in place.recipe { screen = try await press(key) }
        // Some places open after a network step (a sign-out, the discovery of a resource URL):
        // the screen can stand still on "Working…" or "Discovering …" for longer than a settle.
        let wanted = footer(place.context)
        if !footerLine(screen).hasPrefix(wanted) {
            screen = (try? await tmux?.waitFor("\(place.name) to open", timeout: 30) { footerLine($0).hasPrefix(wanted) }) ?? screen
            screen = try await settled()
        }
        guard footerLine(screen).hasPrefix(wanted) else {
            save("open " + place.name, screen)
            Issue.record("\(label): \(place.recipe.map(\.label)) did not open \(place.name) (footer \(footer(place.context)))\n\(screen)")
            return false
        }
        return true
    }

    /// Presses every key of every place, each from a freshly opened place.
    func walk() async throws {
        try await start()
        for place in places(resourceURL: resourceURL) where withAccount || !place.needsAccount {
            for key in place.keys {
                guard try await open(place) else { _ = try await reset(after: "opening \(place.name)", quitExpected: false); break }
                var screen = try await press(key)
                let what = "\(key.label) in \(place.name)"
                let quits = [.global, .accounts, .detail].contains(place.context) && KeyBindings.dispatch(key, model: emptyScreen) == .command(.quit)
                // A quit ends the process; on a loaded machine the shell's marker can come after the screen settled.
                if quits, !screen.contains(exitMarker) {
                    screen = (try? await tmux?.waitFor("the exit marker", timeout: 15) { $0.contains(exitMarker) }) ?? screen
                }
                if !screen.contains(exitMarker) && !(screen.split(separator: "\n").first?.contains("authdeck") ?? false) {
                    save(what, screen)
                    Issue.record("\(label): no header after \(what)\n\(screen)")
                }
                _ = try await reset(after: what, quitExpected: quits)
            }
        }
        stop()
    }
}

@Suite("Every key of every table in the shipped binary, under tmux", .serialized)
struct KeyWalkJourneyTests {
    @Test("Every binding of every pane, dialog and tab, on an empty store and with an account, at 80×24 and 200×60 (side by side): the process lives and answers")
    func everyKey() async throws {
        try #require(TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        try #require(ShippedBinary.problem == nil, "\(ShippedBinary.problem ?? "")")
        let captures = ShippedBinary.packageRoot.appendingPathComponent("test-output/key-walk")
        try? FileManager.default.removeItem(at: captures)
        try FileManager.default.createDirectory(at: captures, withIntermediateDirectories: true)
        let idp = try await LocalIdentityProvider.shared.provider()
        let resources = try await ResourceServerFixture.start()
        defer { Task { await resources.stop() } }
        let resourceURL = resources.resourceURL(scenario: "ok")
        let started = Date()
        let walked = try await withThrowingTaskGroup(of: Int.self) { group in
            for (width, height) in [(80, 24), (200, 60)] {
                group.addTask { try await Self.walk(width: width, height: height, idp: idp, resourceURL: resourceURL, captures: captures) }
            }
            return try await group.reduce(0, +)
        }
        let bindings = KeyContext.allCases.flatMap { KeyBindings.table($0).flatMap(\.keys) }.count
        #expect(walked > 4 * bindings, "pressed \(walked) keys for \(bindings) bindings")
        print("key walk: \(walked) keys in \(Int(Date().timeIntervalSince(started))) s")
    }

    /// Both states at one size; the number of keys pressed.
    static func walk(width: Int, height: Int, idp: LocalIdentityProvider, resourceURL: String, captures: URL) async throws -> Int {
        let binary = ShippedBinary.path
        var walked = 0
        // One user per walk: a sign-out with id_token_hint ends the user's grants at the provider
        // (django-oauth-toolkit deletes them), which would end the other walk's account midway.
        let user = width == 80 ? "alice" : "bob"
        for withAccount in [false, true] {
            let home = try TemporaryHome(provider: idp, user: user, extra: ["TERM": "tmux-256color"])
            defer { home.remove() }
            let add = try TmuxSession.spawnAndWait(
                [binary, "provider", "add", "local", "--display-name", "Local demo", "--issuer", idp.issuer.absoluteString,
                 "--client-id", idp.nativeClient.clientID], environment: home.environment)
            try #require(add.status == 0, "provider add: \(add.output)")
            // Signs the user in unless they are (the walk signs them out on purpose).
            let signIn = {
                let status = try TmuxSession.spawnAndWait([binary, "status"], environment: home.environment)
                guard !status.output.contains("local/\(user)") else { return }
                let login = try TmuxSession.spawnAndWait([binary, "login", "local"], environment: home.environment)
                try #require(login.status == 0, "login: \(login.output)")
            }
            // The TUI's browser opens only the provider's end-session page, or the listener's one-time
            // page that sends it there with id_token_hint (so a sign-out completes); a sign-in page it
            // leaves alone, so a browser sign-in waits until it is cancelled.
            let browser = home.root.appendingPathComponent("end-session-only-browser")
            let standIn = home.environment["BROWSER"] ?? ""
            try Data("""
                #!/bin/sh
                case "$1" in '\(idp.endpoints.endSession.absoluteString)'*|http://127.0.0.1:*/logout-start/*) exec '\(standIn)' "$@" ;; esac
                exit 0

                """.utf8).write(to: browser)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: browser.path)
            var tuiEnvironment = home.environment
            tuiEnvironment["BROWSER"] = browser.path
            let walker = KeyWalker(width: width, height: height, binary: binary, environment: tuiEnvironment,
                                   withAccount: withAccount, resourceURL: resourceURL, captures: captures, signIn: signIn)
            defer { walker.stop() }
            try await walker.walk()
            walked += walker.pressed
        }
        return walked
    }

    @Test("The header clock is local time (TZ=Asia/Kolkata, +05:30) in the shipped binary, whose Foundation knows no zone names")
    func clockIsLocalTime() async throws {
        try #require(TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        try #require(ShippedBinary.problem == nil, "\(ShippedBinary.problem ?? "")")
        let idp = try await LocalIdentityProvider.shared.provider()
        let home = try TemporaryHome(provider: idp, extra: ["TERM": "tmux-256color", "TZ": "Asia/Kolkata"])
        defer { home.remove() }
        let quoted = "'" + ShippedBinary.path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        let tmux = try TmuxSession(width: 80, height: 24, command: "\(quoted); exec sleep 600", environment: home.environment)
        defer { tmux.kill() }
        let screen = try await tmux.waitFor("the accounts screen") { $0.contains("Accounts (0)") }
        let header = String(screen.split(separator: "\n").first ?? "")
        let clock = String(header.trimmingCharacters(in: .whitespaces).suffix(5))
        // Now in +05:30, and a minute earlier (the capture may straddle a minute).
        let expected = [0.0, -60].map { offset -> String in
            let local = Int(Date().addingTimeInterval(offset).timeIntervalSince1970) + 19_800
            let minutes = (local / 60) % (24 * 60)
            return String(format: "%02d:%02d", minutes / 60, minutes % 60)
        }
        #expect(expected.contains(clock), "header \(header): the clock \(clock), expected one of \(expected)")
    }
}
