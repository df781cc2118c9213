// storm-driver: a test-only executable for the refresh-storm benchmark. It runs the
// TUI's Store/AppReducer with the live environment (AppCoreLive) on a throw-away authdeck home,
// as `authdeck` with no subcommand does, minus ncurses: its frame loop maps the state to a
// ScreenModel and renders it (TerminalUI) on the main thread every 20 ms.
//
//   storm-driver --grants FILE --provider NAME [--timeout SECONDS]
//
// FILE: the JSON lines of Tests/IdentityProvider/mint-grants (every access token expiring at one
// second). Each grant is stored through SignIn.adoptGrant (its ID token verified) with the same
// receivedAt (the minting time, `issued_at`), so that the scheduler finds every account due at the
// same instant (ExpiryPolicy: expiresAt - min(60 s, lifetime/2)). Then the store starts, the clock
// ticks each second (a reload every 5 s, as RunTUI), and the driver waits until every account's
// refresh has finished. Prints one JSON line: accounts, refreshed, failed (+ the first errors'
// titles), the maximum of refreshes in flight (counted around the use case), the bound, the
// seconds from the first refresh start to the last finish, per-refresh seconds, the longest gap
// between frames, frames drawn. Tokens are never printed. Exit 0 when it ran (whatever the
// figures), 1 when it could not (bad arguments, a grant not adopted, the timeout).
@_spi(Benchmark) import AppCore
import AppCoreLive
import AuthEngine
import Foundation
import Synchronization
import TerminalUI

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("storm-driver: \(message)\n".utf8))
    exit(1)
}

var arguments = [String: String]()
var iterator = CommandLine.arguments.dropFirst().makeIterator()
while let name = iterator.next() {
    guard ["--grants", "--provider", "--timeout"].contains(name), let value = iterator.next() else {
        fail("usage: storm-driver --grants FILE --provider NAME [--timeout SECONDS]")
    }
    arguments[name] = value
}
guard let grantsPath = arguments["--grants"], let providerName = arguments["--provider"] else {
    fail("usage: storm-driver --grants FILE --provider NAME [--timeout SECONDS]")
}
let timeoutSeconds = Double(arguments["--timeout"] ?? "600") ?? 600

let processEnvironment = ProcessInfo.processInfo.environment
let live = AppEnvironment.live(processEnvironment: processEnvironment)
do throws(AppError) { try LoadAccounts(live).unlock() } catch { fail("cannot open the credential store: \(error)") }

// 1. Adopt the minted grants, all received at the minting instant.
guard let text = try? String(contentsOfFile: grantsPath, encoding: .utf8) else { fail("cannot read \(grantsPath)") }
let lines = text.split(separator: "\n").filter { !$0.isEmpty }
let importStart = ContinuousClock.now
var adopted = 0
for (number, line) in lines.enumerated() {
    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
          let response = object["token_response"] as? [String: Any], let issuedAt = object["issued_at"] as? Double,
          let body = try? JSONSerialization.data(withJSONObject: response) else {
        fail("line \(number + 1) of \(grantsPath) is not a mint-grants line")
    }
    var env = live
    env.now = { Date(timeIntervalSince1970: issuedAt) }
    do throws(AppError) {
        _ = try await SignIn(env).adoptGrant(ProviderID(providerName), tokenResponse: body)
        adopted += 1
    } catch {
        fail("grant \(number + 1) not adopted: \(error)")
    }
}
let importSeconds = (ContinuousClock.now - importStart).seconds

