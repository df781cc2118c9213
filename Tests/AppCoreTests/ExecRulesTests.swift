import AppCore
import FoundationEssentials
import Testing

/// ``ExecRules``: the child's environment and the token file's renewal times of `authdeck exec`.
@Suite("exec rules: the child's environment, renewal times, retries")
struct ExecRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("The token replaces an inherited value; with a file only NAME_FILE is set; AUTHDECK_EXEC names the account")
    func childEnvironment() {
        let parent = ["PATH": "/usr/bin", "AUTHDECK_TOKEN": "stale", "AUTHDECK_TOKEN_FILE": "/old", "AUTHDECK_EXEC": "outer/bob"]
        let plain = ExecRules.childEnvironment(parent: parent, variable: "AUTHDECK_TOKEN", token: "fresh", tokenFile: nil, account: "local/alice")
        #expect(plain == ["PATH": "/usr/bin", "AUTHDECK_TOKEN": "fresh", "AUTHDECK_EXEC": "local/alice"])
        let file = ExecRules.childEnvironment(parent: parent, variable: "AUTHDECK_TOKEN", token: "fresh", tokenFile: "/run/t", account: "local/alice")
        #expect(file == ["PATH": "/usr/bin", "AUTHDECK_TOKEN_FILE": "/run/t", "AUTHDECK_EXEC": "local/alice"])
        let named = ExecRules.childEnvironment(parent: [:], variable: "GH_TOKEN", token: "fresh", tokenFile: nil, account: "gh/octo")
        #expect(named == ["GH_TOKEN": "fresh", "AUTHDECK_EXEC": "gh/octo"])
    }

    @Test("AUTHDECK_TOKEN_EXPIRATION (RFC 3339) beside a token in the environment, whatever --env names; never an inherited one; unset with a token file or no expiry")
    func expirationBesideTheToken() {
        let parent = ["AUTHDECK_TOKEN_EXPIRATION": "1999-01-01T00:00:00Z"]
        let at = "2027-01-15T08:00:00Z"
        #expect(ExecRules.childEnvironment(parent: parent, variable: "GH_TOKEN", token: "t", tokenFile: nil, expiration: at, account: "a/b")
            == ["GH_TOKEN": "t", "AUTHDECK_TOKEN_EXPIRATION": at, "AUTHDECK_EXEC": "a/b"])
        #expect(ExecRules.childEnvironment(parent: parent, variable: "AUTHDECK_TOKEN", token: "t", tokenFile: nil, expiration: nil, account: "a/b")
            == ["AUTHDECK_TOKEN": "t", "AUTHDECK_EXEC": "a/b"])
        #expect(ExecRules.childEnvironment(parent: parent, variable: "AUTHDECK_TOKEN", token: "t", tokenFile: "/run/t", expiration: at, account: "a/b")
            == ["AUTHDECK_TOKEN_FILE": "/run/t", "AUTHDECK_EXEC": "a/b"])
    }

    @Test("Variable names are POSIX portable names, not AUTHDECK_EXEC, and none the shell, ld.so or libc give a meaning", arguments: [
        ("AUTHDECK_TOKEN", true), ("GH_TOKEN", true), ("_x1_TOKEN", true), ("", false), ("1X", false), ("A-B", false),
        ("TOKÉN", false), ("A B", false), ("AUTHDECK_EXEC", false), ("PATH", false), ("LD_PRELOAD", false), ("HOME", false),
        ("IFS", false), ("LC_ALL", false), ("AUTHDECK_PASSPHRASE_FILE", false), ("XDG_RUNTIME_DIR", false), ("MY_TOKEN", true),
    ])
    func variableNames(_ name: String, _ valid: Bool) {
        #expect((ExecRules.variableNameProblem(name) == nil) == valid, "\(name)")
    }

    @Test("exec --env allows by rule, names programs read as a credential (…_TOKEN, …_API_KEY, …PASSWORD, …_SECRET, …_AUTH, TF_TOKEN_…)",
          arguments: ["GH_TOKEN", "GITHUB_TOKEN", "AUTHDECK_TOKEN", "CLOUDSDK_AUTH_ACCESS_TOKEN", "OPENAI_API_KEY", "DATADOG_APIKEY", "PGPASSWORD",
                      "REGISTRY_PASSWORD", "CLIENT_SECRET", "NPM_CONFIG__AUTH", "AWS_SECRET_ACCESS_KEY", "GITLAB_PAT", "MYSQL_PWD",
                      "TF_TOKEN_app_terraform_io", "EXAMPLE_MCP_TOKEN", "github_token", "TOKEN", "API_KEY"])
    func credentialNamesAllowed(_ name: String) {
        #expect(ExecRules.variableNameProblem(name) == nil, "\(ExecRules.variableNameProblem(name) ?? "")")
    }

    @Test("Names programs run, resolve or evaluate are refused, naming the rule (proxies, GIT_SSH_COMMAND, NODE_OPTIONS, PAGER…)",
          arguments: ["http_proxy", "HTTPS_PROXY", "ALL_PROXY", "no_proxy", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "PROMPT_COMMAND",
                      "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PERL5OPT", "RUBYOPT", "PAGER", "GIT_PAGER", "EDITOR", "VISUAL",
                      "BROWSER", "GOOGLE_APPLICATION_CREDENTIALS", "KUBECONFIG", "MYPATH", "LD_TOKEN", "BASH_FUNC_TOKEN", "CURL_CA_BUNDLE",
                      "GIT_CONFIG_PARAMETERS", "JAVA_TOOL_OPTIONS", "_x1"])
    func otherNamesRefused(_ name: String) {
        let problem = ExecRules.variableNameProblem(name)
        #expect(problem?.contains("_TOKEN") == true, "the message names the rule: \(problem ?? "accepted")")
    }

    @Test("Renewal: min-valid before expiry, at most half the time left, at least 1 s ahead, never without an expiry")
    func renewalTime() {
        let hour = now.addingTimeInterval(3600)
        #expect(ExecRules.renewalTime(expiresAt: hour, now: now, minimumValidity: 60) == hour.addingTimeInterval(-60))
        // A 6 s token with --min-valid 60: at half-life.
        #expect(ExecRules.renewalTime(expiresAt: now.addingTimeInterval(6), now: now, minimumValidity: 60) == now.addingTimeInterval(3))
        // Expired or about to: one second from now, never a busy loop.
        #expect(ExecRules.renewalTime(expiresAt: now.addingTimeInterval(-5), now: now, minimumValidity: 60) == now.addingTimeInterval(1))
        #expect(ExecRules.renewalTime(expiresAt: now.addingTimeInterval(1), now: now, minimumValidity: 0) == now.addingTimeInterval(1))
        #expect(ExecRules.renewalTime(expiresAt: nil, now: now, minimumValidity: 60) == nil)
    }

    @Test("Retries back off 2, 4, 8 … 60 s, and the last one comes before the expiry")
    func retries() {
        #expect((1...7).map { ExecRules.retryDelay(failures: $0, expiresAt: nil, now: now) } == [2, 4, 8, 16, 32, 60, 60])
        #expect(ExecRules.retryDelay(failures: 5, expiresAt: now.addingTimeInterval(10), now: now) == 9)
        #expect(ExecRules.retryDelay(failures: 5, expiresAt: now.addingTimeInterval(-10), now: now) == 32)
        #expect(ExecRules.retryDelay(failures: 1, expiresAt: now.addingTimeInterval(1.5), now: now) == 1)
    }
}
