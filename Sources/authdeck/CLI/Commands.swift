import AppCore
import AppCoreLive
import FoundationEssentials
import TerminalUI

/// Exit codes (documented in README): 0 ok, 1 failure, 2 usage, 3 needs sign-in, 4 store locked,
/// 5 a damaged file (run `authdeck doctor`).
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let needsSignIn: Int32 = 3
    static let storeLocked: Int32 = 4
    /// A file authdeck keeps is damaged (nothing was changed): run `authdeck doctor`.
    static let fileDamaged: Int32 = 5
    /// The person answered no at a question (`login URL`'s plan): nothing was registered or stored.
    static let declined: Int32 = 6
    /// On a remote: the agent's machine did not allow the request (`authdeck agent --confirm` answered no, or not in time).
    static let agentDenied: Int32 = 7
    /// `api`: a resource asked for a step-up sign-in (RFC 9470 `insufficient_user_authentication`, or `insufficient_scope`) and
    /// no person is here to sign in (no terminal): the message gives the `authdeck login` command that does it.
    static let stepUpRequired: Int32 = 8
    /// Ctrl-C (SIGINT) cancelled a sign-in: 128 + SIGINT, as shells report it.
    static let interrupted: Int32 = 130
}

/// The command table: one place drives parsing, `--help`, and shell completion.
enum Commands {
    static let json = OptionSpec.flag("json", help: "Print JSON (stable schema, RFC 3339 UTC times) instead of text.")

    static func root(run: @escaping @Sendable (ParsedCommand) async throws -> Int32) -> CommandSpec {
        CommandSpec(
            name: "authdeck",
            abstract: "A terminal account and session manager for OAuth 2.0 and OpenID Connect.",
            discussion: "Run without arguments to open the accounts screen.",
            options: [
                .flag("version", help: "Print the version."),
                .value("theme", valueName: "name", help: "The TUI theme (\(commaList(BuiltInThemes.names)), or a file in themes/)."),
                .flag("readOnly", help: "Start the TUI without destructive actions (sign-out)."),
                .flag("accessible", help: "Lines for a screen reader instead of the screen: each change said once, keys typed as lines"
                    + " (also ACCESSIBLE=1)."),
            ],
            subcommands: [
                login, logout, status, switchAccount, which, bind, unbind, prompt, token, exec, check, gitCredential, setupGit, dockerCredential,
                proof, refresh, userinfo, introspect, decode, api, agent, ssh, provider, apple, lock, passphrase, doctor, completion, help,
                complete, man,
            ],
            validate: { parsed in
                guard let name = parsed.value("theme") else { return nil }
                let themes = ThemeCatalog(directories: themeDirectories(CLIContext.current.environment)).names()
                if themes.contains(name) { return nil }
                return "unknown theme '\(name)'; the themes are \(commaList(themes)) (a file NAME.json in $XDG_CONFIG_HOME/authdeck/themes adds one)"
            },
            run: run
        )
    }

    /// `authdeck help [COMMAND …]` (``ArgumentParser/helpOf(_:root:)`` prints the help).
    static let help = CommandSpec(
        name: ArgumentParser.helpCommand,
        abstract: "Show the help of a command (authdeck help provider add).",
        positionals: [PositionalSpec(name: "command", optional: true, help: "A command, and its subcommand (default: authdeck's own help).")]
    )

    static let account = PositionalSpec(name: "account", optional: true,
                                        help: "An alias, an unambiguous prefix of provider/username, or the account id (default:"
                                            + " $AUTHDECK_ACCOUNT, else git config's authdeck.account, else the directory's rule, else the"
                                            + " active account, else the only one; see 'authdeck which').")

