// The dialogs of the screen model (sign-in, browser wait, device code, sign-out), as plain values.
import AppCore
import FoundationEssentials

// MARK: - Dialogs

public enum Dialog: Equatable, Sendable {
    case signIn(SignInDialog)
    /// The sign-in dialog's "Add a provider from a preset…" form.
    case presetForm(PresetFormDialog)
    /// `E`'s "Edit provider" form.
    case providerEdit(ProviderEditDialog)
    case browserWaiting(BrowserWaitingDialog)
    case device(DeviceDialog)
    case signOutConfirm(SignOutConfirmDialog)
    case signOutProgress(SignOutProgressDialog)
    /// A resource's plan (`login URL` in the screen), asked before anything is registered or opened.
    case resourceSignInConfirm(ResourceSignInConfirmDialog)
}

/// What signing in to a resource will do (``ResourceSignInPlan/summaryLines``), to confirm.
public struct ResourceSignInConfirmDialog: Equatable, Sendable {
    public var lines: [String]
    public init(lines: [String]) { self.lines = lines }
}

/// `url`: a protected resource's URL (RFC 9728); when given, the sign-in is to that resource and the provider list is not used.
public enum SignInField: Equatable, Sendable, CaseIterable { case provider, flow, scopes, audience, resource, url }

public struct ProviderOption: Equatable, Sendable {
    public var id: ProviderID
    public var name: String
    /// e.g. the issuer, or "preset".
    public var detail: String
    public var supportsDevice: Bool
    public init(id: ProviderID, name: String, detail: String = "", supportsDevice: Bool = true) {
        self.id = id
        self.name = name
        self.detail = detail
        self.supportsDevice = supportsDevice
    }
}

public struct SignInDialog: Equatable, Sendable {
    public var providers: [ProviderOption]
    public var selectedProvider: Int
    public var flow: SignInRequest.Flow
    /// Space-separated extra scopes.
    public var extraScopes: String
    public var audience: String
    /// Space-separated resource indicators (RFC 8707).
    public var resource: String
    /// A protected resource's URL: sign in to it instead of the selected provider.
    public var resourceURL: String = ""
    public var focusedField: SignInField
    /// The list ends with "Add a provider from a preset…" (selected when `selectedProvider ==
    /// providers.count`).
    public var addFromPreset: Bool
    public init(
        providers: [ProviderOption], selectedProvider: Int = 0, flow: SignInRequest.Flow = .browser, extraScopes: String = "",
        audience: String = "", resource: String = "", focusedField: SignInField = .provider, addFromPreset: Bool = false
    ) {
        self.addFromPreset = addFromPreset
        self.providers = providers
        self.selectedProvider = selectedProvider
        self.flow = flow
        self.extraScopes = extraScopes
        self.audience = audience
        self.resource = resource
        self.focusedField = focusedField
    }
}

/// The "Add a provider from a preset…" form as shown (from AppCore's `PresetForm`; the secret
/// only as bullets).
public struct PresetFormDialog: Equatable, Sendable {
    public struct Choice: Equatable, Sendable {
        public var name: String
        public var displayName: String
        public init(name: String, displayName: String) {
            self.name = name
            self.displayName = displayName
        }
    }
    /// A field; its hint is what to enter, from the preset (meaning, example, required or default).
    public typealias Field = FormField<PresetForm.Field>
    public var choices: [Choice]
    public var selected: Int
    public var fields: [Field]
    public var focused: PresetForm.Field
    public var error: String?
    public var submitting: Bool
    public init(choices: [Choice], selected: Int, fields: [Field], focused: PresetForm.Field, error: String? = nil, submitting: Bool = false) {
        self.choices = choices
        self.selected = selected
        self.fields = fields
        self.focused = focused
        self.error = error
        self.submitting = submitting
    }
}

public struct BrowserWaitingDialog: Equatable, Sendable {
    public var providerName: String
    /// The authorization request URL (shown so it can be opened by hand).
    public var url: String
    /// e.g. "opened with xdg-open", or why opening failed.
    public var browserNote: String?
    /// Where the browser flow stands; decides the heading and the Esc hint.
    public var stage: Stage
    public enum Stage: Equatable, Sendable { case contacting, waiting, verifying, failed }
    /// The paste field, while the sign-in reads a pasted redirect (no browser opened here); the
    /// text itself stays in the app (it carries the code): only how much was typed is shown.
    public var paste: PasteField?
    public struct PasteField: Equatable, Sendable {
        public var typedCount: Int
        public init(typedCount: Int) { self.typedCount = typedCount }
    }
    public init(providerName: String, url: String, browserNote: String? = nil, stage: Stage = .waiting, paste: PasteField? = nil) {
        self.paste = paste
        self.providerName = providerName
        self.url = url
        self.browserNote = browserNote
        self.stage = stage
    }
}

public enum DevicePollStatus: Equatable, Sendable {
    case waiting
    case authorizationPending
    /// RFC 8628 §3.5: the interval grew to `interval` seconds.
    case slowDown(interval: Int)
    case approved
    case denied
    case expired
    case failed(ErrorLine)
}

public struct DeviceDialog: Equatable, Sendable {
    public var providerName: String
    public var userCode: String
    public var verificationURI: String
    public var verificationURIComplete: String?
    /// QR modules of `verification_uri_complete` (or `verification_uri`), row-major, `true` = dark;
    /// computed by the caller (TerminalUINCurses `QRCode.matrix(for:)`). Without quiet zone.
    public var qr: [[Bool]]?
    public var expiresAt: Date
    public var polling: DevicePollStatus
    public init(
        providerName: String, userCode: String, verificationURI: String, verificationURIComplete: String? = nil,
        qr: [[Bool]]? = nil, expiresAt: Date, polling: DevicePollStatus = .waiting
    ) {
        self.providerName = providerName
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.qr = qr
        self.expiresAt = expiresAt
        self.polling = polling
    }
}

public struct SignOutConfirmDialog: Equatable, Sendable {
    public var accountID: AccountRow.ID
    public var accountName: String
    /// RFC 7009 revocation will be attempted.
    public var willRevoke: Bool
    /// RP-Initiated Logout will be opened in the browser.
    public var willEndSession: Bool
    public init(accountID: AccountRow.ID, accountName: String, willRevoke: Bool, willEndSession: Bool) {
        self.accountID = accountID
        self.accountName = accountName
        self.willRevoke = willRevoke
        self.willEndSession = willEndSession
    }
}

public struct SignOutStep: Equatable, Sendable {
    public enum Result: Equatable, Sendable {
        case pending, running
        case done(String)
        case skipped(String)
        case failed(ErrorLine)
    }
    /// e.g. "Revoke refresh token (RFC 7009)", "End provider session", "Delete local secrets".
    public var name: String
    public var result: Result
    public init(name: String, result: Result) {
        self.name = name
        self.result = result
    }
}

public struct SignOutProgressDialog: Equatable, Sendable {
    public var accountName: String
    public var steps: [SignOutStep]
    public var finished: Bool
    public init(accountName: String, steps: [SignOutStep], finished: Bool) {
        self.accountName = accountName
        self.steps = steps
        self.finished = finished
    }
}
