import AppCore
import FoundationEssentials

// `authdeck lock` and `authdeck passphrase`: the encrypted vault's key cache and passphrase.

extension Commands {
    static let lock = CommandSpec(
        name: "lock",
        abstract: "Forget the vault's cached key; the next command asks for the passphrase again.",
        discussion: "Only the encrypted vault caches a key (AUTHDECK_VAULT_CACHE_SECONDS, default 900 s,"
            + " in the kernel keyring or $XDG_RUNTIME_DIR). Other stores have nothing to lock.",
        run: { _ in
            switch CLIContext.current.result({ () throws(AppError) in try VaultAdmin(CLIContext.current.app).lock() }) {
            case .success(true):
                Output.err("Vault locked: its cached key is gone.")
            case .success(false):
                Output.err("Nothing to lock: the credential store is not the encrypted vault.")
            case .failure(let error):
                throw CLIFailure(error)
            }
            return ExitCode.ok
        }
    )

    static let passphrase = CommandSpec(
        name: "passphrase",
        abstract: "Change the vault passphrase (the vault is re-encrypted in one atomic step).",
        discussion: "The current passphrase comes from the usual place (AUTHDECK_PASSPHRASE_FILE, AUTHDECK_PASSPHRASE_FD or the terminal);"
            + " the new one from the 0600 file named by AUTHDECK_NEW_PASSPHRASE_FILE, or it is asked twice on the terminal.",
        run: { _ in
            switch CLIContext.current.result({ () throws(AppError) in try VaultAdmin(CLIContext.current.app).changePassphrase() }) {
            case .success(true):
                Output.err("Vault passphrase changed.")
                return ExitCode.ok
            case .success(false):
                throw CLIFailure("The credential store is not the encrypted vault", hint: "Only the vault has a passphrase; see 'authdeck status'.")
            case .failure(let error):
                throw CLIFailure(error)
            }
        }
    )
}
