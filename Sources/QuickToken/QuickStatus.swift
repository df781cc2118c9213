import CJansson
import CSodium
import TextSupport
#if canImport(Glibc)
import Glibc
#endif

/// `authdeck status --json` answered by the launcher: the full program's last answer, kept in
/// ``file(_:)`` while nothing it was made from has changed and no account's status can have
/// changed since, with the clock-dependent members (`generatedAt`, each `secondsLeft`) worked out
/// again for now. The full program computes everything (every status rule lives there); the
/// launcher only checks that the answer still holds and fills in the time.
///
/// The file (written by the full program after a `status --json` that said nothing on stderr,
/// when ``QuickAnswer`` finds the call plain and the vault holds the secrets; marked like every
/// file authdeck writes, ``WrittenMark``), one JSON object:
/// - `inputs`: `[{"path": P, "mark": M}]`, every file the answer was made from (``inputs(_:)``)
///   with the hex of its ``WrittenMark``, or `""` when it was absent;
/// - `storeNamed`: the value of `AUTHDECK_STORE` the answer was made with, `null` when unset
///   (it is said in the answer: "AUTHDECK_STORE=vault" or "recorded in store.json");
/// - `since`: seconds since 1970 when the answer was made (a clock set back before it hands over);
/// - `until`: seconds since 1970 before which no account's status changes (the first instant a
///   token's expiry, or its "expiring soon" threshold, is reached), or `null` for never;
/// - `exitCode`: the full program's exit status;
/// - `timers`: `[{"path": [members and indexes], "expiresAt": seconds}]`, the objects of the
///   document whose `secondsLeft` counts down to `expiresAt` (``secondsLeft(_:now:)``);
/// - `document`: the answer, with `generatedAt` and the timers' `secondsLeft` as they were.
public enum QuickStatus {
    /// `$XDG_CACHE_HOME/authdeck/status.json`.
    public static func file(_ paths: XDGPaths) -> String { "\(paths.cacheDirectory)/status.json" }

    /// The files a status is made from: the providers, the store choice, the directory rules, the
    /// accounts, the active account and the vault (whose check is part of the answer).
    public static func inputs(_ paths: XDGPaths) -> [String] {
        ["\(paths.configDirectory)/providers.json", "\(paths.configDirectory)/store.json", "\(paths.configDirectory)/bindings.json",
         "\(paths.stateDirectory)/accounts.json", "\(paths.stateDirectory)/active.json", paths.vaultFile]
    }

