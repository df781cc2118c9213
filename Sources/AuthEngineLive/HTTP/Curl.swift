import AuthEngine
import CCurl
import LibraryLoader

/// libcurl's entry points, resolved with `dlopen`/`dlsym` the first time a request is sent (and
/// `curl_global_init` called then, once). Commands that never use the network never load
/// libcurl; a machine without it gets a ``LibraryLoadError`` naming the Debian package.
struct Curl: @unchecked Sendable {
    let globalInit: authdeck_curl_global_init_fn
    let easyInit: authdeck_curl_easy_init_fn
    let easyCleanup: authdeck_curl_easy_cleanup_fn
    let easyPerform: authdeck_curl_easy_perform_fn
    let easyStrerror: authdeck_curl_easy_strerror_fn
    let free: authdeck_curl_free_fn
    let slistAppend: authdeck_curl_slist_append_fn
    let slistFreeAll: authdeck_curl_slist_free_all_fn
    let url: authdeck_curl_url_fn
    let urlCleanup: authdeck_curl_url_cleanup_fn
    let urlGet: authdeck_curl_url_get_fn
    let urlSet: authdeck_curl_url_set_fn
    /// `curl_easy_setopt` / `curl_easy_getinfo` (variadic: called through the shim's wrappers).
    let setopt: UnsafeMutableRawPointer
    let getinfo: UnsafeMutableRawPointer

    /// Opens `spec` and resolves every function; does not call `curl_global_init`.
    static func load(_ spec: LibrarySpec = .curl) throws(LibraryLoadError) -> Curl {
        let library = try DynamicLibrary.open(spec)
        return Curl(
            globalInit: try library.function("curl_global_init"),
            easyInit: try library.function("curl_easy_init"),
            easyCleanup: try library.function("curl_easy_cleanup"),
            easyPerform: try library.function("curl_easy_perform"),
            easyStrerror: try library.function("curl_easy_strerror"),
            free: try library.function("curl_free"),
            slistAppend: try library.function("curl_slist_append"),
            slistFreeAll: try library.function("curl_slist_free_all"),
            url: try library.function("curl_url"),
            urlCleanup: try library.function("curl_url_cleanup"),
            urlGet: try library.function("curl_url_get"),
            urlSet: try library.function("curl_url_set"),
            setopt: try library.symbol("curl_easy_setopt"),
            getinfo: try library.symbol("curl_easy_getinfo"))
    }

    /// The process's libcurl, loaded and globally initialised once.
    static let shared: Result<Curl, LibraryLoadError> = Result { () throws(LibraryLoadError) -> Curl in
        let curl = try load()
        let code = curl.globalInit(authdeck_curl_global_default())
        precondition(code == CURLE_OK, "curl_global_init failed")
        return curl
    }

    /// ``shared``, or a ``TransportError/connection(url:detail:)`` for `url` with the loader's
    /// message (which library, which Debian package).
    static func loaded(for url: String) throws(TransportError) -> Curl {
        switch shared {
        case .success(let curl): return curl
        case .failure(let error): throw .connection(url: url, detail: error.description)
        }
    }
}
