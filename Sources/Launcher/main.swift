import Glibc
import QuickToken
import TextSupport

// `authdeck`: answers a plain `authdeck token` (and `status --json`, `prompt`) itself when it can (QuickAnswer), else becomes the
// full program (ProgramLayout). Nothing here prints but the token or why the full program
// could not be started.

/// Writes all of `line`; false when stdout refuses it (closed, full).
func writeOut(_ line: String) -> Bool {
    var bytes = Array(line.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        offset += n
    }
    return true
}

let arguments = CommandLine.arguments
// On a remote (AUTHDECK_AGENT_SOCK): a plain `token` is the agent's, and nothing is answered from
// local files: an agent that cannot be reached is the full program's to say.
let forwarded = AgentToken.forwarded(ThisProcess.environmentEntries())
if forwarded, fcntl(1, F_GETFD) != -1, let remote = AgentToken.answer(arguments: arguments, variables: ThisProcess.environmentEntries(),
                                                                               directory: ThisProcess.currentDirectory()) {
    if !remote.stderr.isEmpty { _ = Array(remote.stderr.utf8).withUnsafeBytes { write(2, $0.baseAddress, $0.count) } }
    exit(writeOut(remote.stdout) ? remote.exitCode : 1)
}
// `token` (QuickAnswer), `status --json` (QuickStatus) or `prompt` (PromptSegment): each says when it can answer.
let decide = arguments.count == 3 && arguments[1].utf8.elementsEqual("status".utf8) ? QuickStatus.decide
    : arguments.count >= 2 && arguments[1].utf8.elementsEqual("prompt".utf8) ? PromptSegment.decide : QuickAnswer.decide
if !forwarded, arguments.count <= 4, fcntl(1, F_GETFD) != -1,
   case .answer(let output, let exitCode) = decide(arguments, ThisProcess.environmentEntries(), ThisProcess.currentDirectory(), ThisProcess.now()) {
    // A closed stdout (EPIPE) fails the write before any byte is out: the full program then says
    // so, with the SIGPIPE disposition the launcher inherited put back.
    var ignore = sigaction(), inherited = sigaction()
    ignore.__sigaction_handler.sa_handler = SIG_IGN
    sigaction(SIGPIPE, &ignore, &inherited)
    if writeOut(output) { exit(exitCode) }
    sigaction(SIGPIPE, &inherited, nil)
}
// Only from the launcher's real path (never a path relative to the current directory).
let launcher = ThisProcess.runningExecutable() ?? ""
var argv = arguments.map { strdup($0) } + [nil]
var failure: Int32 = ENOENT
for candidate in ProgramLayout.fullProgramCandidates(launcher: launcher) {
    execv(candidate, &argv)
    if errno != ENOENT && errno != ENOTDIR { failure = errno }
}
let reason = String(cString: strerror(failure))
let candidates = ProgramLayout.fullProgramCandidates(launcher: launcher)
let places = candidates.isEmpty ? "its own path is unknown: /proc/self/exe cannot be read" : candidates.joined(separator: " or ")
// The paths are the install's own, but a directory name could hold control characters: made visible.
let message = Array(("authdeck: cannot start the full program (\(Sanitizer.visible(places))): \(reason);"
    + " reinstall authdeck (the package, or scripts/install)\n").utf8)
_ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
exit(1)
