// The loopback listener's request parsing and its small result page (RFC 8252 §7.3 callbacks).
import AuthEngine
import Dispatch
import FoundationEssentials
import Synchronization
import TextSupport

/// A minimal HTTP/1.x request parser for the redirect: request line, headers, and a
/// `Content-Length` body.
enum HTTPRequestParser {
    enum Result: Equatable {
        case incomplete
        case invalid(status: String)
        /// A whole request, with its `Host` header when sent.
        case complete(RedirectCallback, host: String?)
    }

    static func parse(_ bytes: [UInt8]) -> Result {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headerEnd = bytes.firstRange(of: separator) else { return .incomplete }
        let head = String(decoding: bytes[..<headerEnd.lowerBound], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return .invalid(status: "400 Bad Request") }
        let method = String(requestLine[0])
        var target = String(requestLine[1])

        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return .invalid(status: "400 Bad Request") }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingWhitespace()
        }

        // Absolute-form targets (`http://127.0.0.1:port/callback?...`) from proxies: keep path + query.
        if !target.hasPrefix("/") {
            guard let components = URLComponents(string: target) else { return .invalid(status: "400 Bad Request") }
            target = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
                + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        }
        let pathEnd = target.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? target.endIndex
        let path = String(target[..<pathEnd])
        var query = ""
        if pathEnd < target.endIndex, target[pathEnd] == "?" {
            let rest = target[target.index(after: pathEnd)...]
            query = String(rest.prefix(while: { $0 != "#" }))
        }

        switch method {
        case "GET":
            // The one form codec (AuthEngine's): an invalid percent-escape makes the request malformed.
            guard let parameters = FormEncoding.decode(query) else { return .invalid(status: "400 Bad Request") }
            return .complete(RedirectCallback(method: method, path: path, parameters: parameters.map { ($0.name, $0.value) }), host: headers["host"])
        case "POST":
            if headers["transfer-encoding"] != nil { return .invalid(status: "411 Length Required") }
            guard let lengthText = headers["content-length"] ?? (query.isEmpty ? "0" : nil), let length = Int(lengthText), length >= 0 else {
                return .invalid(status: "411 Length Required")
            }
            let body = bytes[headerEnd.upperBound...]
            guard body.count >= length else { return .incomplete }
            let mediaType = headers["content-type"]?.split(separator: ";").first?.trimmingWhitespace().lowercased()
            var parameters: [FormParameter] = []
            if mediaType == "application/x-www-form-urlencoded" {
                guard let decoded = FormEncoding.decode(String(decoding: body.prefix(length), as: UTF8.self)) else {
                    return .invalid(status: "400 Bad Request")
                }
                parameters = decoded
            }
            return .complete(RedirectCallback(method: method, path: path, parameters: parameters.map { ($0.name, $0.value) }), host: headers["host"])
        default:
            return .invalid(status: "405 Method Not Allowed")
        }
    }
}

/// The small self-contained page shown after the redirect; every string is HTML-escaped.
enum RedirectPageHTML {
    static func render(_ page: RedirectPage) -> String {
        let (title, message, accent): (String, String, String)
        var form = ""
        switch page {
        case .success(let pageTitle, let pageMessage): (title, message, accent) = (pageTitle, pageMessage, "#1a7f37")
        case .failure(let pageTitle, let pageMessage): (title, message, accent) = (pageTitle, pageMessage, "#cf222e")
        case .postForm(let pageTitle, let pageMessage, let action, let fields):
            (title, message, accent) = (pageTitle, pageMessage, "#0969da")
            let inputs = fields.map { "<input type=\"hidden\" name=\"\(escape($0.name))\" value=\"\(escape($0.value))\">" }.joined()
            form = "\n<form method=\"post\" action=\"\(escape(action.absoluteString))\">\(inputs)"
                + "<p><button type=\"submit\">Sign out</button></p></form>"
        case .redirect:
            (title, message, accent) = ("Continuing to the provider", "Your browser goes on to the provider's page.", "#0969da")
        }
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) · authdeck</title>
        <style>
        body { font-family: system-ui, sans-serif; margin: 0; min-height: 100vh; display: flex; align-items: center; \
        justify-content: center; background: #f6f8fa; color: #1f2328; }
        main { max-width: 32rem; padding: 2rem; border-top: 4px solid \(accent); background: #fff; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
        h1 { font-size: 1.4rem; margin: 0 0 .75rem; }
        p { margin: 0; line-height: 1.5; }
        </style>
        </head>
        <body>
        <main>
        <h1>\(escape(title))</h1>
        <p>\(escape(message))</p>\(form)
        </main>
        </body>
        </html>

        """
    }

    /// Escapes `& < > " '` for element content and attribute values.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
