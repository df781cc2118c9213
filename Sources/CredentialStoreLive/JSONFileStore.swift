import CredentialStore
import FoundationEssentials
import QuickToken
import StrictJSON

/// Non-secret JSON (account metadata, config, the store choice) in one file, written
/// atomically with mode 0600 in a 0700 directory. Never put secrets here. The file and its
/// directory may be readable by others but never writable by group or others, and must be
/// owned by the user (`providers.json` decides where tokens are sent).
///
/// The value is read and written through its JSON mapping (`read`, `write`: StrictJSON, no
/// `Codable`, whose run-time conformance lookups were most of `authdeck token`'s time,
/// PERFORMANCE.md); `Value` is unconstrained, so no conformance is looked up for it either.
public struct JSONFileStore<Value>: Sendable {
    public let path: String
    let decode: @Sendable (JSONValue) throws(JSONShapeError) -> Value
    let encode: @Sendable (Value) -> JSONValue

    /// - Parameters:
    ///   - read: the value of a parsed document (throws naming the member at fault).
    ///   - write: the document of a value.
    public init(path: String, read: @escaping @Sendable (JSONValue) throws(JSONShapeError) -> Value,
                write: @escaping @Sendable (Value) -> JSONValue) {
        self.path = path
        self.decode = read
        self.encode = write
    }

    /// The value, or nil when the file does not exist.
    /// - Throws: ``SecretStoreError/corrupt(file:reason:)`` when it is not valid JSON for `Value`
    ///   (the damage: ``JSONDamage``); ``SecretStoreError/permissionDenied(file:cause:)`` when the
    ///   file or its directory is writable by group or others or owned by another user; `io`.
    public func read() throws(SecretStoreError) -> Value? {
        try PrivateFiles.checkNotWritableByOthers(PrivateFiles.directoryOf(path))
        guard let data = try PrivateFiles.read(path, check: .notWritableByOthers) else { return nil }
        return try JSONDamage.read(data, file: path, decode)
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

    /// Replaces the file with `value` (``JSONValue/serialized(pretty:)``: two-space indentation,
    /// sorted members, then a newline), creating the directory 0700 if needed.
    /// - Throws: `permissionDenied` (directory writable by others, see ``read()``), `io`.
    public func write(_ value: Value) throws(SecretStoreError) {
        try PrivateFiles.ensureDirectory(PrivateFiles.directoryOf(path))
        try PrivateFiles.checkNotWritableByOthers(PrivateFiles.directoryOf(path))
        try PrivateFiles.writeAtomically(encode(value).serialized(pretty: true) + Data("\n".utf8), to: path)
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
    /// `$XDG_CONFIG_HOME/authdeck/<name>`, read and written through `read` / `write`.
    public static func config<Value>(_ name: String, paths: XDGPaths, read: @escaping @Sendable (JSONValue) throws(JSONShapeError) -> Value,
                                     write: @escaping @Sendable (Value) -> JSONValue) -> JSONFileStore<Value> {
        JSONFileStore(path: "\(paths.configDirectory)/\(name)", read: read, write: write)
    }

    /// `$XDG_STATE_HOME/authdeck/<name>`, read and written through `read` / `write`.
    public static func state<Value>(_ name: String, paths: XDGPaths, read: @escaping @Sendable (JSONValue) throws(JSONShapeError) -> Value,
                                    write: @escaping @Sendable (Value) -> JSONValue) -> JSONFileStore<Value> {
        JSONFileStore(path: "\(paths.stateDirectory)/\(name)", read: read, write: write)
    }
}