    static let login = CommandSpec(
        name: "login",
        abstract: "Sign in to a provider, or to a resource by its URL, through the browser or the device flow.",
        discussion: "The browser is opened with $BROWSER, then xdg-open (with a display); with --no-browser, or when no browser opens, the URL"
            + " is printed to stderr and the address the browser ended on (or the code) can be pasted back on this terminal. With --device the"
            + " user code and verification URI are printed to stderr (and a QR code when stderr is a terminal). With --code an"
            + " authorization code handed over by an app or web page is exchanged instead (Sign in with Apple, which redirects only to"
            + " https URIs). Ctrl-C cancels and stores nothing. Given an http(s) URL that is not a provider's name, authdeck signs in to"
            + " that resource (an MCP server; a URL with user:password@ is refused before anything is sent): its protected resource"
            + " metadata (RFC 9728) names the authorization server, whose metadata is"
            + " checked (RFC 8414; S256 required); the client is the one configured for that server, a client id metadata document"
            + " (--client-metadata-url), or registered once per server (RFC 7591); the provider is named after the host, every token"
            + " request names the resource (RFC 8707) and the redirect must carry iss (RFC 9207). It asks before registering or opening a"
            + " browser (--yes for scripts; without a terminal, --yes is required).",
        positionals: [
            PositionalSpec(name: "provider", optional: true,
                           help: "A configured provider (default: the only one), or the URL of a protected resource."),
        ],
        options: [
            .flag("device", help: "Use the device authorization grant (RFC 8628) instead of the browser."),
            .repeated("scope", valueName: "scope", help: "A scope to request besides the provider's."),
            .value("audience", valueName: "audience", help: "The API audience (Auth0)."),
            .repeated("resource", valueName: "uri", help: "An RFC 8707 resource indicator."),
            .value("name", valueName: "alias", help: "An alias for the account."),
            .flag("noBrowser", help: "Print the URL instead of opening a browser; the redirect URL (or the code) can then be pasted back."),
            RedirectPortOption.spec,
            .value("acrValues", valueName: "acr", help: "Step-up (RFC 9470): acr_values to ask for, space-separated; the ID token's acr"
                + " must be one of them."),
            .value("maxAge", valueName: "seconds", help: "Step-up (RFC 9470): max_age; the ID token's auth_time must be at most this old."),
            .flag("yes", short: "y", help: "With a resource URL: sign in without asking first (scripts)."),
            .value("clientMetadataUrl", valueName: "url", help: "With a resource URL: a client id metadata document's https URL, the"
                + " client_id where the server takes them."),
            .value("authorizationServer", valueName: "issuer", help: "With a resource URL: the authorization server to use when its"
                + " metadata names several."),
        ] + CodeLoginOptions.specs,
        validate: { LoginOptions.validate($0) ?? CodeLoginOptions.validate($0) },
        run: {
            CodeLoginOptions.selected($0)
                ? try await codeLoginRun(CodeLoginOptions($0), .current)
                : try await loginRun(LoginOptions($0), .current)
        }
    )

    static let logout = CommandSpec(
        name: "logout",
        abstract: "Revoke an account's tokens, end its provider session and delete its local secrets.",
        positionals: [account],
        options: [
            .flag("localOnly", help: "Only delete the local secrets (no revocation, no end session)."),
            .flag("noEndSession", help: "Do not open the provider's logout page."),
            .flag("revokeGrant", help: "Revoke the whole authorization where the provider revokes it apart from the token (GitHub: DELETE"
                + " /applications/{client_id}/grant, the refresh token with it)."),
        ],
        run: { try await logoutRun(LogoutOptions($0), .current) }
    )

    static let status = CommandSpec(
        name: "status",
        abstract: "Show every account with its status, expiry times, scopes and storage.",
        discussion: "Exits 0 when every account is fine, 3 when one needs sign-in, 4 when the store is locked, 5 when a file is damaged"
            + " (run 'authdeck doctor'), 1 when one needs attention otherwise.",
        options: [json, .flag("changes", help: "Also show what each account's last refresh changed: scopes granted or dropped, claims,"
                     + " expiries, whether the refresh token was rotated (in --json always, as lastRefreshChanges).")],
        run: { try await statusRun(StatusOptions($0), .current) }
    )

    static let switchAccount = CommandSpec(
        name: "switch",
        abstract: "Make an account the active one.",
        discussion: "AUTHDECK_ACCOUNT overrides the active account for one shell.",
        positionals: [
            PositionalSpec(name: "account", optional: false, help: "An alias, an unambiguous prefix of provider/username, or the account id."),
        ],
        run: { try await switchRun($0.positional("account") ?? "", .current) }
    )

