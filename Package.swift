// swift-tools-version:6.0
// authdeck: a terminal account and session manager for OAuth 2.0 and OpenID Connect.
// Layers (ARCHITECTURE.md): front ends (TerminalUI*, authdeck) over AppCore over
// AuthEngine / CredentialStore. Pure modules hold the logic; *Live modules touch the world.
import PackageDescription

let package = Package(
    name: "authdeck",
    products: [
        // `authdeck` is the launcher (Sources/Launcher): a plain `authdeck token` answered from the
        // vault before anything else is loaded, every other call handed to `authdeck-full`
        // (ProgramLayout: installed in libexec/authdeck, built beside it).
        .executable(name: "authdeck", targets: ["Launcher"]),
        .executable(name: "authdeck-full", targets: ["authdeck"]),
    ],
    targets: [
        // C libraries from Debian, through pkg-config.
        // No pkgConfig: ncursesw.pc only adds -D flags, which SwiftPM drops with a warning; the shim defines them.
        .systemLibrary(name: "CNCurses", providers: [.apt(["libncurses-dev"])]),
        // Header only, like CCurl: libcrypto is opened with dlopen on first use.
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        // Header only (no pkgConfig, no link line): libcurl is opened with dlopen when a command
        // first sends a request (LibraryLoader).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // No pkgConfig: libsecret-1.pc brings glib's -pthread, which SwiftPM drops with a warning on every
        // build. The shim declares the few libsecret/GLib functions it uses (checked against the real
        // headers by a CredentialStoreLive test), so no include path is needed on any architecture.
        .systemLibrary(name: "CLibSecret", providers: [.apt(["libsecret-1-dev"])]),
        // Header only, like CCurl: libqrencode is opened with dlopen when a QR code is first drawn.
        .systemLibrary(name: "CQREncode", providers: [.apt(["libqrencode-dev"])]),
        // Header only (glibc's <sys/xattr.h>, which Glibc's module does not include).
        .systemLibrary(name: "CXAttr"),
        // sd-bus, declared in a shim and opened with dlopen on use (the launcher's read of a
        // token from the Secret Service); libsystemd-dev only for the test that checks the shim.
        .systemLibrary(name: "CSystemdBus"),
        .systemLibrary(name: "CKeyutils", pkgConfig: "libkeyutils", providers: [.apt(["libkeyutils-dev"])]),
        // The JSON reader and writer (StrictJSON): it rejects duplicate member names, which
        // Foundation's decoders resolve silently (JSONDecoder keeps the first, JSONSerialization the last).
        .systemLibrary(name: "CJansson", pkgConfig: "jansson", providers: [.apt(["libjansson-dev"])]),

        // The terminal's signal state (quit flag and wake pipe, crash-path restore), defined once in
        // a .c file: a static in a system-library shim header is copied into every user.
        .target(name: "CTerminalSignals"),
        // The commit slot that scripts/package and scripts/install stamp into their copy of the
        // release binary (`authdeck --version`).
        .target(name: "CBuildInfo"),

        // dlopen(3) of the C libraries a command needs only sometimes, with typed errors naming the
        // library and its Debian package.
        .target(name: "LibraryLoader"),
        // The redacting secret type shared by the engine's tokens and the store's records.
        .target(name: "Secrets"),
        // JSON values, read strictly (duplicate names rejected) and written by jansson, with typed
        // path-aware reading: protocol documents, the metadata files and the secret sets.
        .target(name: "StrictJSON", dependencies: ["CJansson", "TextSupport"]),
        // String operations without Foundation (trimming, percent-encoding, hex, path text): the
        // modules import FoundationEssentials only, so the binary carries no ICU (PERFORMANCE.md).
        .target(name: "TextSupport"),
        // What the launcher reads without Foundation, and the full program reads the same way: the
        // XDG directories, the git config files that could name an account, the mark on files
        // authdeck wrote, the program layout, and the quick answer to `authdeck token`.
        .target(name: "QuickToken", dependencies: ["TextSupport", "LibraryLoader", "CSodium", "CJansson", "CKeyutils", "CXAttr", "CSystemdBus"]),
        // The protocol as values and pure functions (no sockets, no clocks; JSON through StrictJSON).
        .target(name: "AuthEngine", dependencies: ["Secrets", "StrictJSON", "TextSupport"]),
        // HTTP on libcurl, signatures on libcrypto, the loopback redirect listener, the browser.
        .target(name: "AuthEngineLive", dependencies: ["AuthEngine", "LibraryLoader", "TextSupport", "CCurl", "CCrypto"]),
        // The credential store interface, records, redacting secrets, in-memory store.
        .target(name: "CredentialStore", dependencies: ["Secrets", "StrictJSON"]),
        // Secret Service, encrypted file vault, explicit plaintext file, atomic writes, locks.
        .target(name: "CredentialStoreLive", dependencies: ["CredentialStore", "LibraryLoader", "QuickToken", "TextSupport", "CSodium", "CLibSecret", "CKeyutils", "CTerminalSignals"]),
        // The state store (State, Action, reduce, Effect, Store), the use cases and AppEnvironment.
        .target(name: "AppCore", dependencies: ["AuthEngine", "CredentialStore", "QuickToken", "Secrets", "TextSupport"]),
        // The composition root: the engine, libcurl, libcrypto, the listener, the browser and the
        // credential store wired into AppCore's AppEnvironment (AppEnvironment.live, built once by the TUI or the CLI).
        .target(
            name: "AppCoreLive",
            dependencies: ["AppCore", "AuthEngine", "AuthEngineLive", "CredentialStore", "CredentialStoreLive", "QuickToken", "StrictJSON",
                           "TextSupport"]
        ),
        // Pure rendering: state + size + theme -> Frame.
        .target(name: "TerminalUI", dependencies: ["AppCore", "StrictJSON", "TextSupport"]),
        // The accounts screen as a feature: its state (the app's, the view's, the dialogs'), its
        // actions and a pure reducer scoping AppReducer; the screen model from its state.
        .target(name: "AccountsScreen", dependencies: ["AppCore", "AuthEngine", "TerminalUI"]),
        // The only module that calls ncurses (and libqrencode for the device-flow QR code).
        .target(name: "TerminalUINCurses", dependencies: ["TerminalUI", "LibraryLoader", "TextSupport", "CNCurses", "CQREncode", "CTerminalSignals"]),
        // The executable: argument parsing, XDG paths, live wiring, subcommands.
        .executableTarget(
            name: "authdeck",
            dependencies: [
                "AuthEngine", "AuthEngineLive", "CredentialStore", "CredentialStoreLive",
                "AppCore", "AppCoreLive", "AccountsScreen", "TerminalUI", "TerminalUINCurses", "TextSupport", "CBuildInfo", "QuickToken",
            ],
            // The shipped (release) binary links the Swift runtime, Foundation and Dispatch
            // statically: resolving their symbols across a dozen shared objects was most of
            // `authdeck token`'s start-up (PERFORMANCE.md). Allowed for the root package;
            // same effect as `swift build --static-swift-stdlib`, but from the README's plain
            // `swift build -c release`. Debug builds (tests) stay dynamic.
            // (`-static-stdlib` when compiling too: the autolink entries then name the static
            // libraries.) The modules import FoundationEssentials only, never Foundation, so
            // FoundationInternationalization and ICU stay out of the binary (35 MB instead of 84,
            // half the relocations at start-up: PERFORMANCE.md).
            // Linked by the toolchain's lld: libFoundationEssentials.a's temporary-file code (atomic
            // `Data.write`, never called here, but in an object every FoundationEssentials user pulls
            // in) references glibc's mktemp, for which gold printed a link-time warning in every
            // release build.
            // Relative relocations packed (DT_RELR: lld, glibc ≥ 2.36): a 1 MB `.rela.dyn` becomes
            // 9 KB that ld.so reads at start-up. No dynamic symbol table for the executable's own
            // symbols (`--no-export-dynamic` over the static stdlib's `-export-dynamic`): nothing
            // looks them up, and the runtime's start-up `dladdr` walked all ~7,800 of them.
            // Position-independent still (ASLR). And libstdc++ (the runtime's C++) linked statically
            // too, through BuildSupport/libstdc++.so, a linker script searched before GCC's
            // directory: libstdc++.so.6 binding ~1,600 symbols at every start was a third of
            // `authdeck token`. Figures: PERFORMANCE.md.
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                           "-Xlinker", "--no-export-dynamic", "-L", Context.packageDirectory + "/BuildSupport"],
                                          .when(configuration: .release))]
        ),
        // The launcher: the standard library, Glibc and the C libraries only (no Foundation, no
        // Dispatch), so that its image maps and relocates a fraction of the full program's.
        // Linked as the full program is (PERFORMANCE.md).
        .executableTarget(
            name: "Launcher",
            dependencies: ["QuickToken", "TextSupport"],
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                           "-Xlinker", "--no-export-dynamic", "-L", Context.packageDirectory + "/BuildSupport"],
                                          .when(configuration: .release))]
        ),

        // Test support: starts the bundled local OpenID provider (Tests/IdentityProvider) and
        // other fixture processes on 127.0.0.1, and stops them by process group; the spying
        // secret store of the use-case and store tests.
        .target(name: "TestSupport", dependencies: ["CredentialStore"], path: "Tests/TestSupport"),
        // Test support: the exhaustive TestStore (TCA's), a test clock, gates and counters for
        // effects, shared by the reducer tests of AppCore and the accounts screen.
        .target(name: "StoreTesting", dependencies: ["AppCore"], path: "Tests/StoreTesting"),

        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON"]),
        .testTarget(name: "TextSupportTests", dependencies: ["TextSupport"]),
        .testTarget(name: "AuthEngineTests", dependencies: ["AuthEngine"], resources: [.copy("Fixtures")]),
        .testTarget(name: "AuthEngineLiveTests", dependencies: ["AuthEngine", "AuthEngineLive", "TestSupport"]),
        .testTarget(name: "CredentialStoreTests", dependencies: ["CredentialStore", "TestSupport"]),
        .testTarget(name: "LibraryLoaderTests", dependencies: ["LibraryLoader", "AuthEngineLive", "CredentialStoreLive", "TerminalUINCurses", "TestSupport"]),
        .testTarget(name: "CredentialStoreLiveTests", dependencies: ["CredentialStore", "CredentialStoreLive", "QuickToken", "TestSupport"]),
        // The launcher's library: the program layout, the written mark, the quick answer's rules.
        .testTarget(name: "QuickTokenTests", dependencies: ["QuickToken", "CredentialStore", "CSodium", "CXAttr", "TestSupport"]),
        // Child process for the credential store tests (Secret Service inside dbus-run-session, SIGKILL
        // crash safety, 8-process concurrency) and the store benchmark. Not shipped.
        .executableTarget(
            name: "credential-store-probe",
            dependencies: ["CredentialStore", "CredentialStoreLive", "QuickToken"],
            path: "Tests/CredentialStoreProbe"
        ),
        .testTarget(name: "AppCoreTests", dependencies: ["AppCore", "AuthEngine", "CredentialStore", "Secrets", "StoreTesting"]),
        // The accounts screen's reducer (TestStore stories) and golden frames rendered from its state.
        .testTarget(name: "AccountsScreenTests", dependencies: ["AccountsScreen", "AppCore", "AuthEngine", "Secrets", "TerminalUI", "StoreTesting"],
                    exclude: ["Snapshots"]),
        // The use cases over a stub environment: no network, no files, no terminal.
        .testTarget(name: "UseCaseTests", dependencies: ["AppCore", "AuthEngine", "CredentialStore", "TestSupport"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "TerminalUINCurses", "AppCore", "TestSupport", "TextSupport"], exclude: ["Snapshots"]),
        // Test-only: signature verification rates through the engine and libcrypto, for scripts/bench.
        .executableTarget(name: "engine-bench", dependencies: ["AuthEngine", "AuthEngineLive"], path: "Tests/EngineBench"),
        // Test-only: the ncurses backend on a sample screen, driven under tmux by TerminalUITests.
        .executableTarget(name: "tui-preview", dependencies: ["AppCore", "TerminalUI", "TerminalUINCurses"], path: "Tests/TUIPreview"),
        // Test-only: the refresh storm (issue 12) — the TUI's store on the live environment, for scripts/bench.
        .executableTarget(name: "storm-driver", dependencies: ["AppCore", "AppCoreLive", "AuthEngine", "TerminalUI"], path: "Tests/StormDriver"),
        // Against the real local provider (and, for the TUI, tmux).
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["AuthEngine", "AuthEngineLive", "CredentialStore", "CredentialStoreLive", "AppCore", "AppCoreLive", "QuickToken", "TerminalUI",
                           "TestSupport"]
        ),
        // The command line, run as the binary that ships (.build/release/authdeck, TestSupport's ShippedBinary) against the real local provider.
        .testTarget(
            name: "CLITests",
            dependencies: ["AuthEngine", "AuthEngineLive", "QuickToken", "TestSupport"],
            exclude: ["Snapshots"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
