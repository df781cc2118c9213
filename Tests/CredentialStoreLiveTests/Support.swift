@testable import CredentialStoreLive
import CredentialStore
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A private (0700) temporary directory removed when the value goes away.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init(_ label: String = "authdeck-store") {
        let base = (NSTemporaryDirectory() as NSString).standardizingPath
        var template = Array("\(base)/\(label)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("mkdtemp failed")
        }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A key cache in process memory, so tests can unlock many vault copies without deriving.
final class MemoryKeyCache: VaultKeyCache {
    let entries = Mutex<[String: SecureKey]>([:])
    var name: String { "memory" }
    func get(_ id: String) -> SecureKey? { entries.withLock { $0[id] } }
    func put(_ id: String, key: SecureKey, ttl: Duration) { entries.withLock { $0[id] = key } }
    func remove(_ id: String) { _ = entries.withLock { $0.removeValue(forKey: id) } }
    var count: Int { entries.withLock { $0.count } }
}

/// A settable clock for the runtime-file key cache.
final class TestClock: Sendable {
    let now = Mutex(Date(timeIntervalSince1970: 1_900_000_000))
    func advance(by seconds: TimeInterval) { now.withLock { $0 += seconds } }
    var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
}

func mode(of path: String) -> mode_t {
    var st = stat()
    precondition(lstat(path, &st) == 0, "stat \(path)")
    return st.st_mode & 0o777
}

func readBytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path) ?? Data()) }

func writeBytes(_ bytes: [UInt8], _ path: String, mode: mode_t = 0o600) {
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
    precondition(fd >= 0)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fchmod(fd, mode)
    close(fd)
}

let alice = AccountKey(provider: "corp", account: "alice")
let bob = AccountKey(provider: "corp", account: "bob")
let testPassphrase = VaultPassphrase("correct horse battery staple")

func secrets(_ refresh: String, access: String = "at") -> AccountSecrets {
    AccountSecrets(
        defaultAccessToken: StoredAccessTokenEntry(token: StoredAccessToken(access), expiresAt: Date(timeIntervalSince1970: 1_900_000_000)),
        refreshToken: StoredRefreshToken(refresh)
    )
}

extension SecretStoreError {
    var caseName: String {
        switch self {
        case .notFound: "notFound"
        case .unavailable: "unavailable"
        case .timeout: "timeout"
        case .locked: "locked"
        case .corrupt: "corrupt"
        case .truncated: "truncated"
        case .wrongPassphrase: "wrongPassphrase"
        case .permissionDenied: "permissionDenied"
        case .passphraseUnavailable: "passphraseUnavailable"
        case .io: "io"
        case .invalidConfiguration: "invalidConfiguration"
        case .cancelled: "cancelled"
        }
    }
}

/// The error `body` throws, as a SecretStoreError (nil if it did not throw).
func storeError(_ body: () throws -> Void) -> SecretStoreError? {
    do {
        try body()
        return nil
    } catch let error as SecretStoreError {
        return error
    } catch {
        return .io(file: "?", operation: "unexpected error type", cause: .init("\(type(of: error))"))
    }
}
