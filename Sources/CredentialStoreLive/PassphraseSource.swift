import CredentialStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the vault passphrase comes from.
public enum PassphraseSource: Sendable {
    /// Prompt on the controlling terminal (`/dev/tty`) with echo off.
    case terminal(prompt: String)
    /// The first line of a file that must be private (mode 0600 or stricter, owned by the user):
    /// `AUTHDECK_PASSPHRASE_FILE`.
    case file(path: String)
    /// Everything readable from an inherited file descriptor up to EOF (first line):
    /// `AUTHDECK_PASSPHRASE_FD`.
    case fileDescriptor(Int32)
    /// A passphrase already in memory (tests, passphrase change).
    case value(VaultPassphrase)

    public static let fileVariable = "AUTHDECK_PASSPHRASE_FILE"
    public static let fileDescriptorVariable = "AUTHDECK_PASSPHRASE_FD"

    /// `AUTHDECK_PASSPHRASE_FILE`, else `AUTHDECK_PASSPHRASE_FD`, else the terminal.
    public static func fromEnvironment(_ environment: [String: String], prompt: String = "Vault passphrase: ") -> PassphraseSource {
        if let path = environment[fileVariable], !path.isEmpty { return .file(path: path) }
        if let fd = environment[fileDescriptorVariable].flatMap(Int32.init), fd >= 0 { return .fileDescriptor(fd) }
        return .terminal(prompt: prompt)
    }

    /// Reads the passphrase. With `confirm` (a new vault or a new passphrase), a terminal asks twice.
    /// - Throws: ``SecretStoreError/passphraseUnavailable(cause:)``; ``SecretStoreError/permissionDenied(file:cause:)``
    ///   for a passphrase file that others can read.
    public func read(confirm: Bool = false) throws(SecretStoreError) -> VaultPassphrase {
        let value: String
        switch self {
        case .value(let passphrase):
            value = passphrase.exposedValue
        case .file(let path):
            guard let data = try PrivateFiles.read(path, requirePrivate: true) else {
                throw .passphraseUnavailable(cause: .init("\(Self.fileVariable) names \(path), which does not exist"))
            }
            value = Self.firstLine(data)
        case .fileDescriptor(let fd):
            value = Self.firstLine(try PrivateFiles.readAll(fd: fd, path: "fd \(fd)"))
        case .terminal(let prompt):
            let first = try Self.promptWithoutEcho(prompt)
            if confirm {
                let second = try Self.promptWithoutEcho("Repeat: ")
                guard first == second else { throw .passphraseUnavailable(cause: .init("the passphrases differ")) }
            }
            value = first
        }
        guard !value.isEmpty else { throw .passphraseUnavailable(cause: .init("empty passphrase")) }
        return VaultPassphrase(value)
    }

    static func firstLine(_ data: Data) -> String {
        let text = String(decoding: data, as: UTF8.self)
        return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
    }

    static func promptWithoutEcho(_ prompt: String) throws(SecretStoreError) -> String {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            throw .passphraseUnavailable(
                cause: .init("no terminal to prompt on; set \(fileVariable) to a 0600 file", errno: errno))
        }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else {
            throw .passphraseUnavailable(cause: PrivateFiles.errnoCause("tcgetattr"))
        }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ICANON)
        // Echo goes off before the prompt appears, so nothing typed after the prompt is echoed.
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else {
            throw .passphraseUnavailable(cause: PrivateFiles.errnoCause("tcsetattr"))
        }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            _ = write(fd, "\n", 1)
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(fd, &byte, 1)
            if n < 0, errno == EINTR { continue }
            if n <= 0 || byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        defer { for i in bytes.indices { bytes[i] = 0 } }
        return String(decoding: bytes, as: UTF8.self)
    }
}
