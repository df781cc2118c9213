import FoundationEssentials
import TextSupport

/// The text forms of provider settings that both front ends take (`provider add`/`provider set`'s
/// options and the accounts screen's "Edit provider" form): one parser and one rule each.
public enum ProviderSettingText {
    /// A space-separated list (RFC 6749 §3.3's scope delimiter, also used for resources, git hosts
    /// and registries): its items in order, empty ones (repeated spaces) dropped.
    public static func list(_ text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }

    /// Whether `text` is a host as the git and docker helpers match it (`github.com`,
    /// `gitlab.example.com:8443`, `*.gcr.io`): not empty, no `/`, no space or control character.
    public static func isHost(_ text: String) -> Bool {
        !text.isEmpty && !text.contains("/") && !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }

    /// A redirect port as typed: ASCII digits only, 1 to 65535; nil otherwise.
    public static func redirectPort(_ text: String) -> UInt16? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let port = UInt16(text), port > 0 else { return nil }
        return port
    }

    /// What is wrong with `text` as the redirect port a provider that compares redirect URIs
    /// exactly has registered (RFC 6749 §3.1.2.3), said with `named` (how the front end names the
    /// setting: `--redirect-port`, `Redirect port`); nil when it is one.
    public static func redirectPortProblem(_ text: String, named: String) -> String? {
        if redirectPort(text) == 80 {
            // http://127.0.0.1:80/ is http://127.0.0.1/: browsers drop the default port from the address and the Host.
            return "\(named) 80 cannot be told apart from no port (http://127.0.0.1/callback); register another port"
        }
        guard redirectPort(text) == nil else { return nil }
        return "\(named) must be a port from 1 to 65535 (the one registered in http://127.0.0.1:PORT/callback), got '\(Sanitizer.visible(text))'"
    }
}