    static let token = CommandSpec(
        name: "token",
        abstract: "Print an access token, refreshed when it would expire soon.",
        discussion: "Only the token goes to stdout. The refresh runs under the account's cross-process lock. --exec-credential prints a"
            + " Kubernetes client.authentication.k8s.io/v1 ExecCredential (kubectl exec plugin); --header-json prints the header object"
            + " agent tools read (Claude Code's headersHelper).",
        positionals: [account],
        options: [
            .value("minValid", valueName: "seconds", help: "Refresh when the token expires within this many seconds (default 60)."),
            .value("resource", valueName: "uri", help: "The access token for this RFC 8707 resource or audience."),
            .value("organization", valueName: "id", help: "The organization token for this organization id (Logto; needs the"
                + " urn:logto:scope:organizations scope)."),
            .flag("idToken", help: "Print the stored ID token instead."),
            json,
            .flag("execCredential", help: "Print a Kubernetes ExecCredential (JSON)."),
            .flag("headerJson", help: "Print {\"Authorization\": \"Bearer …\"} (Claude Code's headersHelper); refused for a DPoP-bound token."),
            .value("exchangeFor", valueName: "audience|uri", help: "Exchange the account's token for one for this audience, or resource when"
                + " an absolute URI (RFC 8693 token exchange at the account's provider); kept and renewed like a resource's token."),
            .value("requestedTokenType", valueName: "type", help: "With --exchange-for: access_token, jwt, id-jag (exchanges the ID"
                + " token) or a urn: token type."),
        ],
        validate: { TokenAudience.validateOrganizationOption($0) ?? TokenOptions.validate($0) },
        run: { try await tokenRun(TokenOptions($0), .current) }
    )

    static let exec = CommandSpec(
        name: "exec",
        abstract: "Run a command with the account's access token in its environment, or in a file kept fresh while it runs.",
        discussion: "The token is in $AUTHDECK_TOKEN (or --env NAME). With --token-file the environment holds only $AUTHDECK_TOKEN_FILE"
            + " (NAME_FILE): a 0600 file under $XDG_RUNTIME_DIR/authdeck, rewritten before each expiry while the command runs and removed"
            + " when it ends. SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are passed on; the exit status is the command's (128+N"
            + " when signal N ended it), or authdeck's own (2, 3, 4) when the command never started, 127 when it is not found. No refresh"
            + " token, ID token or client secret enters the command's environment; $AUTHDECK_EXEC names the account.",
        positionals: [account],
        options: [
            .value("env", valueName: "name", help: "The variable that carries the token (default AUTHDECK_TOKEN; with --token-file,"
                + " NAME_FILE carries the path): a name programs read as a credential, ending in _TOKEN, _API_KEY, _APIKEY, _ACCESS_KEY,"
                + " PASSWORD, _PASSWD, _SECRET, _AUTH, _PAT or _PWD, or TF_TOKEN_<host>."),
            .flag("tokenFile", help: "Hand over a file kept fresh instead of the token itself (for commands that run longer than a token lives)."),
            .value("minValid", valueName: "seconds", help: "The token is valid at least this long when handed over, and the file is renewed"
                + " this long before expiry (default 60)."),
            .value("resource", valueName: "uri", help: "The access token for this RFC 8707 resource or audience."),
            .flag("killOnExpiry", help: "End the command (SIGTERM, then SIGKILL after 10 s) as soon as the grant is gone, or when its token"
                + " expires and no fresh one could be had."),
        ],
        trailing: PositionalSpec(name: "command", optional: false, help: "The command to run and its arguments, after '--'."),
        validate: { ExecOptions.validate($0) },
        run: { try await execRun(ExecOptions($0), .current) }
    )

    static let check = CommandSpec(
        name: "check",
        abstract: "Refresh accounts not refreshed for a while and report which need a person: for timers and cron.",
        discussion: "Each account whose last refresh (or sign-in) is older than the backstop (default 90 min) is refreshed, as token does."
            + " Each is reported as ok, needs_signin (the provider ended the grant), ending_soon (the refresh token ends within"
            + " --ending-soon, default 3 days), transient (network, timeout, 5xx, 429: told once it has lasted 3 runs) or error. A state is"
            + " told once, on stderr, to each hook and (--notify) as a desktop notification, and again only when it changes (kept in"
            + " $XDG_STATE_HOME/authdeck/check-state.json). Never opens a browser, never asks for a passphrase: the vault's key must be"
            + " cached, or AUTHDECK_PASSPHRASE_FILE given. Settings and hooks also come from $XDG_CONFIG_HOME/authdeck/check.json"
            + " (backstopSeconds, endingSoonSeconds, hooks, notify, providers); its hooks also run for the events of every other command"
            + " and of the accounts screen (refreshed, a change of state, signed_in, signed_out), and with \"notify\": true they show"
            + " notifications for the changes of state too. Exit 0 all ok (or ending soon), 3 an account needs sign-in, 1 lasting transient"
            + " trouble or an error, 4 the store is locked (never a passphrase or keyring prompt; told once as store_locked).",
        positionals: [account],
        options: [
            .flag("all", help: "Check every account (the default when no account is named)."),
            .value("backstop", valueName: "seconds", help: "Refresh an account not refreshed for this long (default 5400; 0: every account now)."),
            .value("endingSoon", valueName: "seconds", help: "Report a refresh token that ends within this long (default 259200, 3 days)."),
            .repeated("hook", valueName: "command", help: "Run this shell command for each event (needs_signin, ending_soon, transient,"
                + " error, recovered, refreshed; store_locked, with the account and provider empty) with AUTHDECK_EVENT, AUTHDECK_ACCOUNT,"
                + " AUTHDECK_PROVIDER and AUTHDECK_MESSAGE set; 10 s limit."),
            .flag("notify", help: "Also show a desktop notification for each change of state (not for refreshed), replacing the account's"
                + " previous one; nothing without a session bus."),
            json,
        ],
        validate: { CheckOptions.validate($0) },
        run: { try await checkRun(CheckOptions($0), .current) }
    )