// 2. The refresh use case, counted: in flight now, the maximum, each one's duration, outcomes.
struct Counts {
    var inFlight = 0, maxInFlight = 0, refreshed = 0, failed = 0
    var durations: [Double] = []
    var errors: [String] = []
    var firstStart: ContinuousClock.Instant?
    var lastFinish: ContinuousClock.Instant?
}
let counts = Mutex(Counts())
var useCases = UseCaseClient(environment: live)
let realRefresh = useCases.refresh
useCases.refresh = { id, force, notice in
    let start = ContinuousClock.now
    counts.withLock {
        $0.inFlight += 1
        $0.maxInFlight = max($0.maxInFlight, $0.inFlight)
        if $0.firstStart == nil { $0.firstStart = start }
    }
    let result = await realRefresh(id, force, notice)
    let end = ContinuousClock.now
    counts.withLock {
        $0.inFlight -= 1
        $0.durations.append((end - start).seconds)
        $0.lastFinish = end
        switch result {
        case .success: $0.refreshed += 1
        case .failure(let error):
            $0.failed += 1
            if $0.errors.count < 5 { $0.errors.append(error.title) }
        }
    }
    return result
}

// 3. The store and its clock, as RunTUI sets them up.
let store = Store(initialState: AppState(now: Date()), reduce: AppReducer(dependencies: AppDependencies(useCases: useCases)).reduce)
store.send(.start)
let clock = Task.detached {
    var second = 0
    while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(1))
        second += 1
        store.send(.tick(Date()))
        if second % 5 == 0 { store.send(.reload) }
    }
}

// 4. The frame loop on the main thread: map and render every 20 ms, recording the gaps.
let frameInterval = 0.020
let theme = BuiltInThemes.defaultTheme
let size = Size(width: 120, height: 40)
var frames = 0, longestGap = 0.0, maxQueued = 0
var previousFrame: ContinuousClock.Instant?
let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
while ContinuousClock.now < deadline {
    let frameStart = ContinuousClock.now
    let storming = counts.withLock { $0.firstStart != nil }
    if let previousFrame, storming { longestGap = max(longestGap, (frameStart - previousFrame).seconds) }
    previousFrame = frameStart
    let state = store.state
    maxQueued = max(maxQueued, state.refreshQueue.count)
    let now = Date()
    let rows = state.accounts.map { account in
        AccountRow(id: account.id, displayName: account.record.displayName, provider: account.record.providerID.rawValue,
                   status: state.status(of: account), accessExpiresAt: account.record.accessTokenExpiresAt, accessLifetime: nil)
    }
    _ = Renderer.render(ScreenModel(now: now, header: HeaderModel(storeBackend: "encrypted file"), accounts: rows), size: size, theme: theme)
    if storming { frames += 1 }
    let done = counts.withLock { $0.refreshed + $0.failed >= adopted && $0.inFlight == 0 }
    if done, state.refreshQueue.isEmpty { break }
    let spent = (ContinuousClock.now - frameStart).seconds
    // A blocking wait, like the TUI's get_wch timeout (the main thread is not the cooperative pool).
    if spent < frameInterval { usleep(UInt32((frameInterval - spent) * 1e6)) }
}
clock.cancel()
let final = counts.withLock { $0 }
let sorted = final.durations.sorted()
func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))] }
let total = final.firstStart.flatMap { start in final.lastFinish.map { ($0 - start).seconds } } ?? 0
let report: [String: Any] = [
    "accounts": adopted, "refreshed": final.refreshed, "failed": final.failed, "errors": final.errors,
    "max_in_flight": final.maxInFlight, "bound": RefreshQueue.maxInFlight, "max_queued": maxQueued,
    "import_seconds": importSeconds, "storm_seconds": total,
    "refresh_seconds": ["min": sorted.first ?? 0, "median": percentile(0.5), "p90": percentile(0.9), "max": sorted.last ?? 0],
    "longest_frame_gap_ms": longestGap * 1000, "frame_interval_ms": frameInterval * 1000, "frames": frames,
    "timed_out": final.refreshed + final.failed < adopted,
]
guard let json = try? JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]) else { fail("cannot write the report") }
print(String(decoding: json, as: UTF8.self))
exit(final.refreshed + final.failed < adopted ? 1 : 0)

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
