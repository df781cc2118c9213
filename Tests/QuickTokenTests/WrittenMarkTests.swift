import CSodium
import CXAttr
import Foundation
@testable import QuickToken
import Testing

@Suite("The mark on files authdeck wrote")
struct WrittenMarkTests {
    let directory: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mark-\(UUID().uuidString)").path
        mkdir(path, 0o700)
        return path
    }()

    func file(_ text: String, marked: Bool, mode: mode_t = 0o600) throws -> String {
        let path = "\(directory)/f-\(UUID().uuidString)"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode)
        try #require(fd >= 0)
        defer { close(fd) }
        fchmod(fd, mode)
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if marked { bytes.withUnsafeBytes { WrittenMark.set(fd: fd, bytes: $0) } }
        return path
    }

    @Test("A marked file reads back; changed in place, unmarked, missing or too large, it does not")
    func readsOnlyUnchangedFiles() throws {
        let marked = try file("[1, 2]\n", marked: true)
        let unmarked = try file("[1, 2]\n", marked: false)
        #expect(WrittenMark.readUnchanged(marked) == Array("[1, 2]\n".utf8))
        #expect(WrittenMark.readUnchanged(marked, limit: 3) == nil)
        #expect(WrittenMark.readUnchanged(unmarked) == nil)
        #expect(WrittenMark.readUnchanged(marked + ".missing") == nil)
        // The same length, one byte changed: the attribute stays, the bytes no longer match it.
        let fd = open(marked, O_WRONLY)
        _ = pwrite(fd, "3", 1, 1)
        close(fd)
        #expect(WrittenMark.readUnchanged(marked) == nil)
    }

    @Test("An empty file is marked and read back as empty")
    func emptyFile() throws {
        #expect(WrittenMark.readUnchanged(try file("", marked: true)) == [])
    }

    @Test("A mark another version wrote (here the unkeyed BLAKE2b) is not this version's")
    func otherVersionsMark() throws {
        let path = try file("[]", marked: false)
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&digest, 32, Array("[]".utf8), 2, nil, 0)
        #expect(setxattr(path, WrittenMark.attribute, digest, 32, 0) == 0)
        #expect(WrittenMark.readUnchanged(path) == nil)
    }

    @Test("A file others may write, or in a directory others may write, is not read; a FIFO is refused without blocking")
    func unsafeFiles() throws {
        #expect(WrittenMark.readUnchanged(try file("[]", marked: true, mode: 0o622)) == nil)
        #expect(WrittenMark.readUnchanged(try file("[]", marked: true, mode: 0o644)) == Array("[]".utf8))
        let open = try file("[]", marked: true)
        chmod(directory, 0o777)
        defer { chmod(directory, 0o700) }
        #expect(WrittenMark.readUnchanged(open) == nil)
        chmod(directory, 0o700)
        let fifo = "\(directory)/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(WrittenMark.readUnchanged(fifo) == nil)
    }
}

@Suite("The git config files that could name an account")
struct GitConfigFilesTests {
    @Test("git's transport, identity and prompt variables (GIT_SSL_CAINFO, GIT_SSH_COMMAND, GIT_ASKPASS…) do not change what git config reads; GIT_CONFIG_*, GIT_DIR and the unknown do",
          arguments: [("GIT_SSL_CAINFO", false), ("GIT_SSL_NO_VERIFY", false), ("GIT_SSH_COMMAND", false), ("GIT_AUTHOR_NAME", false),
                      ("GIT_ASKPASS", false), ("GIT_TERMINAL_PROMPT", false), ("GIT_PAGER", false), ("GIT_HTTP_USER_AGENT", false),
                      ("GIT_CONFIG_GLOBAL", true), ("GIT_CONFIG_COUNT", true), ("GIT_CONFIG_PARAMETERS", true), ("GIT_CONFIG_NOSYSTEM", true),
                      ("GIT_DIR", true), ("GIT_WORK_TREE", true), ("GIT_COMMON_DIR", true), ("GIT_CEILING_DIRECTORIES", true),
                      ("GIT_TRACE", true), ("GIT_ASKPASSX", true), ("GIT_SOMETHING_NEW", true), ("HOME", false)])
    func gitVariables(_ name: String, changes: Bool) throws {
        #expect(GitConfigFiles.mayChangeConfig(name) == changes)
        // In a directory with no git config that mentions authdeck, only a variable that may change it makes git be asked.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gitvars-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        var environment = ["HOME": root, "PATH": "/usr/bin:/bin"]
        #expect(!GitConfigFiles.mayMention("authdeck", directory: root, environment: environment))
        environment[name] = name == "HOME" ? root : "x"
        #expect(GitConfigFiles.mayMention("authdeck", directory: root, environment: environment) == changes)
    }

    @Test("A .git that is no repository (git passes over it) cannot be told: git is asked")
    func invalidGitDirectory() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("git-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/inner/.git", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(GitConfigFiles.repositoryFiles(root + "/inner") == nil)
        // A real one: HEAD and a config.
        try FileManager.default.createDirectory(atPath: root + "/.git", withIntermediateDirectories: true)
        try "ref: refs/heads/main\n".write(toFile: root + "/.git/HEAD", atomically: true, encoding: .utf8)
        #expect(GitConfigFiles.repositoryFiles(root) == [root + "/.git/config", root + "/.git/config.worktree"])
    }
}