    static let refresh = CommandSpec(
        name: "refresh",
        abstract: "Refresh an account's access tokens now: the default one and each resource's, as `r` in the accounts screen.",
        positionals: [account],
        options: [
            .value("resource", valueName: "uri", help: "Refresh only the access token for this RFC 8707 resource or audience."),
        ],
        run: { try await refreshRun($0.positional("account"), resource: $0.value("resource"), .current) }
    )

    static let userinfo = CommandSpec(
        name: "userinfo",
        abstract: "Fetch the account's claims from the provider's userinfo endpoint.",
        positionals: [account],
        options: [json],
        run: { try await userinfoRun($0.positional("account"), json: $0.flag("json"), .current) }
    )

    static let introspect = CommandSpec(
        name: "introspect",
        abstract: "Ask the provider about the account's access token (RFC 7662).",
        discussion: "Prints the claims as lines; --json prints the provider's JSON as received.",
        positionals: [account],
        options: [json],
        run: { try await introspectRun($0.positional("account"), json: $0.flag("json"), .current) }
    )

    static let decode = CommandSpec(
        name: "decode",
        abstract: "Decode a JWT and optionally validate it as a backend would.",
        discussion: "Shows the header and the claims with readable times; recognises encrypted (JWE) and opaque tokens. With --verify: the"
            + " signature against the issuer's JWKS, iss, aud, exp, iat, sub and, when given, the nonce (OIDC Core 3.1.3.7); exit 1 names"
            + " the rule that failed.",
        positionals: [PositionalSpec(name: "token", optional: true, help: "The token, or - (default) to read it from stdin.")],
        options: [
            json,
            .flag("verify", help: "Validate the signature and the claims."),
            .value("issuer", valueName: "url", help: "The expected issuer (its discovery document gives the JWKS)."),
            .value("audience", valueName: "client-id", help: "The client id the token must be issued to."),
            .value("nonce", valueName: "nonce", help: "The expected nonce claim."),
            .value("nonceSha256", valueName: "raw-nonce", help: "A raw nonce whose SHA-256 hex is the expected claim (Sign in with Apple)."),
        ],
        validate: DecodeOptions.validate,
        run: { try await decodeRun(DecodeOptions($0), .current) }
    )

    static let api = CommandSpec(
        name: "api",
        abstract: "Call a protected API with the account's access token (Bearer, or DPoP with a fresh proof).",
        discussion: "Prints the response body on stdout; exits 1 for HTTP 400 and above. Redirects are not followed, so the token stays"
            + " with the URL given. The URL chooses the account: a URL inside a resource signed in with 'login URL' gets that account's"
            + " token, a resource's token is sent to no other URL, and an account named that does not fit the URL is an error (exit 2).",
        positionals: [account, PositionalSpec(name: "url", optional: false, help: "The https URL to call (http only on loopback).")],
        options: [
            .value("method", short: "X", valueName: "method", help: "The HTTP method (default GET, or POST with --data)."),
            .repeated("header", short: "H", valueName: "name: value", help: "A request header."),
            .value("data", short: "d", valueName: "data", help: "The request body; @file reads a file, @- reads stdin."),
            .flag("include", short: "i", help: "Print the response status and headers on stderr."),
        ],
        validate: APIOptions.validate,
        run: { try await apiRun(APIOptions($0), .current) }
    )

    static let provider = CommandSpec(
        name: "provider",
        abstract: "Manage the configured identity providers.",
        subcommands: [providerAdd, providerSet, providerList, providerShow, providerRemove, providerPresets]
    )

