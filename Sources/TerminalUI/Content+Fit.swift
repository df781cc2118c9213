// Dialog content cut to the terminal: what stays, and the line that says what did not fit.

extension DialogContent {
    /// The sign-in dialog in at most `maxLines` lines: the title, the selected provider, the flow and
    /// the fields always; the provider list scrolls in what is left; then the blank lines and the
    /// key line go (the footer has the keys too); what still does not fit ends in a "more" line.
    static func signIn(_ s: SignInDialog, width: Int, maxLines: Int) -> [Line] {
        let fields = 6 + (s.providers.isEmpty && !s.addFromPreset ? 1 : 0)
        for (blanks, keys) in [(true, true), (false, true), (false, false)] {
            let rows = maxLines - fields - (blanks ? 2 : 0) - (keys ? 1 : 0)
            let providers = s.providers.count + (s.addFromPreset ? 1 : 0)
            if rows >= min(3, providers) || !keys {
                var out = signIn(s, width: width, providerRows: max(1, rows))
                if !blanks { out.removeAll { $0.isEmpty } }
                if !keys { out.removeLast() }
                return fit(out, maxLines: maxLines)
            }
        }
        return []
    }

    /// `lines` cut to `maxLines`, the last line shown saying how many more there are.
    static func fit(_ lines: [Line], maxLines: Int) -> [Line] {
        guard lines.count > maxLines, maxLines > 0 else { return lines }
        let rest = lines.count - maxLines + 1
        return Array(lines.prefix(maxLines - 1)) + [[.text("↓ \(rest) more line\(rest == 1 ? "" : "s"): enlarge the terminal", .textDim)]]
    }
}
