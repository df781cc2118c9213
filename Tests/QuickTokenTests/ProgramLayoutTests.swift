import QuickToken
import Testing

@Suite("The launcher and the full program find each other")
struct ProgramLayoutTests {
    @Test("Installed: PREFIX/bin/authdeck runs PREFIX/libexec/authdeck/authdeck-full, and back")
    func installedLayout() {
        #expect(ProgramLayout.fullProgramCandidates(launcher: "/usr/bin/authdeck")
            == ["/usr/libexec/authdeck/authdeck-full", "/usr/bin/authdeck-full"])
        #expect(ProgramLayout.launcher(fullProgram: "/usr/libexec/authdeck/authdeck-full") == "/usr/bin/authdeck")
        #expect(ProgramLayout.launcher(fullProgram: "/home/me/.local/libexec/authdeck/authdeck-full") == "/home/me/.local/bin/authdeck")
    }

    @Test("Built: both in the build directory")
    func builtLayout() {
        #expect(ProgramLayout.fullProgramCandidates(launcher: "/w/.build/release/authdeck").last == "/w/.build/release/authdeck-full")
        #expect(ProgramLayout.launcher(fullProgram: "/w/.build/release/authdeck-full") == "/w/.build/release/authdeck")
    }

    @Test("Never a path relative to the current directory: a launcher at / looks in /libexec and /, an unknown path nowhere")
    func onlyAbsolutePaths() {
        #expect(ProgramLayout.fullProgramCandidates(launcher: "/authdeck") == ["/libexec/authdeck/authdeck-full", "/authdeck-full"])
        #expect(ProgramLayout.fullProgramCandidates(launcher: "authdeck").isEmpty)
        #expect(ProgramLayout.fullProgramCandidates(launcher: "").isEmpty)
        #expect(ProgramLayout.launcher(fullProgram: "authdeck-full") == nil)
        #expect(ProgramLayout.launcher(fullProgram: "/authdeck-full") == "/authdeck")
    }

    @Test("A full program under another name is its own helper")
    func otherNames() {
        #expect(ProgramLayout.launcher(fullProgram: "/opt/x/authdeck") == nil)
        #expect(ProgramLayout.launcher(fullProgram: "/opt/x/authdeck-full2") == nil)
    }
}

@Suite("A stored token is handed out while it has more than the asked time left")
struct TokenFreshnessTests {
    @Test("More than the validity left: fresh; exactly it or less: not; no expiry: fresh")
    func boundaries() {
        #expect(TokenFreshness.isFresh(expiresAt: 1_000_061, now: 1_000_000, validity: 60))
        #expect(!TokenFreshness.isFresh(expiresAt: 1_000_060, now: 1_000_000, validity: 60))
        #expect(!TokenFreshness.isFresh(expiresAt: 999_000, now: 1_000_000, validity: 0))
        #expect(TokenFreshness.isFresh(expiresAt: nil, now: 1_000_000, validity: 60))
        #expect(TokenFreshness.defaultMinimumValidity == 60)
    }
}
