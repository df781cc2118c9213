import CredentialStore
import FoundationEssentials

/// Non-secret JSON (account metadata, config, the store choice) in one file, written
/// atomically with mode 0600 in a 0700 directory. Never put secrets here. The file and its
/// directory may be readable by others but never writable by group or others, and must be
/// owned by the user (`providers.json` decides where tokens are sent).
public struct JSONFileStore<Value: Codable & Sendable>: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The value, or nil when the file does not exist.
    /// - Throws: ``SecretStoreError/corrupt(file:reason:)`` when it is not valid JSON for `Value`;
    ///   ``SecretStoreError/permissionDenied(file:cause:)`` when the file or its directory is writable
    ///   by group or others or owned by another user; `io`.
    public func read() throws(SecretStoreError) -> Value? {
        try PrivateFiles.checkNotWritableByOthers(PrivateFiles.directoryOf(path))
        guard let data = try PrivateFiles.read(path, check: .notWritableByOthers) else { return nil }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(Value.self, from: data)
        } catch {
            throw .corrupt(file: path, reason: JSONDamage.classify(data, decodingError: error))
        }
    }

    /// The file's condition without decoding failures thrown: nil when absent, else the value
    /// or the error reading it (damage: ``SecretStoreError/corrupt(file:reason:)``).
    public func inspect() -> Result<Value, SecretStoreError>? {
        do {
            guard let value = try read() else { return nil }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    /// Moves the file aside under its lock (see ``PrivateFiles/moveAside(_:now:)``); returns the
    /// new path, nil when there was no file.
    public func moveAside(now: Date) throws(SecretStoreError) -> String? {
        try PrivateFiles.ensureDirectory(PrivateFiles.directoryOf(path))
        return try FileLock.withLock(path + ".lock") { () throws(SecretStoreError) -> String? in
            try PrivateFiles.moveAside(path, now: now)
        }
    }

    /// Replaces the file with `value` (pretty, sorted keys, ISO 8601 dates), creating the
    /// directory 0700 if needed.
    /// - Throws: `permissionDenied` (directory writable by others, see ``read()``), `io`.
    public func write(_ value: Value) throws(SecretStoreError) {
        try PrivateFiles.ensureDirectory(PrivateFiles.directoryOf(path))
        try PrivateFiles.checkNotWritableByOthers(PrivateFiles.directoryOf(path))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw .io(file: path, operation: "encode", cause: .init(String(describing: type(of: error))))
        }
        try PrivateFiles.writeAtomically(data + Data("\n".utf8), to: path)
    }

    /// Read-modify-write under a cross-process lock on `path + ".lock"`.
    public func update(_ body: (inout Value?) throws(SecretStoreError) -> Void) throws(SecretStoreError) {
        try PrivateFiles.ensureDirectory(PrivateFiles.directoryOf(path))
        try PrivateFiles.checkNotWritableByOthers(PrivateFiles.directoryOf(path))
        try FileLock.withLock(path + ".lock") { () throws(SecretStoreError) in
            var value = try read()
            try body(&value)
            if let value { try write(value) }
        }
    }
}

/// The metadata files under the XDG directories.
public enum MetadataFile {
    /// `$XDG_CONFIG_HOME/authdeck/<name>`.
    public static func config<Value: Codable & Sendable>(_ name: String, paths: XDGPaths, as: Value.Type = Value.self) -> JSONFileStore<Value> {
        JSONFileStore(path: "\(paths.configDirectory)/\(name)")
    }

    /// `$XDG_STATE_HOME/authdeck/<name>`.
    public static func state<Value: Codable & Sendable>(_ name: String, paths: XDGPaths, as: Value.Type = Value.self) -> JSONFileStore<Value> {
        JSONFileStore(path: "\(paths.stateDirectory)/\(name)")
    }
}
