import Foundation
import Testing
@testable import AuthEngine

/// Inputs the fuzz targets (Tests/Fuzz, `scripts/fuzz`) crashed on, fed to the same functions.
@Suite("Fuzzing regressions: inputs that crashed a fuzz target")
struct FuzzRegressionTests {
    private static let expectEmptyMediaType = AuthError.protocolViolation(.unexpectedContentType(expected: "application/json", actual: ""))

    @Test("An empty Content-Type is the empty media type, not a trap (fuzz target token: crash-d6fab8cf)")
    func emptyContentTypeTokenResponse() {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": ""], body: Data("ncodableptare".utf8))
        #expect(response.mediaType == "")
        #expect(throws: Self.expectEmptyMediaType) { try parseTokenResponse(response, now: Date(timeIntervalSince1970: 0)) }
    }

    @Test("An empty Content-Type on a discovery document is refused as the wrong content type (fuzz target discovery)")
    func emptyContentTypeDiscovery() {
        let body = Data(#"{"issuer":"https://op.example","response_types_supported":["code"]}"#.utf8)
        let response = HTTPResponse(status: 200, headers: ["content-type": ""], body: body)
        #expect(throws: Self.expectEmptyMediaType) {
            try Discovery.processResponse(response, expectedIssuer: "https://op.example")
        }
    }

    @Test("A Content-Type starting with ';' is not read as the media type after it")
    func parametersOnlyContentType() {
        #expect(HTTPResponse(status: 200, headers: ["content-type": "; application/json"]).mediaType == "")
        #expect(HTTPResponse(status: 200, headers: ["content-type": ";"]).mediaType == "")
        #expect(HTTPResponse(status: 200, headers: ["content-type": " Application/JSON ; charset=utf-8"]).mediaType == "application/json")
        let response = HTTPResponse(status: 200, headers: ["content-type": ";application/json"], body: Data(#"{"access_token":"a"}"#.utf8))
        #expect(throws: Self.expectEmptyMediaType) { try parseTokenResponse(response, now: Date(timeIntervalSince1970: 0)) }
    }
}
