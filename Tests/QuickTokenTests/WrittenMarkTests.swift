import Foundation
import QuickToken
import Testing

@Suite("The mark on files authdeck wrote")
struct WrittenMarkTests {
    func temporaryFile(_ text: String, marked: Bool) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mark-\(UUID().uuidString)").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if marked { bytes.withUnsafeBytes { WrittenMark.set(fd: fd, bytes: $0) } }
        return path
    }

    @Test("A marked file reads back; changed in place, unmarked, missing or too large, it does not")
    func readsOnlyUnchangedFiles() throws {
        let marked = try temporaryFile("[1, 2]\n", marked: true)
        let unmarked = try temporaryFile("[1, 2]\n", marked: false)
        defer { unlink(marked); unlink(unmarked) }
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
        let path = try temporaryFile("", marked: true)
        defer { unlink(path) }
        #expect(WrittenMark.readUnchanged(path) == [])
    }
}
