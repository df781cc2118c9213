// Shared by the HTTP-response fuzz targets (compiled into each): the first two input bytes
// choose the status and the Content-Type, the rest is the body.
import AuthEngine
import Foundation

func fuzzHTTPResponse(_ data: UnsafePointer<UInt8>, _ size: Int) -> HTTPResponse {
    let statuses = [200, 200, 200, 400, 401, 500, 302, 429]
    let mediaTypes = ["application/json", "application/json; charset=utf-8", "application/x-www-form-urlencoded",
                      "text/plain", "APPLICATION/JSON", "", "application/jwt", "text/html"]
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let status = size > 0 ? statuses[Int(bytes[0]) % statuses.count] : 200
    let mediaType = size > 1 ? mediaTypes[Int(bytes[1]) % mediaTypes.count] : "application/json"
    var headers = ["content-type": mediaType]
    if status == 429 { headers["retry-after"] = "120" }
    return HTTPResponse(status: status, headers: headers, body: Data(bytes.dropFirst(2)))
}
