import AuthEngine
import FoundationEssentials

extension AppReducer {
    /// The accounts screen's "Edit provider" form: open (prefilled from the provider as loaded),
    /// edit, submit through ``UseCaseClient/changeProvider`` (the same refusals, probe and re-apply
    /// under the providers file's lock as `provider set`), and close. A refusal keeps the fields and
    /// shows the use case's message in the form; a success updates the providers and says what changed.
    func reduceProviderEditForm(_ state: inout AppState, _ action: AppAction) -> Effect<AppAction> {
        switch action {
        case .providerEditOpen(let id):
            guard let provider = state.providers.first(where: { $0.id == id }) else {
                flash(&state, .warn, "No provider '\(id)' any more: see 'authdeck provider list'")
                return .none
            }
            state.providerEditForm = ProviderEditForm(provider: provider)
            return .none

        case .providerEditEdit(let edit):
            guard state.providerEditForm?.submitting == false else { return .none }
            state.providerEditForm?.apply(edit)
            return .none

        case .providerEditSubmit:
            guard let form = state.providerEditForm, !form.submitting else { return .none }
            let changes: ProviderEditForm.Changes
            do throws(AppError) {
                changes = try form.changes()
            } catch {
                state.providerEditForm?.error = error.description
                state.providerEditForm?.probeFailure = nil
                return .none
            }
            guard !changes.isEmpty else {
                state.providerEditForm?.error = "Nothing changed: edit a field (Tab moves between them), or Esc to close"
                return .none
            }
            state.providerEditForm?.error = nil
            state.providerEditForm?.probeFailure = nil
            state.providerEditForm?.submitting = true
            let useCases = dependencies.useCases
            return .run { send in send(.providerEditFinished(await useCases.changeProvider(form.providerID, changes))) }
                .cancellable(EffectIDs.changeProvider)

        case .providerEditFinished(.success(let change)):
            guard state.providerEditForm != nil else { return .none }
            state.providerEditForm = nil
            if let index = state.providers.firstIndex(where: { $0.id == change.after.id }) {
                state.providers[index] = change.after
            } else {
                state.providers.append(change.after)
            }
            flash(&state, .info, ProviderEditForm.summary(change))
            return .none

        case .providerEditFinished(.failure(let error)):
            guard state.providerEditForm != nil else { return .none }
            state.providerEditForm?.submitting = false
            state.providerEditForm?.error = error.description
            state.providerEditForm?.probeFailure = error.probe
            return .none

        case .providerEditClose:
            state.providerEditForm = nil
            return .cancel(EffectIDs.changeProvider)

        default:
            return .none
        }
    }
}
