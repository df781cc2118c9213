import Glibc

/// A C library that a command needs only sometimes, opened with `dlopen(3)` on first use instead
/// of being linked: libcurl (network commands), libsecret (the Secret Service store), libcrypto
/// (signature checks), ncurses and libqrencode (the TUI, the device-flow QR code). Loading every
/// one of them at start-up was most of `authdeck token`'s time (PERFORMANCE.md).
///
/// A library that cannot be loaded is a ``LibraryLoadError`` naming the library and the Debian
/// package that provides it; the command that needed it fails with that message, every other
/// command is unaffected. Libraries are never closed (GLib and libcurl do not support unloading).
public final class DynamicLibrary: @unchecked Sendable {
    public let spec: LibrarySpec
    private let handle: UnsafeMutableRawPointer

    private init(spec: LibrarySpec, handle: UnsafeMutableRawPointer) {
        self.spec = spec
        self.handle = handle
    }

    /// `dlopen(spec.soname, RTLD_NOW | RTLD_LOCAL)`: every symbol of the library is bound now,
    /// none is added to the global namespace.
    public static func open(_ spec: LibrarySpec) throws(LibraryLoadError) -> DynamicLibrary {
        _ = dlerror()
        guard let handle = dlopen(spec.soname, RTLD_NOW | RTLD_LOCAL) else {
            throw LibraryLoadError(library: spec, reason: .notLoadable, detail: lastError())
        }
        return DynamicLibrary(spec: spec, handle: handle)
    }

    /// The address of `name`; a library without it (too old a version) is an error.
    public func symbol(_ name: String) throws(LibraryLoadError) -> UnsafeMutableRawPointer {
        _ = dlerror()
        guard let address = dlsym(handle, name) else {
            throw LibraryLoadError(library: spec, reason: .missingSymbol(name), detail: Self.lastError())
        }
        return address
    }

    /// `name` as a C function of type `F` (a `@convention(c)` function type, usually a typedef
    /// from the library's shim made with `__typeof__`, so the signature is the header's).
    public func function<F>(_ name: String, as type: F.Type = F.self) throws(LibraryLoadError) -> F {
        precondition(MemoryLayout<F>.size == MemoryLayout<UnsafeMutableRawPointer>.size, "\(F.self) is not a C function pointer")
        return unsafeBitCast(try symbol(name), to: F.self)
    }

    private static func lastError() -> String {
        guard let message = dlerror() else { return "unknown dlopen error" }
        return String(cString: message)
    }
}

/// A library by its soname and the Debian package that installs it.
public struct LibrarySpec: Sendable, Hashable, CustomStringConvertible {
    public var soname: String
    public var debianPackage: String

    public init(soname: String, debianPackage: String) {
        self.soname = soname
        self.debianPackage = debianPackage
    }

    public var description: String { soname }

    public static let curl = LibrarySpec(soname: "libcurl.so.4", debianPackage: "libcurl4")
    public static let secret = LibrarySpec(soname: "libsecret-1.so.0", debianPackage: "libsecret-1-0")
    public static let glib = LibrarySpec(soname: "libglib-2.0.so.0", debianPackage: "libglib2.0-0")
    public static let gobject = LibrarySpec(soname: "libgobject-2.0.so.0", debianPackage: "libglib2.0-0")
    public static let gio = LibrarySpec(soname: "libgio-2.0.so.0", debianPackage: "libglib2.0-0")
    public static let crypto = LibrarySpec(soname: "libcrypto.so.3", debianPackage: "libssl3")
    public static let ncurses = LibrarySpec(soname: "libncursesw.so.6", debianPackage: "libncursesw6")
    public static let qrencode = LibrarySpec(soname: "libqrencode.so.4", debianPackage: "libqrencode4")
    /// sd-bus, the launcher's D-Bus client for a token in the Secret Service.
    public static let systemd = LibrarySpec(soname: "libsystemd.so.0", debianPackage: "libsystemd0")
}

/// A library that could not be loaded, or lacks a function authdeck calls.
public struct LibraryLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// `dlopen` failed: not installed, or one of its own dependencies is missing.
        case notLoadable
        /// The library is there but has no such symbol (an older version).
        case missingSymbol(String)
    }

    public var library: LibrarySpec
    public var reason: Reason
    /// `dlerror()`'s text.
    public var detail: String

    public init(library: LibrarySpec, reason: Reason, detail: String) {
        self.library = library
        self.reason = reason
        self.detail = detail
    }

    public var description: String {
        switch reason {
        case .notLoadable:
            "\(library.soname) could not be loaded (\(detail)); install the Debian package \(library.debianPackage):"
                + " sudo apt-get install \(library.debianPackage)"
        case .missingSymbol(let name):
            "\(library.soname) has no function \(name) (\(detail)); it is too old: install a current \(library.debianPackage)"
        }
    }
}
