import AuthEngine
import FoundationEssentials

extension AppReducer {
    /// The browser sign-in's paste field (a browser on another machine): keys edit the text,
    /// kept redacted in ``SignInFlow/pasted``; Enter hands it to the running sign-in through
    /// ``UseCaseClient/pasteRedirect``. Only while the sign-in reads a pasted redirect.
    func reducePasteField(_ state: inout AppState, _ action: AppAction, useCases: UseCaseClient) -> Effect<AppAction> {
        switch action {
        case .signInPasteKey(let key):
            guard state.signIn?.isRunning == true, state.signIn?.readsPaste == true else { return .none }
            let text = state.signIn?.pasted?.exposedValue ?? ""
            let edited = key.map { text + String($0) } ?? String(text.dropLast())
            // Bounded as the terminal's reader bounds a line.
            guard edited.utf8.count <= 16 * 1024 else { return .none }
            state.signIn?.pasted = edited.isEmpty ? nil : AuthorizationCode(edited)
            return .none

        case .signInPasteSubmit:
            guard state.signIn?.isRunning == true, state.signIn?.readsPaste == true, let line = state.signIn?.pasted else { return .none }
            state.signIn?.pasted = nil
            return .run { _ in useCases.pasteRedirect(line.exposedValue) }

        default:
            return .none
        }
    }
}
