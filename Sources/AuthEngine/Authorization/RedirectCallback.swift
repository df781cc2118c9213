import FoundationEssentials

/// One HTTP request that reached the loopback redirect listener (RFC 8252 §7.3), as a value.
/// `parameters` are the form-decoded query (GET) or `application/x-www-form-urlencoded` body
/// (POST, `response_mode=form_post`), in order, repeats kept so that they can be refused.
public struct RedirectCallback: Sendable, Equatable {
    public var method: String
    /// The request path without the query, e.g. `/callback`.
    public var path: String
    public var parameters: [(name: String, value: String)]
    /// Who sent the request, as the kernel's socket table says (not compared by `==`): a page
    /// only this user may fetch (sign-out's one-time page, whose answer carries the ID token) is
    /// served to ``RedirectPeer/sameUser`` alone.
    public var peer: RedirectPeer

    public init(method: String, path: String, parameters: [(name: String, value: String)], peer: RedirectPeer = .unknown) {
        self.method = method
        self.path = path
        self.parameters = parameters
        self.peer = peer
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method.exactlyEquals(rhs.method) && lhs.path.exactlyEquals(rhs.path)
            && lhs.parameters.count == rhs.parameters.count
            && zip(lhs.parameters, rhs.parameters).allSatisfy { $0.name.exactlyEquals($1.name) && $0.value.exactlyEquals($1.value) }
    }
}

/// The local user behind a loopback connection: the uid of the connecting socket in
/// `/proc/net/tcp` (or `tcp6`) compared with this process's.
public enum RedirectPeer: Sendable, Equatable {
    case sameUser
    case otherUser
    /// Not found in the socket table (or not read): treated as another user.
    case unknown
}

/// What the listener does with a request: keep waiting (and answer 404, e.g. `/favicon.ico`
/// or a wrong path), answer a page and keep waiting (a page of authdeck's own the browser opens
/// first: the logout form), or finish with a page for the browser and close.
public enum RedirectCallbackVerdict: Sendable, Equatable {
    case ignore
    case respond(page: RedirectPage)
    case finish(page: RedirectPage)
}

/// The small page shown in the browser after the redirect.
public enum RedirectPage: Sendable, Equatable {
    /// "Signed in — you can close this tab and return to the terminal."
    case success(title: String, message: String)
    case failure(title: String, message: String)
    /// A form that POSTs `fields` to `action` when the user presses its button (the listener's
    /// pages run no script): a request whose parameters must not be in a URL, as an end-session
    /// request with its `id_token_hint` (RP-Initiated Logout 1.0 §2 has the provider take POST).
    case postForm(title: String, message: String, action: URL, fields: [FormParameter])
    /// `303 See Other` to `location`: the browser goes on to a URL that must not be in its argv
    /// (an end-session request with its `id_token_hint` where the provider takes GET only).
    case redirect(to: URL)
}
