#if canImport(Glibc)
import Glibc
#endif
import TextSupport

/// The files `git config` reads, looked at without running git: a `git` child process is most of
/// what `authdeck token` costs when it asks for `authdeck.account` (PERFORMANCE.md), and almost
/// always the answer is nothing.
public enum GitConfigFiles {
    /// False only when `git config` in `directory` cannot print a key of `section`: no `GIT_*`
    /// variable in `environment` that could change what it reads (``mayChangeConfig(_:)``), and none of the files git
    /// reads there — the system file (`/etc/gitconfig`, and `PREFIX/etc/gitconfig` for the git found
    /// on `PATH` in PREFIX/bin, as found and with its links resolved), the global ones (`$XDG_CONFIG_HOME/git/config` or
    /// `~/.config/git/config`, `~/.gitconfig`), the repository's `config` and `config.worktree` —
    /// contains `section` or `include`, ASCII case-insensitively (section names are
    /// case-insensitive; an include can bring any file). True wherever it cannot tell: no `HOME`,
    /// no git on `PATH` or a relative directory before it, a file that exists but cannot be read, a `.git` that is neither a directory
    /// nor a `gitdir:` file, a directory on the way up that holds a `HEAD` (a bare repository, or
    /// `directory` is inside a git directory).
    /// Whether the variable `name` could change what `git config` reads: every `GIT_*` but those of
    /// transports, identities, prompts, the editor and the pager (`GIT_SSL_CAINFO`, `GIT_SSH_COMMAND`,
    /// `GIT_AUTHOR_NAME`, `GIT_ASKPASS`, `GIT_TERMINAL_PROMPT`, `GIT_EDITOR`, `GIT_PAGER`, …), which
    /// git(1) reads elsewhere. The rest add values or move the files (`GIT_CONFIG_*`, `git -c`'s
    /// `GIT_CONFIG_PARAMETERS`), find another repository (`GIT_DIR`, `GIT_WORK_TREE`,
    /// `GIT_COMMON_DIR`, `GIT_CEILING_DIRECTORIES`), or are not known here: git is asked.
    public static func mayChangeConfig(_ name: String) -> Bool {
        guard name.utf8.starts(with: "GIT_".utf8) else { return false }
        let elsewhere = ["GIT_SSL_", "GIT_SSH", "GIT_AUTHOR_", "GIT_COMMITTER_", "GIT_HTTP_", "GIT_PROXY_", "GIT_CURL_"]
        let exactly = ["GIT_ASKPASS", "GIT_TERMINAL_PROMPT", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER"]
        if elsewhere.contains(where: { name.utf8.starts(with: $0.utf8) }) { return false }
        return !exactly.contains(where: { name.utf8.elementsEqual($0.utf8) })
    }

    public static func mayMention(_ section: String, directory: String, environment: [String: String]) -> Bool {
        if environment.keys.contains(where: mayChangeConfig) { return true }
        guard let home = environment["HOME"], home.utf8.first == UInt8(ascii: "/"),
              let git = executable("git", searchPath: environment["PATH"] ?? "/bin:/usr/bin"),
              let repository = repositoryFiles(directory) else { return true }
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.config"
        guard configHome.utf8.first == UInt8(ascii: "/") else { return true }
        let systemFiles = ["/etc/gitconfig"] + [git.path, git.resolved].map { path in
            let prefix = PathText.directory(PathText.directory(path))
            return "\(prefix == "/" ? "" : prefix)/etc/gitconfig"
        }
        let files = systemFiles + ["\(configHome)/git/config", "\(home)/.gitconfig"] + repository
        let needles = [Array(section.lowercased().utf8), Array("include".utf8)]
        for file in files {
            guard let bytes = read(file) else { return true }
            let lowered = bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
            if needles.contains(where: { contains(lowered, $0) }) { return true }
        }
        return false
    }

    /// The repository's `config` and `config.worktree` for `directory`, found as git discovers a
    /// repository (the nearest `.git` upwards: a directory, or a file `gitdir: PATH`; a linked work
    /// tree's `commondir`); none outside any repository; nil where it cannot tell (see ``mayMention(_:directory:environment:)``).
    static func repositoryFiles(_ directory: String) -> [String]? {
        var current = directory
        while true {
            let base = current == "/" ? "" : current
            var info = stat()
            if stat("\(base)/.git", &info) == 0 {
                var gitDirectory = "\(base)/.git"
                if (info.st_mode & S_IFMT) == S_IFREG {
                    let marker = Array("gitdir: ".utf8)
                    guard let line = read(gitDirectory).map(trimmed), line.starts(with: marker) else { return nil }
                    let path = String(decoding: line.dropFirst(marker.count), as: UTF8.self)
                    gitDirectory = path.utf8.first == UInt8(ascii: "/") ? path : "\(base)/\(path)"
                } else if (info.st_mode & S_IFMT) != S_IFDIR {
                    return nil
                }
                // git passes over a `.git` that is no repository (no HEAD) and looks further up: cannot tell.
                guard access("\(gitDirectory)/HEAD", F_OK) == 0,
                      let common = read("\(gitDirectory)/commondir").map({ String(decoding: trimmed($0), as: UTF8.self) }) else { return nil }
                let commonDirectory = common.isEmpty ? gitDirectory : common.utf8.first == UInt8(ascii: "/") ? common : "\(gitDirectory)/\(common)"
                return ["\(commonDirectory)/config", "\(gitDirectory)/config.worktree"]
            }
            guard errno == ENOENT || errno == ENOTDIR, access("\(base)/HEAD", F_OK) != 0, errno == ENOENT || errno == ENOTDIR else { return nil }
            if current == "/" { return [] }
            current = PathText.directory(current)
        }
    }

    /// The first `name` in the directories of `searchPath` that is an executable file, as found and
    /// with its links resolved; nil when there is none, or a relative directory (the current one,
    /// for an empty entry) comes before it.
    static func executable(_ name: String, searchPath: String) -> (path: String, resolved: String)? {
        // On UTF-8 bytes: splitting a String on a Character runs grapheme breaking (0.17 M instructions here).
        for entry in searchPath.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false) {
            guard entry.first == UInt8(ascii: "/") else { return nil }
            let candidate = "\(String(decoding: entry, as: UTF8.self))/\(name)"
            var info = stat()
            guard access(candidate, X_OK) == 0, stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                  let resolved = realpath(candidate, nil) else { continue }
            defer { free(resolved) }
            return (candidate, String(cString: resolved))
        }
        return nil
    }

    /// The bytes of `path` (symlinks followed); empty when it does not exist; nil when it exists
    /// but cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        // Not blocked by a FIFO (O_NONBLOCK); anything but a regular file cannot be told.
        guard let (fd, info) = FileSafety.openForReading(path, followLinks: true) else { return errno == ENOENT || errno == ENOTDIR ? [] : nil }
        defer { close(fd) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// `bytes` without the ASCII white space (and line ends) around it.
    static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[first...last]
    }

    /// Whether `needle` occurs in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}
