import AppCore
import Foundation
import Testing
@testable import TerminalUI

@Suite("Frame goldens (monochrome, pinned now)")
struct FrameGoldenTests {
    let mono = BuiltInThemes.monochrome

    @Test("Accounts screen with three accounts and the overview tab at 100×30")
    func accountsScreen() throws {
        let f = Renderer.render(Fixtures.screen(), size: Size(width: 100, height: 30), theme: mono)
        try assertSnapshot(f, named: "accountsScreen")
    }

    @Test("Accounts screen at 80×24 (narrowest side-by-side layout)")
    func accountsScreen80() throws {
        let f = Renderer.render(Fixtures.screen(), size: Size(width: 80, height: 24), theme: mono)
        try assertSnapshot(f, named: "accountsScreen80x24")
    }

    @Test("ID token tab: verified signature, claims in RFC 7519 / OIDC order, nested address as a tree")
    func idTokenTab() throws {
        var m = Fixtures.screen(tab: .idToken)
        m.focus = .detail
        let f = Renderer.render(m, size: Size(width: 120, height: 40), theme: mono)
        try assertSnapshot(f, named: "idTokenTab")
    }

    @Test("Device dialog: user code, verification URI, QR with half blocks, expiry countdown, polling state")
    func deviceDialog() throws {
        let d = DeviceDialog(providerName: "Local IdP", userCode: "WDJB-MJHT",
                             verificationURI: "http://127.0.0.1:8999/device",
                             verificationURIComplete: "http://127.0.0.1:8999/device?user_code=WDJB-MJHT",
                             qr: Fixtures.qrMatrix, expiresAt: at(843), polling: .slowDown(interval: 10))
        let f = Renderer.render(Fixtures.screen(dialog: .device(d)), size: Size(width: 100, height: 30), theme: mono)
        try assertSnapshot(f, named: "deviceDialog")
    }

    @Test("Device dialog at 80×24: a version-4 QR code (33 modules) still fits beside the text")
    func deviceDialog80x24() throws {
        let d = DeviceDialog(providerName: "Local IdP", userCode: "WDJB-MJHT",
                             verificationURI: "http://127.0.0.1:8999/device",
                             verificationURIComplete: "http://127.0.0.1:8999/device?user_code=WDJB-MJHT",
                             qr: Fixtures.qrMatrix33, expiresAt: at(-5), polling: .expired)
        let f = Renderer.render(Fixtures.screen(dialog: .device(d)), size: Size(width: 80, height: 24), theme: mono)
        #expect(f.plainText.contains("▀▀▀▀▀▀▀"), "QR code missing")
        try assertSnapshot(f, named: "deviceDialog80x24")
    }

    @Test("Sign-out results: revoked, session end skipped, local secrets deleted")
    func signOutResults() throws {
        let p = SignOutProgressDialog(accountName: "alice@example.test", steps: [
            SignOutStep(name: "Revoke refresh token (RFC 7009)", result: .done("revoked")),
            SignOutStep(name: "End provider session", result: .skipped("no end_session_endpoint")),
            SignOutStep(name: "Delete local secrets", result: .done("deleted")),
        ], finished: true)
        let f = Renderer.render(Fixtures.screen(dialog: .signOutProgress(p)), size: Size(width: 100, height: 30), theme: mono)
        try assertSnapshot(f, named: "signOutResults")
    }

    @Test("Help overlay generated from the key tables")
    func helpOverlay() throws {
        let f = Renderer.render(Fixtures.screen(help: true), size: Size(width: 100, height: 30), theme: mono)
        try assertSnapshot(f, named: "helpOverlay")
    }

    @Test("The ? overlay keeps notes (the demo's users and commands) at its foot, escaped")
    func helpOverlayNotes() {
        var m = Fixtures.screen(help: true)
        m.notes = ["Demo users:  alice / pw1    bob / pw2", "Device flow: approve-device --user-code CODE \u{1B}[2J"]
        let text = Renderer.render(m, size: Size(width: 100, height: 30), theme: mono).plainText
        #expect(text.contains("Demo users:  alice / pw1    bob / pw2"))
        #expect(text.contains("approve-device --user-code CODE \\e[2J"), "escape sequences from outside are made visible")
        #expect(text.contains("Keys"))
    }

