import AppCore
import CredentialStore
import FoundationEssentials
import QuickToken
import StrictJSON
import Synchronization
import TextSupport

// `authdeck doctor [--json] [--repair]`: options, the use case (``Doctor``), printing.

extension Commands {
    static let doctor = CommandSpec(
        name: "doctor",
        abstract: "Check every file authdeck keeps; with --repair, move damaged ones aside and drop orphaned secrets.",
        discussion: "Without --repair nothing is changed. --repair moves a damaged file aside (same directory,"
            + " <name>.damaged-<UTC time>, mode 0600), rebuilds account records from stored ID tokens when accounts.json was damaged,"
            + " resets a damaged active.json, drops damaged cache files, and deletes secrets that no account or configured provider owns."
            + " Exits 0 when everything is fine, 5 when a file is damaged, 1 when something else needs attention.",
        options: [
            json,
            .flag("repair", help: "Repair what can be repaired, reporting each step."),
        ],
        run: { try await doctorRun(json: $0.flag("json"), repair: $0.flag("repair"), .current) }
    )
}

func doctorRun(json: Bool, repair: Bool, _ context: CLIContext) async throws -> Int32 {
    let doctor = Doctor(context.app)
    // The vault's contents (its authentication tag) can be checked only once it is open: ask for
    // the passphrase where the commands would (a damaged vault reports its damage below).
    _ = context.result { () throws(AppError) in try LoadAccounts(context.app).unlock() }
    let steps = Locked<[RepairStep]>([])
    let before = repair ? nil : doctor.diagnose()
    let report = before ?? doctor.repair { step in
        steps.withLock { $0.append(step) }
        if !json { Output.err(doctorStepLine(step)) }
    }
    // Whether a plain `authdeck token` here is the launcher's to answer (the token itself is dropped).
    let quick = QuickAnswer.decide(arguments: [ProgramLayout.launcherName, "token"], variables: ThisProcess.environmentEntries(),
                                   directory: ThisProcess.currentDirectory(), now: ThisProcess.now())
    let handOverReason: String? = if case .handOver(let reason) = quick { reason } else { nil }
    if json {
        var object: [String: JSONValue] = [
            "quickToken": .object(["answeredByLauncher": .bool(handOverReason == nil), "reason": .text(handOverReason)]),
            "healthy": .bool(report.isHealthy),
            "files": .array(report.files.map { file -> JSONValue in
                .object(["kind": .string(file.kind.rawValue), "path": .string(file.path), "condition": .string(file.condition.label),
                         "detail": .text(file.condition.detail)])
            }),
            "accountsWithoutSecrets": report.accountsWithoutSecrets.map { .strings($0.map(\.rawValue)) } ?? .null,
            "orphanedSecrets": report.orphanedSecrets.map { .strings($0.map(doctorKeyName)) } ?? .null,
            "notes": .strings(report.notes),
        ]
        if repair {
            object["repair"] = .array(steps.withLock { $0 }.map { step -> JSONValue in
                let (outcome, detail): (String, String) = switch step.outcome {
                case .done(let text): ("done", text)
                case .skipped(let text): ("skipped", text)
                case .failed(let error): ("failed", error.description)
                }
                return .object([
                    "subject": .string(step.subject), "action": .string(step.action), "outcome": .string(outcome), "detail": .string(detail),
                ])
            })
        }
        Output.json(.object(object))
    } else {
        var lines: [String] = []
        let width = report.files.map { $0.condition.label.count }.max() ?? 0
        for file in report.files {
            let label = file.condition.label.padded(to: width)
            var line = "\(label)  \(file.path)\(file.condition.detail.map { ": \($0)" } ?? "")"
            if file.kind == .checkConfiguration, !file.condition.isUsable {
                line += " — your configuration: fix it or remove it ('authdeck doctor --repair' leaves it as it is)"
            }
            lines.append(line)
        }
        if let missing = report.accountsWithoutSecrets {
            lines.append(missing.isEmpty ? "accounts without secrets: none"
                         : "accounts without secrets (sign in again, or 'authdeck logout --local-only'): "
                             + missing.map(\.rawValue).joined(separator: ", "))
        }
        if let orphans = report.orphanedSecrets {
            lines.append(orphans.isEmpty ? "orphaned secrets: none"
                         : "orphaned secrets (no account owns them; 'authdeck doctor --repair' deletes them): "
                             + orphans.map(doctorKeyName).joined(separator: ", "))
        }
        lines += report.notes.map { "note: \($0)" }
        lines.append(handOverReason.map { "token here: the full program answers (\($0))" }
            ?? "token here: answered by the launcher alone (no full program started)")
        Output.out(lines.joined(separator: "\n") + "\n")
        if !report.damaged.isEmpty && !repair {
            Output.err("Damaged files were found; nothing was changed. Run 'authdeck doctor --repair' to move them aside"
                + " (their bytes are kept) and rebuild what can be rebuilt.")
        } else if report.isHealthy {
            Output.err(repair ? "Repaired; everything is fine now." : "Everything is fine.")
        }
    }
    if !report.damaged.isEmpty { return ExitCode.fileDamaged }
    return report.isHealthy ? ExitCode.ok : ExitCode.failure
}

func doctorKeyName(_ key: AccountKey) -> String { Doctor.name(key) }

func doctorStepLine(_ step: RepairStep) -> String {
    switch step.outcome {
    case .done(let text): "✓ \(step.action) \(step.subject): \(text)"
    case .skipped(let text): "- \(step.action) \(step.subject): skipped (\(text))"
    case .failed(let error): "✗ \(step.action) \(step.subject): \(error.description)"
    }
}

/// A value shared with a use case's step callback.
final class Locked<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<T>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
}