    /// What the file at `path` is now: the hex of its mark when it is as authdeck wrote it, then
    /// its inode and change time (`MARK:INODE:SECONDS.NANOSECONDS`: every atomic write makes a new
    /// file, so a file written twice back to the same bytes is not the same), "" when it is
    /// absent; nil when it is neither (hand-edited, unreadable, unsafe: nothing can be kept).
    public static func fingerprint(_ path: String) -> String? {
        var before = stat(), after = stat()
        guard lstat(path, &before) == 0 else { return errno == ENOENT ? "" : nil }
        guard let bytes = WrittenMark.readUnchanged(path, limit: 64 << 20), lstat(path, &after) == 0,
              before.st_ino == after.st_ino, before.st_ctim.tv_sec == after.st_ctim.tv_sec, before.st_ctim.tv_nsec == after.st_ctim.tv_nsec
        else { return nil }
        let mark = bytes.withUnsafeBytes { WrittenMark.mark($0) }.map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
        }.joined()
        return "\(mark):\(after.st_ino):\(after.st_ctim.tv_sec).\(after.st_ctim.tv_nsec)"
    }

    /// Whole seconds from `now` to `expiresAt`, rounded down, within ±``farSeconds`` (status's `secondsLeft`).
    public static func secondsLeft(_ expiresAt: Double, now: Double) -> Int {
        Int(min(max(expiresAt - now, -farSeconds), farSeconds).rounded(.down))
    }

    /// The bound of ``secondsLeft(_:now:)`` (AppCore's `TimeText.farSeconds`): a claim such as
    /// `exp: 1e300` must not trap the conversion.
    public static let farSeconds = 1e15

    /// The launcher's answer to `authdeck status --json`, or why the full program answers.
    public static func decide(arguments: [String], variables: [String], directory: String?, now: Double) -> QuickAnswer.Decision {
        guard arguments.count == 3, arguments[1].utf8.elementsEqual("status".utf8), arguments[2].utf8.elementsEqual("--json".utf8),
              let name = arguments.first.map(PathText.lastComponent), name.utf8.elementsEqual(ProgramLayout.launcherName.utf8),
              let directory else { return .handOver(reason: "only 'authdeck status --json' is answered") }
        switch kept(variables: variables, directory: directory, now: now) {
        case .failure(let why): return .handOver(reason: why.reason)
        case .success(let (kept, answerCode)):
            guard let document = json_object_get(kept.root, "document"),
                  let dumped = json_dumps(document, authdeck_json_encode_flags(1, 17)) else {
                return .handOver(reason: "the kept status could not be written")
            }
            defer { free(dumped) }
            return .answer(output: String(cString: dumped) + "\n", exitCode: answerCode)
        }
    }

    /// Why the kept status is not the answer (words for `authdeck doctor`).
    struct HandOver: Error { var reason: String }

    /// The kept status file as parsed (its `document` member with the time filled in for `now`)
    /// and the full program's exit status, when it holds for a call with `variables` in
    /// `directory`: ``decide(arguments:variables:directory:now:)`` and ``PromptSegment`` answer from it.
    static func kept(variables: [String], directory: String, now: Double) -> Result<(Document, Int32), HandOver> {
        func handOver(_ reason: String) -> Result<(Document, Int32), HandOver> { .failure(HandOver(reason: reason)) }
        var reason = ""
        guard let plain = QuickAnswer.plain(variables: variables, directory: directory, reason: &reason) else { return handOver(reason) }
        guard plain.store == .vault else { return handOver("the Secret Service's state (locked or not) is its own to say") }
        guard let bytes = WrittenMark.readUnchanged(file(plain.paths), safety: FileSafety.privateProblem),
              let kept = Document(parsingIntegers: bytes) else {
            return handOver("no status is kept (the full program's last status said something, or was not plain)")
        }
        guard let inputs = json_object_get(kept.root, "inputs"), authdeck_json_typeof(inputs) == JSON_ARRAY,
              let answerCode = json_object_get(kept.root, "exitCode"), authdeck_json_typeof(answerCode) == JSON_INTEGER,
              let timers = json_object_get(kept.root, "timers"), authdeck_json_typeof(timers) == JSON_ARRAY,
              let document = json_object_get(kept.root, "document"), authdeck_json_typeof(document) == JSON_OBJECT,
              let until = json_object_get(kept.root, "until") else { return handOver("the kept status is not in this format") }
        // The store named as it was (the answer says where the choice came from).
        guard let named = json_object_get(kept.root, "storeNamed"),
              authdeck_json_typeof(named) == JSON_NULL || authdeck_json_typeof(named) == JSON_STRING else {
            return handOver("the kept status is not in this format")
        }
        let namedThen = Document.string(kept.root, "storeNamed"), namedNow = plain.environment["AUTHDECK_STORE"]
        let sameStoreNamed = switch (namedThen, namedNow) {
        case (nil, nil): true
        case (let then?, let now?): then.utf8.elementsEqual(now.utf8)
        default: false
        }
        guard sameStoreNamed else { return handOver("AUTHDECK_STORE is not as when the status was kept") }
        // Every input as it was, at the paths this call reads.
        let expected = Self.inputs(plain.paths)
        guard json_array_size(inputs) == expected.count else { return handOver("the kept status was made from other files") }
        for (index, path) in expected.enumerated() {
            let input = json_array_get(inputs, index)
            guard Document.string(input, "path").map({ $0.utf8.elementsEqual(path.utf8) }) == true, let mark = Document.string(input, "mark"),
                  let now = fingerprint(path), now.utf8.elementsEqual(mark.utf8) else {
                return handOver("a file the kept status was made from has changed since")
            }
        }
        guard let since = json_object_get(kept.root, "since"),
              authdeck_json_typeof(since) == JSON_INTEGER || authdeck_json_typeof(since) == JSON_REAL,
              now >= json_number_value(since) else {
            return handOver("the clock is earlier than when the status was kept (set back)")
        }
        if authdeck_json_typeof(until) != JSON_NULL {
            guard authdeck_json_typeof(until) == JSON_INTEGER || authdeck_json_typeof(until) == JSON_REAL, now < json_number_value(until) else {
                return handOver("an account's status may have changed since the kept status (a token expired or is expiring soon)")
            }
        }
        // The vault still opens without a prompt (its key cached), as when the status was kept.
        guard StoredVault.opensWithCachedKey(vault: plain.paths.vaultFile) else {
            return handOver("the vault's key is not cached any more (the full program says it is locked)")
        }
        guard let generatedAt = UTCTimeText.wholeSeconds(now) else { return handOver("the clock is outside 1900–9999") }
        json_object_set_new(document, "generatedAt", json_string(generatedAt))
        for index in 0..<json_array_size(timers) {
            let timer = json_array_get(timers, index)
            guard let path = json_object_get(timer, "path"), let expiresAt = json_object_get(timer, "expiresAt"),
                  authdeck_json_typeof(expiresAt) == JSON_INTEGER || authdeck_json_typeof(expiresAt) == JSON_REAL,
                  let target = member(document, path), authdeck_json_typeof(target) == JSON_OBJECT else {
                return handOver("the kept status is not in this format")
            }
            json_object_set_new(target, "secondsLeft", json_integer(json_int_t(secondsLeft(json_number_value(expiresAt), now: now))))
        }
        return .success((kept, Int32(truncatingIfNeeded: json_integer_value(answerCode))))
    }

    /// The value at `path` (a list of member names and indexes) below `root`.
    static func member(_ root: UnsafeMutablePointer<json_t>, _ path: UnsafeMutablePointer<json_t>) -> UnsafeMutablePointer<json_t>? {
        guard authdeck_json_typeof(path) == JSON_ARRAY else { return nil }
        var current: UnsafeMutablePointer<json_t>? = root
        for index in 0..<json_array_size(path) {
            guard let step = json_array_get(path, index), let here = current else { return nil }
            switch authdeck_json_typeof(step) {
            case JSON_STRING: current = json_object_get(here, json_string_value(step))
            case JSON_INTEGER:
                guard json_integer_value(step) >= 0 else { return nil }
                current = json_array_get(here, Int(json_integer_value(step)))
            default: return nil
            }
        }
        return current
    }
}