    static let providerAdd = CommandSpec(
        name: "add",
        abstract: "Add a provider by issuer (discovery), by manual endpoints, or from a preset.",
        discussion: "Presets: \(commaList(BuiltInPresets.names)) and your own (see 'authdeck provider presets'). Plain http is accepted"
            + " only on loopback (the local provider). A client secret is read from stdin, never from the command line. The issuer's"
            + " discovery document is fetched first (10 s) and the provider is not added when that fails (exit 1, naming what failed);"
            + " --no-probe adds it offline.",
        positionals: [PositionalSpec(name: "name", optional: false, help: "The provider's name in authdeck (e.g. work).")],
        options: [
            .value("preset", valueName: "preset", help: "Start from a preset's endpoints and quirks."),
            .value("domain", valueName: "host", help: "The preset's domain (Auth0 tenant, Okta, Keycloak, Logto, GitLab host)."),
            .value("tenant", valueName: "tenant", help: "The preset's tenant (Entra tenant, Keycloak realm, Okta server)."),
            .value("displayName", valueName: "text", help: "The name shown in the TUI."),
            .value("issuer", valueName: "url", help: "The issuer for discovery."),
            .value("clientId", valueName: "id", help: "The registered client id."),
            .flag("clientSecretStdin", help: "Read the client secret from stdin into the credential store."),
            .value("clientAuthentication", valueName: "method", help: "none, client_secret_basic (default with a secret), client_secret_post"
                + " or private_key_jwt."),
            .repeated("scope", valueName: "scope", help: "A scope to request (replaces the default openid profile email offline_access)."),
            .value("audience", valueName: "audience", help: "The API audience (Auth0)."),
            .repeated("resource", valueName: "uri", help: "An RFC 8707 resource indicator."),
            .repeated("trustedAudience", valueName: "aud", help: "An audience ID tokens may name besides the client id (OIDC Core 3.1.3.7 step 3)."),
            .flag("multiTenantEntra", help: "A multi-tenant Microsoft Entra authority off Microsoft's hosts: {tenantid} in its issuer is"
                + " the token's tid."),
            .repeated("header", valueName: "name: value", help: "An extra request header."),
            .repeated("authorizationParameter", valueName: "name=value", help: "An extra authorization request parameter."),
            .value("authorizationEndpoint", valueName: "url", help: "The authorization endpoint (without discovery)."),
            .value("tokenEndpoint", valueName: "url", help: "The token endpoint (without discovery)."),
            .value("deviceAuthorizationEndpoint", valueName: "url", help: "The device authorization endpoint."),
            .value("revocationEndpoint", valueName: "url", help: "The revocation endpoint (RFC 7009)."),
            .value("introspectionEndpoint", valueName: "url", help: "The introspection endpoint (RFC 7662)."),
            .value("userinfoEndpoint", valueName: "url", help: "The userinfo endpoint."),
            .value("endSessionEndpoint", valueName: "url", help: "The end-session endpoint (RP-Initiated Logout)."),
            .value("jwksUri", valueName: "url", help: "The JWKS URI."),
            .value("caBundle", valueName: "path", help: "A PEM CA bundle to trust for this provider."),
        ] + MachineClientOptions.specs + [
            .flag("noProbe", help: "Add it without fetching its discovery document first (offline)."),
            .value("par", valueName: "auto|always|never", help: "Pushed authorization requests, RFC 9126 (default auto: when the provider"
                + " offers them)."),
            .value("dpop", valueName: "auto|always|never", help: "DPoP sender-constrained tokens, RFC 9449 (default auto: when the provider"
                + " offers them)."),
            RedirectPortOption.spec,
            .repeated("gitHost", valueName: "host", help: "A git host its access tokens open ('authdeck setup-git', 'authdeck git-credential')."),
            .value("gitUsername", valueName: "name", help: "The username git sends with the token (default: the account's login; GitHub"
                + " x-access-token, GitLab oauth2, Bitbucket x-token-auth)."),
            .repeated("registry", valueName: "host", help: "A container registry its access tokens open ('docker-credential-authdeck');"
                + " *.example.com for a family."),
            .value("registryUsername", valueName: "name", help: "The username sent to the registry (default: the account's login; Google"
                + " oauth2accesstoken)."),
            .value("appleKey", valueName: "file", help: "Sign in with Apple: the AuthKey_<KEYID>.p8 file; authdeck mints and renews the"
                + " client secret."),
            .value("appleTeamId", valueName: "team-id", help: "Sign in with Apple: the team id (with --apple-key)."),
            .value("appleKeyId", valueName: "key-id", help: "Sign in with Apple: the key id (with --apple-key)."),
        ],
        validate: ProviderAddOptions.validate,
        run: { try await providerAddRun(ProviderAddOptions($0), .current) }
    )

