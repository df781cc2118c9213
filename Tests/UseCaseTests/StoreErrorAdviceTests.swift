@testable import AppCore
import CredentialStore
import Testing

/// What to do about a store error depends on its cause (``ErrorMapping``, ``AppError/nextStep``).
@Suite("Store errors: advice by cause")
struct StoreErrorAdviceTests {
    @Test("A locked keyring (a dismissed unlock prompt) advises unlocking the keyring, never a vault passphrase; exit 4's disposition")
    func lockedKeyring() {
        let error = ErrorMapping.appError(SecretStoreError.locked(cause: .init("the Secret Service's prompt to unlock the keyring was dismissed; nothing was stored")))
        #expect(error.disposition == .storeLocked)
        #expect(error.title == "The keyring is locked")
        #expect(error.description.contains("dismissed; nothing was stored"))
        #expect(error.nextStep?.contains("Unlock the keyring") == true)
        #expect(!(error.nextStep ?? "").contains("passphrase"))
        // The vault's own lock keeps the front end's passphrase advice.
        #expect(ErrorMapping.appError(SecretStoreError.passphraseUnavailable(cause: .init("no terminal"))).nextStep == nil)
    }

    @Test("A local store's timeout says what did not answer (the Secret Service, an account lock), not 'network or server'")
    func localTimeouts() {
        let keyring = ErrorMapping.appError(SecretStoreError.timeout(operation: "Secret Service Service.ReadAlias", seconds: 3))
        #expect(keyring.nextStep?.contains("keyring daemon") == true && keyring.nextStep?.contains("AUTHDECK_STORE=vault") == true)
        let lock = ErrorMapping.appError(SecretStoreError.timeout(operation: "lock corp/alice", seconds: 30))
        #expect(lock.nextStep?.contains("Another authdeck process holds the lock") == true)
    }

    @Test("A wait cancelled at a keyring prompt (Ctrl-C) is a cancellation")
    func cancelled() {
        #expect(ErrorMapping.appError(SecretStoreError.cancelled(operation: "Secret Service prompt to unlock the keyring")).disposition == .cancelled)
    }
}
