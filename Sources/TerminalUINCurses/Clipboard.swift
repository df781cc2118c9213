import FoundationEssentials

/// OSC 52 clipboard writes (xterm "Manipulate Selection Data"): `ESC ] 52 ; c ; <base64> BEL`.
/// Terminals (and tmux with `set-clipboard on`) put the decoded text on the system clipboard.
public enum Clipboard {
    /// The escape sequence that copies `text` to the clipboard selection `c`. Base64 by Foundation.
    public static func osc52(_ text: String) -> String {
        "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}"
    }
}