    static let providerList = CommandSpec(
        name: "list",
        abstract: "List the configured providers.",
        options: [json],
        run: { try await providerListRun(json: $0.flag("json"), .current) }
    )

    static let providerPresets = CommandSpec(
        name: "presets",
        abstract: "List the provider presets: built-in ones and your own ($XDG_CONFIG_HOME/authdeck/presets/*.json).",
        discussion: "Each line: name, display name, what --domain and --tenant mean, and where the preset comes from (built-in or the file's path).",
        options: [json],
        run: { try await providerPresetsRun(json: $0.flag("json"), .current) }
    )

    static let providerShow = CommandSpec(
        name: "show",
        abstract: "Show a provider's configuration.",
        positionals: [PositionalSpec(name: "name", optional: false, help: "The provider's name.")],
        options: [json],
        run: { try await providerShowRun($0.positional("name") ?? "", json: $0.flag("json"), .current) }
    )

    static let providerRemove = CommandSpec(
        name: "remove",
        abstract: "Remove a provider that has no signed-in accounts.",
        positionals: [PositionalSpec(name: "name", optional: false, help: "The provider's name.")],
        run: { try await providerRemoveRun($0.positional("name") ?? "", .current) }
    )

    /// Hidden: the names a completion script offers (see ``Completion``).
    static let complete = CommandSpec(
        name: "__complete",
        abstract: "Print names for shell completion (accounts, providers, themes, shells).",
        positionals: [PositionalSpec(name: "kind", optional: false, help: "accounts, providers, themes or shells.")],
        hidden: true,
        run: { parsed in
            guard let source = parsed.positional("kind").flatMap(Completion.Source.init(rawValue:)) else { return ExitCode.usage }
            let environment = CLIContext.current.environment
            let names = Completion.names(source, files: .live(processEnvironment: environment), environment: environment)
            if !names.isEmpty { Output.out(names.joined(separator: "\n") + "\n") }
            return ExitCode.ok
        }
    )

    /// Hidden: writes the man pages (``ManPages``) into a directory, for `scripts/install` and
    /// `scripts/package`. The date line is `SOURCE_DATE_EPOCH`'s day when set (reproducible
    /// builds), else today.
    static let man = CommandSpec(
        name: "__man",
        abstract: "Write the man pages generated from the command table into a directory.",
        positionals: [PositionalSpec(name: "directory", optional: false, help: "Where to write authdeck.1, authdeck-COMMAND.1 … and authdeck.5.")],
        hidden: true,
        run: { parsed in
            let directory = parsed.positional("directory") ?? "."
            let epoch = CLIContext.current.environment["SOURCE_DATE_EPOCH"].flatMap(Double.init)
            let date = String(Times.rfc3339(epoch.map { Date(timeIntervalSince1970: $0) } ?? CLIContext.current.now()).prefix(10))
            let pages = ManPages.pages(root: Commands.root(run: { _ in 0 }), version: authdeckVersion, date: date)
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for page in pages {
                    try Data(page.text.utf8).write(to: URL(fileURLWithPath: directory + "/" + page.fileName))
                }
            } catch {
                throw CLIFailure("Cannot write the man pages into \(directory): \(error)")
            }
            Output.err("Wrote \(pages.count) man pages into \(directory).")
            return ExitCode.ok
        }
    )

    static let completion = CommandSpec(
        name: "completion",
        abstract: "Print a shell completion script.",
        positionals: [PositionalSpec(name: "shell", optional: false, help: "bash, zsh or fish.")],
        run: { parsed in
            guard let shell = parsed.positional("shell"), let script = Completion.script(for: shell, root: Commands.root(run: { _ in 0 })) else {
                Output.err("error: unknown shell '\(parsed.positional("shell") ?? "")'; expected bash, zsh or fish")
                return ExitCode.usage
            }
            Output.raw(Data(script.utf8))
            return ExitCode.ok
        }
    )
}

/// `a, b, c`: a plain loop, not the unspecialized generic `joined(separator:)`, whose associated
/// type lookups cost `token` 0.25 M instructions building `provider add`'s help at start-up.
func commaList(_ names: [String]) -> String {
    var text = ""
    for name in names {
        if !text.isEmpty { text += ", " }
        text += name
    }
    return text
}
