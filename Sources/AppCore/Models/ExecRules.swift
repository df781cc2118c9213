import FoundationEssentials

/// The rules of `authdeck exec`: what the child's environment holds, and when the token file of a
/// long-running child is renewed. Pure; the command's live loop (spawn, signals, the file) follows
/// them.
public enum ExecRules {
    /// Set in the child to the account's handle (`provider/username`): a nested `authdeck exec`
    /// notices it runs inside another.
    public static let nestingVariable = "AUTHDECK_EXEC"
    /// The variable that carries the access token when `--env` names none.
    public static let defaultTokenVariable = "AUTHDECK_TOKEN"
    /// The token's expiry (RFC 3339, UTC) beside a token in the environment, whatever `--env` names.
    public static let expirationVariable = "AUTHDECK_TOKEN_EXPIRATION"
    /// Names the shell, the dynamic loader (ld.so(8)) or the C library give a meaning: a token in
    /// one of them breaks the command (PATH) or is printed by it (LD_PRELOAD's error names it).
    static let reservedNames = ["PATH", "HOME", "IFS", "ENV", "BASH_ENV", "SHELL", "SHELLOPTS", "BASHOPTS", "CDPATH", "PS1", "PS2",
                                "PS4", "TERM", "TMPDIR", "USER", "LOGNAME", "PWD", "OLDPWD", "LANG", "TZ", "GCONV_PATH", "GLIBC_TUNABLES",
                                "HOSTALIASES", "LOCALDOMAIN", "RES_OPTIONS", "NLSPATH", "AUTHDECK_ACCOUNT", "AUTHDECK_STORE"]
    static let reservedPrefixes = ["LD_", "LC_", "MALLOC_", "XDG_", "AUTHDECK_PASSPHRASE", "AUTHDECK_NEW_PASSPHRASE", "BASH_FUNC_"]

    /// The suffix of the variable that names the token file (`AUTHDECK_TOKEN_FILE`).
    public static let fileSuffix = "_FILE"

    /// The endings (ASCII case ignored) of the names programs read as a credential and nothing
    /// else: `GH_TOKEN`, `CLOUDSDK_AUTH_ACCESS_TOKEN`, `OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`,
    /// `PGPASSWORD`, `CLIENT_SECRET`, `NPM_CONFIG__AUTH`, `GITLAB_PAT`, `MYSQL_PWD`. Not
    /// `_CREDENTIALS`: the best-known one (`GOOGLE_APPLICATION_CREDENTIALS`) names a file, and a
    /// token there is printed in the "file not found" error.
    public static let credentialSuffixes = ["TOKEN", "API_KEY", "APIKEY", "ACCESS_KEY", "PASSWORD", "PASSWD", "SECRET", "_AUTH", "_PAT", "_PWD"]
    /// Terraform's per-host tokens (`TF_TOKEN_app_terraform_io`).
    public static let credentialPrefixes = ["TF_TOKEN_"]
    /// The rule in words, for the refusal and the documentation.
    public static let credentialRule = "a name ending in _TOKEN, _API_KEY, _APIKEY, _ACCESS_KEY, PASSWORD, _PASSWD, _SECRET, _AUTH, _PAT or _PWD"
        + " (ASCII case ignored), or TF_TOKEN_<host>"

    /// Whether `name` is one programs read as a credential (``credentialSuffixes``, ``credentialPrefixes``).
    public static func isCredentialName(_ name: String) -> Bool {
        let upper = name.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
        return credentialSuffixes.contains { upper.count >= $0.utf8.count && upper.suffix($0.utf8.count).elementsEqual($0.utf8) }
            || credentialPrefixes.contains { name.utf8.starts(with: $0.utf8) && name.utf8.count > $0.utf8.count }
    }

