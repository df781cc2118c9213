import Foundation

let version = "0.1.0"
let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--version" {
    print("authdeck \(version)")
} else {
    print("""
    authdeck \(version): a terminal account and session manager for OAuth 2.0 and OpenID Connect.

    USAGE: authdeck [--version] [--help]
    """)
}