    @Test("Sign-in dialog with providers, flow choice and extra fields")
    func signInDialog() throws {
        let s = SignInDialog(providers: [
            ProviderOption(id: "local", name: "Local IdP", detail: "http://127.0.0.1:8999"),
            ProviderOption(id: "github", name: "GitHub", detail: "preset, no OIDC", supportsDevice: true),
        ], selectedProvider: 0, flow: .browser, extraScopes: "offline_access", focusedField: .scopes)
        let f = Renderer.render(Fixtures.screen(dialog: .signIn(s)), size: Size(width: 100, height: 30), theme: mono)
        try assertSnapshot(f, named: "signInDialog")
    }

    @Test("Sign-in dialog with 100 providers at 80×24: the list scrolls inside the dialog and keeps the selection visible")
    func signInDialogWithManyProviders() throws {
        let providers = (1...100).map { ProviderOption(id: ProviderID("p\($0)"), name: "Provider \($0)", detail: "https://op\($0).example") }
        for selected in [0, 57, 99] {
            let s = SignInDialog(providers: providers, selectedProvider: selected)
            let text = Renderer.render(Fixtures.screen(dialog: .signIn(s)), size: Size(width: 80, height: 24), theme: mono).plainText
            #expect(text.contains("▸ Provider \(selected + 1) "), "the selection is on screen (\(selected))")
            #expect(text.contains("(\(selected + 1) of 100)"))
            #expect(text.contains("Enter sign in"), "the dialog's last line still fits")
            #expect(text.contains("↑") == (selected > 0) && text.contains("↓") == (selected < 99), "the more-lines stand for the rest")
        }
        try assertSnapshot(Renderer.render(Fixtures.screen(dialog: .signIn(SignInDialog(providers: providers, selectedProvider: 57))),
                                           size: Size(width: 80, height: 24), theme: mono), named: "signInDialog100Providers")
    }

    @Test("Narrow 60×20 stacks the detail pane under the accounts")
    func narrow() throws {
        let f = Renderer.render(Fixtures.screen(), size: Size(width: 60, height: 20), theme: mono)
        try assertSnapshot(f, named: "narrow60x20")
    }

    static func richDetail(tab: DetailTab) -> ScreenModel {
        var m = Fixtures.screen(tab: tab)
        m.focus = .detail
        m.detail!.scopes = ScopesModel(requested: ["openid", "profile", "offline_access", "read:api"],
                                       granted: ["openid", "profile", "read:api", "write:api"],
                                       lastRefreshDiff: ScopeDiff(added: ["write:api"], removed: ["offline_access"]))
        m.detail!.accessTokens = [
            AccessTokenEntry(resource: "https://api.example.test", kind: .decoded(
                header: obj([("alg", .string("RS256")), ("typ", .string("at+jwt"))]),
                claims: obj([("iss", .string("http://127.0.0.1:8999")), ("aud", .string("https://api.example.test")),
                             ("exp", .number(1_796_033_050)), ("scope", .string("read:api write:api"))])),
                expiresAt: at(250)),
            AccessTokenEntry(resource: nil, kind: .opaque, expiresAt: at(250),
                             introspection: obj([("active", .bool(true)), ("client_id", .string("authdeck-cli")),
                                                 ("exp", .number(1_796_033_050))])),
        ]
        m.detail!.raw = [
            RawTokenEntry(label: "access token (https://api.example.test)", value: .masked(TokenMask.mask("eyJhbGciOiJSUzI1NiJ9.payload.sig"))),
            RawTokenEntry(label: "refresh token", value: .revealed("rt_" + String(repeating: "0123456789abcdef", count: 6))),
        ]
        m.detail!.userinfo = .failed(ErrorLine(message: "invalid_token: the access token expired", clause: "RFC 6750 §3.1"))
        return m
    }

    @Test("Detail tabs: scopes diff, access tokens (decoded JWT informational, opaque + introspection), userinfo error, raw",
          arguments: [DetailTab.scopes, .accessToken, .userinfo, .raw])
    func detailTabs(tab: DetailTab) throws {
        let f = Renderer.render(Self.richDetail(tab: tab), size: Size(width: 120, height: 40), theme: mono)
        try assertSnapshot(f, named: "detailTab-\(tab.title.replacingOccurrences(of: " ", with: ""))")
    }
}
