import FoundationEssentials

/// QR code text: two module rows per line with half blocks (▀ ▄ █), or `##` per dark module in ASCII.
public enum QRText {
    /// Lines for `matrix` (`true` = dark module) with `quietZone` light modules on every side.
    /// Polarity: glyph ink = dark module. The backend draws these cells with the `qr` role, which
    /// themes set to black on bright white (monochrome: reverse video, for dark terminals), so dark
    /// modules are dark whatever the terminal's own colours.
    public static func lines(_ matrix: [[Bool]], quietZone: Int, glyphs: GlyphSet) -> [String] {
        let n = matrix.count
        guard n > 0 else { return [] }
        let size = n + 2 * quietZone
        func dark(_ x: Int, _ y: Int) -> Bool {
            let mx = x - quietZone, my = y - quietZone
            guard my >= 0, my < n, mx >= 0, mx < matrix[my].count else { return false }
            return matrix[my][mx]
        }
        var out: [String] = []
        switch glyphs {
        case .unicode:
            var y = 0
            while y < size {
                var line = ""
                for x in 0..<size {
                    switch (dark(x, y), y + 1 < size && dark(x, y + 1)) {
                    case (true, true): line += "█"
                    case (true, false): line += "▀"
                    case (false, true): line += "▄"
                    case (false, false): line += " "
                    }
                }
                out.append(line)
                y += 2
            }
        case .ascii:
            for y in 0..<size { out.append((0..<size).map { dark($0, y) ? "##" : "  " }.joined()) }
        }
        return out
    }
}

