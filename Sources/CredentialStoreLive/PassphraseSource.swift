import CredentialStore
import CTerminalSignals
import FoundationEssentials

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
    /// Nothing may ask (`AUTHDECK_NONINTERACTIVE=1`: `authdeck check` from a timer): reading
    /// fails with `reason`.
    case unavailable(reason: String)

    /// How many times a terminal prompt may be answered wrong before the vault stays locked.
    public static let terminalAttempts = 3

    /// True for the terminal prompt (a wrong answer may be corrected; a file's may not).
    public var isInteractive: Bool {
        if case .terminal = self { return true }
        return false
    }

    /// Shows `message` on the terminal the prompt uses (nothing for other sources).
    public func tell(_ message: String) {
        guard isInteractive else { return }
        let fd = open("/dev/tty", O_WRONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let line = message + "\n"
        _ = line.withCString { write(fd, $0, strlen($0)) }
    }

    public static let fileVariable = "AUTHDECK_PASSPHRASE_FILE"
    public static let fileDescriptorVariable = "AUTHDECK_PASSPHRASE_FD"
    /// `1`: never prompt (no terminal prompt for the vault passphrase).
    public static let nonInteractiveVariable = "AUTHDECK_NONINTERACTIVE"

    /// `AUTHDECK_PASSPHRASE_FILE`, else `AUTHDECK_PASSPHRASE_FD`, else the terminal (the prompt
    /// says that three tries are allowed).
    public static func fromEnvironment(_ environment: [String: String],
                                       prompt: String = "Vault passphrase (\(terminalAttempts) tries): ") -> PassphraseSource {
        if let path = environment[fileVariable], !path.isEmpty { return .file(path: path) }
        if let text = environment[fileDescriptorVariable], !text.isEmpty {
            guard let fd = Int32(text), fd >= 0 else {
                return .unavailable(reason: "\(fileDescriptorVariable) is not a file descriptor number (a number such as 3, of a descriptor"
                    + " this process inherits); give one, or a 0600 file in \(fileVariable)")
            }
            return .fileDescriptor(fd)
        }
        if environment[nonInteractiveVariable] == "1" {
            return .unavailable(reason: "the vault's key is not cached and nothing may ask for its passphrase here; unattended runs need"
                + " AUTHDECK_PASSPHRASE_FILE (a 0600 file) or the Secret Service (AUTHDECK_STORE=secret-service)")
        }
        return .terminal(prompt: prompt)
    }

    /// What the terminal says before it asks for the passphrase of a vault about to be created
    /// at `path`: what is made, where, and that nothing recovers a lost passphrase.
    public static func newVaultNotice(path: String) -> String {
        """
        authdeck keeps your tokens in an encrypted vault; creating it now at
          \(path)
        Choose its passphrase. It cannot be recovered: if it is lost, the vault cannot be opened and
        its accounts must sign in again (AUTHDECK_PASSPHRASE_FILE can give it to authdeck instead).
        """
    }

    /// Reads the passphrase. With `confirm` (a new vault or a new passphrase), a terminal asks
    /// twice. With `newVaultAt` (a vault created now), a terminal first says what is created
    /// where (``newVaultNotice(path:)``) and asks for a "New vault passphrase", without the
    /// unlock prompt's count of tries.
    /// - Throws: ``SecretStoreError/passphraseUnavailable(cause:)``; ``SecretStoreError/permissionDenied(file:cause:)``
    ///   for a passphrase file that others can read.
    /// - Parameter triesLeft: after a wrong try, how many are left: the terminal's prompt says that
    ///   number instead of the first prompt's count.
    public func read(confirm: Bool = false, newVaultAt newVault: String? = nil, triesLeft: Int? = nil) throws(SecretStoreError) -> VaultPassphrase {
        let value: String
        switch self {
        case .value(let passphrase):
            value = passphrase.exposedValue
        case .file(let path):
            value = Self.firstLine(try Self.readPassphraseFile(path))
        case .fileDescriptor(let fd):
            do {
                value = Self.firstLine(try PrivateFiles.readAll(fd: fd, path: "fd \(fd)"))
            } catch {
                throw .passphraseUnavailable(cause: .init("\(Self.fileDescriptorVariable)=\(fd) cannot be read: \(error)"))
            }
        case .terminal(let prompt):
            if let newVault { tell(Self.newVaultNotice(path: newVault)) }
            let again = triesLeft.map { "Vault passphrase (\($0) \($0 == 1 ? "try" : "tries") left): " }
            let first = try Self.promptWithoutEcho(newVault == nil ? again ?? prompt : "New vault passphrase: ")
            if confirm {
                let second = try Self.promptWithoutEcho(newVault == nil ? "Repeat: " : "Repeat the new passphrase: ")
                guard first == second else {
                    throw .passphraseUnavailable(cause: .init(newVault == nil
                        ? "the passphrases differ"
                        : "the two passphrases differ; no vault was created"))
                }
            }
            value = first
        case .unavailable(let reason):
            throw .passphraseUnavailable(cause: .init(reason))
        }
        guard !value.isEmpty else { throw .passphraseUnavailable(cause: .init("empty passphrase")) }
        return VaultPassphrase(value)
    }

    /// The passphrase file's bytes. Any refusal (missing, a symbolic link, a directory or other
    /// non-regular file, readable or writable by others, not owned by the user, unreadable) is
    /// ``SecretStoreError/passphraseUnavailable(cause:)``: the store stays locked (exit 4), and
    /// the cause names the file and what is wrong with it (the front end says what to do:
    /// ``fileRequirement(path:)``).
    static func readPassphraseFile(_ path: String) throws(SecretStoreError) -> Data {
        var st = stat()
        if lstat(path, &st) == 0 {
            let type = st.st_mode & S_IFMT
            if type == S_IFLNK {
                throw .passphraseUnavailable(cause: .init("refusing \(path) (\(fileVariable)): it is a symbolic link"))
            }
            if type != S_IFREG {
                let what = type == S_IFDIR ? "a directory" : "not a regular file"
                throw .passphraseUnavailable(cause: .init("refusing \(path) (\(fileVariable)): it is \(what)"))
            }
        }
        let data: Data?
        do throws(SecretStoreError) {
            data = try PrivateFiles.read(path, requirePrivate: true)
        } catch {
            throw .passphraseUnavailable(cause: .init("\(error) (\(fileVariable))"))
        }
        guard let data else {
            throw .passphraseUnavailable(cause: .init("\(fileVariable) names \(path), which does not exist"))
        }
        return data
    }

    /// What a passphrase file must be, for the front end's advice: "AUTHDECK_PASSPHRASE_FILE must
    /// name a regular file of yours with mode 0600 (chmod 600 PATH)".
    public static func fileRequirement(path: String) -> String {
        "\(fileVariable) must name a regular file of yours with mode 0600 holding the vault passphrase (chmod 600 \(path))"
    }

    /// The first line, without its line ending (LF or CRLF). Bytes, not Characters: in Swift
    /// "\r\n" is one Character, so splitting a String on "\n" kept a CRLF file's "\r\n".
    static func firstLine(_ data: Data) -> String {
        var line = data.prefix { $0 != UInt8(ascii: "\n") }
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        return String(decoding: line, as: UTF8.self)
    }

    /// Writes `prompt` to the controlling terminal and reads one line from it with echo off (the
    /// modes come back after the line, and when a signal ends the process during the prompt).
    /// - Throws: ``SecretStoreError/passphraseUnavailable(cause:)`` without a terminal.
    public static func promptWithoutEcho(_ prompt: String) throws(SecretStoreError) -> String {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            // The fact (no controlling terminal) and the C library's reason; what to do instead is
            // the front end's to say.
            throw .passphraseUnavailable(cause: .init("no terminal to ask on (/dev/tty: \(SystemErrorText.describe(errno)))"))
        }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else {
            throw .passphraseUnavailable(cause: PrivateFiles.errnoCause("tcgetattr"))
        }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ICANON)
        // A signal during the prompt (Ctrl-C) restores the modes before it ends the process.
        _ = authdeck_prompt_guard_begin(fd)
        defer { authdeck_prompt_guard_end() }
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
