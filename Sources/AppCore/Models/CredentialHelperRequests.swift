import FoundationEssentials
import Secrets
import TextSupport

// The requests of the two credential-helper protocols authdeck answers: git's (gitcredentials(7),
// git-credential(1)) and docker's (docker-credential-helpers). Both arrive on stdin from another
// program, so they are parsed strictly and bounded; this file depends on nothing else of AppCore
// (the `loopback` fuzz target compiles it into itself, Tests/Fuzz/Loopback.swift).

/// What a password in a credential request is (git's `erase` sends the rejected token).
public enum HelperPasswordKind: SecretKind { public static let label = "HelperPassword" }
/// A password received from a credential request: redacted in every description.
public typealias HelperPassword = Redacted<HelperPasswordKind>

/// One git credential request (git-credential(1) "INPUT/OUTPUT FORMAT"): `key=value` lines up to
/// a blank line or the end of input. Unknown keys are ignored, as git asks of helpers; a key given
/// twice keeps its last value (git's rule), `capability[]` and other `[]` keys collect.
public struct GitCredentialRequest: Equatable, Sendable {
    /// `protocol` (`https`, `http`).
    public var protocolName: String?
    /// `host`: `host` or `host:port`.
    public var host: String?
    /// `path` (sent only with `credential.useHttpPath`).
    public var path: String?
    /// `username`, from the remote URL (`https://alice@host/…`) or an earlier helper.
    public var username: String?
    /// `password`: with `erase`, the credential the server rejected.
    public var password: HelperPassword?
    /// `capability[]` values (`authtype`, `state`: git ≥ 2.46).
    public var capabilities: [String] = []

    public init(protocolName: String? = nil, host: String? = nil, path: String? = nil, username: String? = nil,
                password: HelperPassword? = nil, capabilities: [String] = []) {
        self.protocolName = protocolName
        self.host = host
        self.path = path
        self.username = username
        self.password = password
        self.capabilities = capabilities
    }

    /// At most this many bytes are read (git's requests are a few hundred).
    public static let maximumSize = 65_536

    /// Whether the requester takes `authtype` and `credential` (a `Bearer` header) instead of a password.
    public var takesAuthtype: Bool { capabilities.contains { $0.utf8.elementsEqual("authtype".utf8) } }

    /// Parses `bytes` (everything read from stdin).
    /// - Throws: ``CredentialRequestError`` naming the line and what is wrong with it.
    public static func parse(_ bytes: some Collection<UInt8>) throws(CredentialRequestError) -> GitCredentialRequest {
        guard bytes.count <= maximumSize else { throw .tooLong(maximum: maximumSize) }
        var request = GitCredentialRequest()
        var number = 0
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            if rawLine.isEmpty { break }
            guard !rawLine.contains(0) else { throw .badLine(number, "contains a NUL byte") }
            guard let line = String(validating: rawLine, as: UTF8.self) else { throw .badLine(number, "is not UTF-8") }
            guard let equals = line.utf8.firstIndex(of: UInt8(ascii: "=")) else { throw .badLine(number, "has no '=' (expected key=value)") }
            let key = String(line[..<equals])
            let value = String(line[line.index(after: equals)...])
            guard !key.isEmpty else { throw .badLine(number, "has an empty key") }
            switch key {
            case "protocol": request.protocolName = value
            case "host": request.host = value
            case "path": request.path = value
            case "username": request.username = value
            case "password": request.password = HelperPassword(value)
            case "capability[]": request.capabilities.append(value)
            case "url":
                // git-credential(1): `url` stands for the parts it names; the rest are cleared.
                guard let url = HelperURL(value) else { throw .badLine(number, "has a url= that is not scheme://host/…") }
                request.protocolName = url.scheme
                request.host = url.host
                request.username = url.username
                request.path = url.path
            default: continue
            }
        }
        return request
    }
}

/// Why a credential request was refused.
public enum CredentialRequestError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLong(maximum: Int)
    /// Line `number` and what is wrong with it.
    case badLine(Int, String)
    /// The docker request is not a server URL.
    case badServerURL(String)

    public var description: String {
        switch self {
        case .tooLong(let maximum): "the request is longer than \(maximum) bytes"
        case .badLine(let number, let problem): "line \(number) of the request \(problem)"
        case .badServerURL(let problem): "the server URL \(problem)"
        }
    }
}

/// `scheme://[user@]host[:port][/path]` (git's `url=`), split as RFC 3986 §3 splits it by
/// ``URIParts`` — the one parser of both helpers' requests — without percent-decoding (hosts
/// are compared as sent). Not a URI (a `\\`, a space, two `@`, a `%` in the host): nil.
public struct HelperURL: Equatable, Sendable {
    /// Lower case (RFC 3986 §3.1).
    public var scheme: String
    public var username: String?
    /// `host` or `host:port`, the host in lower case (§3.2.2).
    public var host: String
    /// The path without its leading `/` (nil when empty); no query, no fragment.
    public var path: String?

    public init?(_ text: String) {
        guard let parts = URIParts(text) else { return nil }
        scheme = parts.scheme
        username = parts.userinfo
        host = parts.hostAndPort
        let path = parts.path.drop { $0 == "/" }
        self.path = path.isEmpty ? nil : String(path)
    }
}

/// A docker credential helper request (docker-credential-helpers: `get` and `erase` read the
/// server URL on stdin): `https://registry.example.com`, `registry.example.com:5000/v2`, or
/// Docker Hub's `https://index.docker.io/v1/`.
public struct DockerCredentialRequest: Equatable, Sendable {
    /// The server URL as received (trimmed): echoed back as `ServerURL`.
    public var serverURL: String
    /// The host (`host` or `host:port`, lower case) the URL's authority names (RFC 3986 §3.2).
    public var host: String
    /// `https` or `http`, lower case (RFC 3986 §3.1: `HTTP://` is `http://`); `https` when the URL names none.
    public var scheme: String

    /// - Throws: ``CredentialRequestError`` (empty, too long, a line break or control character inside, no host).
    public static func parse(_ bytes: some Collection<UInt8>) throws(CredentialRequestError) -> DockerCredentialRequest {
        guard bytes.count <= 4096 else { throw .tooLong(maximum: 4096) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .badServerURL("is not UTF-8") }
        let trimmed = text.trimmingPrefix { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        var end = trimmed.endIndex
        while end > trimmed.startIndex, let last = trimmed[..<end].last, last == " " || last == "\t" || last == "\n" || last == "\r" {
            end = trimmed.index(before: end)
        }
        let serverURL = String(trimmed[..<end])
        guard !serverURL.isEmpty else { throw .badServerURL("is empty") }
        guard !serverURL.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .badServerURL("contains a line break or control character")
        }
        let url = serverURL.contains("://") ? HelperURL(serverURL) : HelperURL("https://" + serverURL)
        guard let url, url.username == nil, url.scheme.utf8.elementsEqual("https".utf8) || url.scheme.utf8.elementsEqual("http".utf8) else {
            throw .badServerURL("is not a registry host or an http(s) URL")
        }
        return DockerCredentialRequest(serverURL: serverURL, host: url.host, scheme: url.scheme)
    }
}