    /// Why `name` cannot carry the token, or nil: a portable environment variable name (POSIX.1-2017
    /// §8.1: ASCII letters, digits and `_`, not starting with a digit), not one authdeck sets for
    /// itself or the loader and shell give a meaning, and allowed by rule: a name programs read as
    /// a credential (``isCredentialName(_:)``). Any other name may be run, resolved or evaluated by
    /// some program (`http_proxy` sent the token to DNS as a proxy's host name; `GIT_SSH_COMMAND`,
    /// `GIT_ASKPASS`, `PROMPT_COMMAND`, `NODE_OPTIONS`, `PYTHONSTARTUP`, `PAGER` run it), so none is.
    public static func variableNameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard let first = bytes.first else { return "--env needs a variable name, got an empty one" }
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F }
        guard isLetter(first), bytes.allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) }) else {
            return "--env '\(name)' is not a variable name (letters, digits and _, not starting with a digit)"
        }
        if name.utf8.elementsEqual(nestingVariable.utf8) { return "--env \(nestingVariable) is set by authdeck itself; choose another name" }
        if reservedNames.contains(where: { $0.utf8.elementsEqual(name.utf8) }) || reservedPrefixes.contains(where: { name.hasPrefix($0) }) {
            return "--env \(name) already means something to the shell, the dynamic loader or the C library"
                + " (a token there breaks the command or is printed by it); choose a name such as GH_TOKEN"
        }
        guard isCredentialName(name) else {
            return "--env \(name) is not a name programs read as a credential: exec puts the token only in \(credentialRule)"
                + " (other names may be run or resolved by a program: proxies, GIT_SSH_COMMAND, NODE_OPTIONS, PAGER…); choose a name"
                + " such as GH_TOKEN"
        }
        return nil
    }

    /// The child's environment: `parent` with the token in `variable` (or, with a token file, the
    /// file's path in `variable` + `_FILE` and no token in the environment at all), and
    /// ``nestingVariable`` set to `account`. Any inherited value of those variables is replaced, so a
    /// stale token from an outer shell never reaches the child. Nothing else authdeck holds (refresh
    /// token, ID token, client secret) is added; `parent` holds no secret of authdeck's (its
    /// variables name files and descriptors, never their contents).
    /// With the token in the environment, ``expirationVariable`` holds `expiration` (the token's
    /// expiry, RFC 3339 UTC; unset when it has none): a token file is renewed, so its expiry is not
    /// fixed for the child's life and the variable is unset then.
    public static func childEnvironment(parent: [String: String], variable: String, token: String?, tokenFile: String?,
                                        expiration: String? = nil, account: String) -> [String: String] {
        var environment = parent
        let fileVariable = variable + fileSuffix
        environment[variable] = nil
        environment[fileVariable] = nil
        environment[expirationVariable] = nil
        if let tokenFile {
            environment[fileVariable] = tokenFile
        } else if let token {
            environment[variable] = token
            environment[expirationVariable] = expiration
        }
        environment[nestingVariable] = account
        return environment
    }

    /// When to renew a token file whose token expires at `expiresAt`: `minimumValidity` seconds
    /// before, but never later than half the time left (a token shorter-lived than
    /// `minimumValidity` is renewed at half-life, as `token --min-valid` clamps it), and never
    /// sooner than one second from `now`. Nil for a token without an expiry (never renewed).
    public static func renewalTime(expiresAt: Date?, now: Date, minimumValidity: TimeInterval) -> Date? {
        guard let expiresAt else { return nil }
        let left = expiresAt.timeIntervalSince(now)
        let margin = min(max(minimumValidity, 0), left / 2)
        return max(now.addingTimeInterval(1), expiresAt.addingTimeInterval(-margin))
    }

    /// How long to wait after `failures` failed renewals in a row (1, 2, …) before the next try:
    /// 2, 4, 8 … seconds up to 60, and never past the token's expiry while it lasts (the last try
    /// falls just before it). At least one second.
    public static func retryDelay(failures: Int, expiresAt: Date?, now: Date) -> TimeInterval {
        let backoff = min(60, Double(1 << min(max(failures, 1), 6)))
        guard let expiresAt else { return backoff }
        let left = expiresAt.timeIntervalSince(now)
        return max(1, left > 1 ? min(backoff, left - 1) : backoff)
    }
}
