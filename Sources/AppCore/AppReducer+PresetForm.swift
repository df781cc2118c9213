import AuthEngine
import FoundationEssentials

extension AppReducer {
    /// The "Add a provider from a preset…" form: open, edit, submit through
    /// ``UseCaseClient/addProvider`` (probe then save), and close. A refusal keeps the fields and
    /// shows the use case's message in the form; a success selects the provider for sign-in.
    func reducePresetForm(_ state: inout AppState, _ action: AppAction) -> Effect<AppAction> {
        switch action {
        case .presetFormOpen:
            guard !state.presets.isEmpty else {
                flash(&state, .warn, "No preset available: see 'authdeck provider presets'")
                return .none
            }
            state.presetForm = PresetForm(presets: state.presets)
            return .none

        case .presetFormEdit(let edit):
            guard state.presetForm?.submitting == false else { return .none }
            state.presetForm?.apply(edit)
            return .none

        case .presetFormSubmit:
            guard let form = state.presetForm, !form.submitting else { return .none }
            let provider: ProviderConfig, secret: ClientSecret?
            do throws(AppError) {
                (provider, secret) = try form.provider()
            } catch {
                state.presetForm?.error = error.description
                return .none
            }
            state.presetForm?.error = nil
            state.presetForm?.probeFailure = nil
            state.presetForm?.submitting = true
            let useCases = dependencies.useCases
            return .run { send in send(.presetFormFinished(await useCases.addProvider(provider, secret))) }
                .cancellable(EffectIDs.addProvider)

        case .presetFormFinished(.success(let provider)):
            guard state.presetForm != nil else { return .none }
            state.presetForm = nil
            state.providers.removeAll { $0.id == provider.id }
            state.providers.append(provider)
            flash(&state, .info, "Added provider '\(provider.id)': sign in with Enter")
            return .none

        case .presetFormFinished(.failure(let error)):
            guard state.presetForm != nil else { return .none }
            state.presetForm?.submitting = false
            state.presetForm?.error = error.description
            state.presetForm?.probeFailure = error.probe
            return .none

        case .presetFormClose:
            state.presetForm = nil
            return .cancel(EffectIDs.addProvider)

        default:
            return .none
        }
    }
}
