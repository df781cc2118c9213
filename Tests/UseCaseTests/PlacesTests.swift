import AppCore
import AuthEngine
import Foundation
import Synchronization
import Testing

/// Over the stub world: rules by real path, git config through the git edge, and
/// nothing of it ever writes the active account.
@Suite("Per-directory accounts (use case, stub environment)")
struct PlacesTests {
    @Test("bind stores the real path; a command in the symlinked directory gets the rule; active.json is untouched")
    func bindThroughSymlink() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world, as: "alice").record
        let bob = try await signedIn(world, as: "bob").record
        let activeBefore = world.files.withLock { $0.active }
        world.symlinks.withLock { $0["/home/u/link"] = "/srv/projects/work" }
        let env = world.environment()
        let (rule, replaced) = try Places(env).bind(bob.id, directory: "/home/u/link")
        #expect(rule.directory == "/srv/projects/work" && replaced == nil)
        world.directory.withLock { $0 = "/srv/projects/work/repo" }
        let snapshot = try LoadAccounts(env).run()
        let choice = try Places(env).choose(nil, in: snapshot, environmentAccount: nil)
        #expect(choice.record.id == bob.id && choice.source == .rule(directory: "/srv/projects/work"))
        #expect(try Places(env).choose(nil, in: snapshot, environmentAccount: "alice").record.id == alice.id, "the environment comes first")
        #expect(world.files.withLock { $0.active } == activeBefore)
        // The screen and status read the same: the overview carries the place.
        #expect(try LoadAccounts(env).overview().place.rule == rule)
        let (removed, covering) = try Places(env).unbind(directory: "/home/u/link")
        #expect(removed == rule && covering == nil)
        #expect(try Places(env).choose(nil, in: snapshot, environmentAccount: nil).source == .active)
    }

    @Test("A rule to an account that was logged out is an error naming the rule, not the active account")
    func ruleToRemovedAccount() async throws {
        let world = StubWorld()
        _ = try await signedIn(world, as: "alice")
        world.bindings.withLock { $0 = [DirectoryBinding(directory: "/w", account: "op/gone")] }
        world.directory.withLock { $0 = "/w/x" }
        let env = world.environment()
        let snapshot = try LoadAccounts(env).run()
        #expect(throws: AccountResolutionError.ruleAccountMissing(directory: "/w", account: "op/gone")) {
            try Places(env).choose(nil, in: snapshot, environmentAccount: nil)
        }
    }

    @Test("git config: the repository's .git/config counts, a work-tree file it includes does not; git is not run for an ACCOUNT argument")
    func gitConfigThroughTheEdge() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world, as: "alice").record
        let bob = try await signedIn(world, as: "bob").record
        let runs = Mutex<[[String]]>([])
        world.git.withLock {
            $0 = { arguments, directory in
                runs.withLock { $0.append(arguments) }
                #expect(directory == "/repo")
                if arguments.contains("rev-parse") { return GitRun(status: 0, stdout: "/repo/.git\n.git\n", stderr: "") }
                return GitRun(status: 0, stdout: "local\0file:.git/config\0op/alice\0local\0file:/repo/team.gitconfig\0op/bob\0", stderr: "")
            }
        }
        world.directory.withLock { $0 = "/repo" }
        let env = world.environment()
        let place = Places(env).read()
        #expect(place.gitConfig == GitConfigAccount(value: "op/alice", file: "/repo/.git/config", scope: "local"))
        #expect(place.notes.count == 1 && place.notes[0].contains("/repo/team.gitconfig"))
        let snapshot = try LoadAccounts(env).run()
        #expect(try Places(env).choose(nil, in: snapshot, environmentAccount: nil).record.id == alice.id)
        runs.withLock { $0 = [] }
        #expect(try Places(env).choose("bob", in: snapshot, environmentAccount: nil).record.id == bob.id)
        #expect(runs.withLock { $0 }.isEmpty)
    }

    @Test("git config from a subdirectory of the work tree: git's relative origin (.git/config) is the top's, so the repository's value counts there too")
    func gitConfigFromASubdirectory() async throws {
        let world = StubWorld()
        _ = try await signedIn(world, as: "alice")
        let bob = try await signedIn(world, as: "bob").record
        world.git.withLock {
            $0 = { arguments, _ in
                // What Debian's git prints in /repo/src/deep.
                if arguments.contains("rev-parse") { return GitRun(status: 0, stdout: "/repo/.git\n../../.git\nsrc/deep/\n", stderr: "") }
                return GitRun(status: 0, stdout: "local\0file:.git/config\0op/bob\0", stderr: "")
            }
        }
        world.directory.withLock { $0 = "/repo/src/deep" }
        let env = world.environment()
        let place = Places(env).read()
        #expect(place.gitConfig == GitConfigAccount(value: "op/bob", file: "/repo/.git/config", scope: "local"), "\(place.notes)")
        #expect(place.notes.isEmpty)
        #expect(try Places(env).choose(nil, in: try LoadAccounts(env).run(), environmentAccount: nil).record.id == bob.id)
    }

    @Test("unbind of a directory that was removed: its rule goes by the absolute path given")
    func unbindRemovedDirectory() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world).record
        world.bindings.withLock { $0 = [DirectoryBinding(directory: "/gone/dir", account: alice.id)] }
        let env = world.environment()
        var place = env.place
        place.realPath = { path in DirectoryBinding.path(path, isWithin: "/gone") ? nil : path }
        var changed = env
        changed.place = place
        let (removed, _) = try Places(changed).unbind(directory: "/gone/dir/")
        #expect(removed?.directory == "/gone/dir")
        #expect(world.bindings.withLock { $0 }.isEmpty)
        let refused = #expect(throws: AppError.self) { try Places(changed).bind(alice.id, directory: "/gone/dir") }
        #expect(refused?.disposition == .usage, "a directory that does not exist is the person's to fix: \(String(describing: refused))")
        #expect(world.bindings.withLock { $0 }.isEmpty, "nothing is saved for it")
    }

    /// git in a directory committed into another repository that looks like a bare one (`tool.git/`
    /// with `config`, `HEAD`, `refs/`): what Debian's git 2.39 prints there.
    static func committedBareRepository(_ world: StubWorld, explicitGitDir: Bool = false, gitDir: String = "/work/outer/tool.git") {
        world.git.withLock {
            $0 = { arguments, _ in
                if arguments.contains("rev-parse") {
                    if arguments.contains("safe.bareRepository=explicit"), !explicitGitDir {
                        return GitRun(status: 128, stdout: "", stderr: "fatal: cannot use bare repository '\(gitDir)' (safe.bareRepository is 'explicit')\n")
                    }
                    return GitRun(status: 0, stdout: "\(gitDir)\n.\n\n", stderr: "")
                }
                return GitRun(status: 0, stdout: "local\0file:config\0op/bob\0", stderr: "")
            }
        }
    }

    @Test("A bare repository git found by looking (a committed tool.git/) never chooses the identity; which says what was ignored")
    func committedBareRepositoryIgnored() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world, as: "alice").record
        _ = try await signedIn(world, as: "bob")
        world.files.withLock { $0.active = alice.id }
        Self.committedBareRepository(world)
        world.directory.withLock { $0 = "/work/outer/tool.git" }
        let env = world.environment()
        let place = Places(env).read()
        #expect(place.gitConfig == nil)
        #expect(place.notes.count == 1 && place.notes[0].contains("/work/outer/tool.git/config") && place.notes[0].contains("bare repository"),
                "\(place.notes)")
        #expect(try Places(env).choose(nil, in: try LoadAccounts(env).run(), environmentAccount: nil).record.id == alice.id)
    }

    @Test("A bare repository GIT_DIR names counts (git's safe.bareRepository=explicit), and so does the .git directory of a work tree")
    func explicitBareRepositoryCounts() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world, as: "alice").record
        let bob = try await signedIn(world, as: "bob").record
        world.files.withLock { $0.active = alice.id }
        Self.committedBareRepository(world, explicitGitDir: true)
        world.directory.withLock { $0 = "/work/outer/tool.git" }
        #expect(Places(world.environment()).read().gitConfig?.value == "op/bob")
        Self.committedBareRepository(world, gitDir: "/repo/.git")
        world.directory.withLock { $0 = "/repo/.git" }
        let env = world.environment()
        #expect(Places(env).read().gitConfig?.file == "/repo/.git/config")
        #expect(try Places(env).choose(nil, in: try LoadAccounts(env).run(), environmentAccount: nil).record.id == bob.id)
    }
}
