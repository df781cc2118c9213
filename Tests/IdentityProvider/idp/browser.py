"""A headless stand-in for a person with a web browser, for the local provider only.

It keeps a cookie jar, signs in through Django's real login form (CSRF token, Origin and
Referer), answers the consent form (allow or deny), the RP-initiated logout confirmation
and the device pages (RFC 8628 user code, accept/deny), and follows redirects only while they
stay on the provider's origin. The first redirect that leaves it (the client's loopback
listener) is fetched with a GET, like a browser would, and that response's status line and
body go to stderr.

It prints nothing on stdout and never prints cookie values, authorization codes, tokens or
query strings: URLs are shown as scheme://host:port/path with parameter names only.

Exit status: 0 when the client's listener answered 2xx (or, for the device pages, when the
grant ended in the state asked for); 1 otherwise; 2 for usage errors.
"""
import http.cookiejar
import os
import sys
import time
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urljoin, urlsplit

import requests

from idp import fixture

MAX_STEPS = 30


def log(message):
    sys.stderr.write(f"browser: {message}\n")
    sys.stderr.flush()


def origin_of(url):
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return (parts.scheme, (parts.hostname or "").lower(), port)


def loggable(url):
    """scheme://host:port/path?names — never parameter values (codes, tokens, state)."""
    parts = urlsplit(url)
    names = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True)]
    shown = f"{parts.scheme}://{parts.netloc}{parts.path}"
    return shown + (f"?{'&'.join(n + '=…' for n in names)}" if names else "")


class Form:
    def __init__(self, attrs):
        self.id = attrs.get("id") or ""
        self.action = attrs.get("action")
        self.method = (attrs.get("method") or "get").lower()
        self.fields = []  # (name, value) of inputs that are always sent
        self.buttons = []  # (name, value, label)
        self.input_names = set()


class PageParser(HTMLParser):
    """Collects forms, the <title> and the first <h1>/<h2> texts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self.headings = []
        self.title = ""
        self._form = None
        self._capture = None
        self._button = None

    def handle_starttag(self, tag, attrs):
        attrs = {key: (value or "") for key, value in attrs}
        if tag == "form":
            self._form = Form(attrs)
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None:
            kind = attrs.get("type", "text").lower()
            name = attrs.get("name")
            if kind == "submit":
                self._form.buttons.append((name, attrs.get("value", ""), attrs.get("value", "")))
            elif name and kind not in ("checkbox", "radio", "button", "reset"):
                self._form.fields.append((name, attrs.get("value", "")))
                self._form.input_names.add(name)
        elif tag == "button" and self._form is not None:
            if attrs.get("type", "submit").lower() == "submit":
                self._button = [attrs.get("name"), attrs.get("value", ""), ""]
        elif tag in ("title", "h1", "h2"):
            self._capture = [tag, ""]

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "button" and self._button is not None and self._form is not None:
            self._form.buttons.append(tuple(self._button))
            self._button = None
        elif self._capture is not None and tag == self._capture[0]:
            text = " ".join(self._capture[1].split())
            if tag == "title":
                self.title = text
            else:
                self.headings.append(text)
            self._capture = None

    def handle_data(self, data):
        if self._capture is not None:
            self._capture[1] += data
        if self._button is not None:
            self._button[2] += data.strip()


class StandIn:
    def __init__(self, username, consent="allow", user_code=None, cookie_jar_path=None, timeout=30.0):
        if username not in fixture.USERS:
            raise ValueError(f"unknown test user {username!r} (known: {', '.join(fixture.USERS)})")
        if consent not in ("allow", "deny"):
            raise ValueError("consent must be allow or deny")
        self.username = username
        self.password = fixture.USERS[username]["password"]
        self.consent = consent
        self.user_code = user_code
        self.deadline = time.monotonic() + timeout
        self.session = requests.Session()
        self.session.trust_env = False  # no proxies, no netrc: tests reach only 127.0.0.1
        self.session.headers["User-Agent"] = "authdeck-test-browser/1 (headless stand-in)"
        self.jar_path = cookie_jar_path
        if cookie_jar_path and os.path.exists(cookie_jar_path):
            jar = http.cookiejar.MozillaCookieJar(cookie_jar_path)
            jar.load(ignore_discard=True, ignore_expires=False)
            for cookie in jar:
                self.session.cookies.set_cookie(cookie)
        self.logins = 0
        self.outcome = None

    def save_jar(self):
        if not self.jar_path:
            return
        jar = http.cookiejar.MozillaCookieJar(self.jar_path)
        for cookie in self.session.cookies:
            jar.set_cookie(cookie)
        fd = os.open(self.jar_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(fd)
        jar.save(ignore_discard=True, ignore_expires=False)

    def request(self, method, url, data=None, referer=None):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the browser stand-in ran out of time")
        headers = {}
        if referer:
            headers["Referer"] = referer
        if method == "POST":
            scheme, host, port = origin_of(url)
            default = {"http": 80, "https": 443}.get(scheme)
            headers["Origin"] = f"{scheme}://{urlsplit(url).netloc}" if port != default else f"{scheme}://{host}"
        response = self.session.request(
            method, url, data=data, headers=headers, allow_redirects=False, timeout=min(15.0, remaining)
        )
        log(f"{method} {loggable(url)} -> {response.status_code}")
        return response

    def run(self, start_url):
        provider = origin_of(start_url)
        method, url, data, referer = "GET", start_url, None, None
        try:
            for _ in range(MAX_STEPS):
                response = self.request(method, url, data, referer)
                if response.is_redirect or response.status_code in (301, 302, 303, 307, 308):
                    location = response.headers.get("Location")
                    if not location:
                        log("a redirect without Location")
                        return 1
                    target = urljoin(url, location)
                    if url == start_url and urlsplit(start_url).path.startswith("/logout-start/"):
                        # The client's own one-time page (sign-out's /logout-start/…) sends the
                        # browser on to the provider, as a browser follows any redirect.
                        provider = origin_of(target)
                    if origin_of(target) != provider:
                        return self.deliver(target, referer=url)
                    method, url, data, referer = "GET", target, None, url
                    continue
                if response.status_code != 200:
                    page = self.parse(response)
                    log(f"the provider answered {response.status_code}: {self.describe(page)}")
                    return 1
                page = self.parse(response)
                step = self.next_step(url, page)
                if isinstance(step, int):
                    return step
                method, url, data = step
                referer = response.url
            log("too many steps")
            return 1
        except (requests.RequestException, TimeoutError) as error:
            log(f"request failed: {type(error).__name__}")
            return 1
        finally:
            self.save_jar()

    @staticmethod
    def parse(response):
        parser = PageParser()
        if "html" in response.headers.get("Content-Type", ""):
            parser.feed(response.text)
        return parser

    @staticmethod
    def describe(page):
        return " / ".join([page.title] + page.headings[:2]).strip(" /") or "(no title)"

    def submit(self, url, form, button=None, extra=None):
        data = list(form.fields)
        if extra:
            data = [(name, value) for name, value in data if name not in extra] + list(extra.items())
        if button is not None and button[0]:
            data.append((button[0], button[1]))
        target = urljoin(url, form.action) if form.action else url
        if form.method != "post":
            log("unexpected GET form")
            return 1
        return ("POST", target, data)

    def next_step(self, url, page):
        path = urlsplit(url).path
        forms = page.forms
        login = next((f for f in forms if "password" in f.input_names), None)
        if login is not None:
            if self.logins >= 1:
                log(f"sign-in as {self.username} was refused")
                return 1
            self.logins += 1
            log(f"signing in as {self.username}")
            return self.submit(url, login, extra={"username": self.username, "password": self.password})

        code_form = next((f for f in forms if "user_code" in f.input_names), None)
        if code_form is not None:
            given = dict(code_form.fields).get("user_code", "")
            code = self.user_code or given
            if not code:
                log("the device page asks for a user code and none was given")
                return 1
            if self.outcome == "code-submitted":
                log(f"the provider refused the user code: {' '.join(page.headings)}")
                return 1
            self.outcome = "code-submitted"
            log("entering the user code")
            return self.submit(url, code_form, extra={"user_code": code})

        device_form = next((f for f in forms if any(b[0] == "action" for b in f.buttons)), None)
        if device_form is not None:
            wanted = "accept" if self.consent == "allow" else "deny"
            button = next(b for b in device_form.buttons if b[0] == "action" and b[1] == wanted)
            log(f"device request: {wanted}")
            return self.submit(url, device_form, button)

        decision = next((f for f in forms if f.id == "authorizationForm"), None)
        if decision is not None:
            allow = next((b for b in decision.buttons if b[0] == "allow"), None)
            cancel = next((b for b in decision.buttons if not b[0]), None)
            what = "logout" if path.rstrip("/").endswith("/logout") else "consent"
            if self.consent == "allow":
                log(f"{what}: allow")
                return self.submit(url, decision, allow)
            log(f"{what}: deny")
            return self.submit(url, decision, cancel)

        headings = " ".join(page.headings)
        if "device-grant-status" in path:
            state = headings.replace("Device", "").strip()
            ok = (state == "Authorized") if self.consent == "allow" else (state == "Denied")
            log(f"device grant: {state}")
            return 0 if ok else 1
        log(f"no form to act on at {loggable(url)}: {self.describe(page)}")
        return 1

    def deliver(self, url, referer):
        log(f"leaving the provider for {loggable(url)}")
        try:
            response = self.session.get(url, allow_redirects=False, timeout=15, headers={"Referer": referer})
        except requests.RequestException as error:
            log(f"the client's listener did not answer: {type(error).__name__}")
            return 1
        reason = response.reason or ""
        sys.stderr.write(f"HTTP {response.status_code} {reason}\n")
        body = response.text
        if len(body) > 4000:
            body = body[:4000] + "\n…"
        sys.stderr.write(body + ("\n" if body and not body.endswith("\n") else ""))
        sys.stderr.flush()
        return 0 if 200 <= response.status_code < 300 else 1


def _log_to_file_if_asked():
    """AUTHDECK_TEST_BROWSER_LOG=FILE: append the log there (0600) instead of stderr, for a
    client under test that owns the terminal (a TUI launching $BROWSER)."""
    path = os.environ.get("AUTHDECK_TEST_BROWSER_LOG")
    if path:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        sys.stderr = os.fdopen(fd, "a", buffering=1)


def browser_main(argv=None):
    _log_to_file_if_asked()
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        sys.stderr.write(
            "usage: browser URL\n"
            "  AUTHDECK_TEST_USER=alice|bob (default alice)\n"
            "  AUTHDECK_TEST_CONSENT=allow|deny (default allow; also answers logout and device pages)\n"
            "  AUTHDECK_TEST_COOKIE_JAR=FILE (optional: keep the provider session between runs)\n"
            "  AUTHDECK_TEST_BROWSER_LOG=FILE (optional: append the log there instead of stderr)\n"
        )
        return 2
    try:
        stand_in = StandIn(
            os.environ.get("AUTHDECK_TEST_USER", "alice") or "alice",
            os.environ.get("AUTHDECK_TEST_CONSENT", "allow") or "allow",
            cookie_jar_path=os.environ.get("AUTHDECK_TEST_COOKIE_JAR") or None,
            timeout=float(os.environ.get("AUTHDECK_TEST_BROWSER_TIMEOUT", "30")),
        )
    except ValueError as error:
        sys.stderr.write(f"browser: {error}\n")
        return 2
    return stand_in.run(argv[0])


def approve_device_main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(
        prog="approve-device",
        description="Sign in on the local provider's device page and approve (or deny) a user code.",
    )
    parser.add_argument("--issuer", required=True, help="the provider's issuer, e.g. http://127.0.0.1:PORT/o")
    parser.add_argument("--user-code", required=True, help="the user_code of the device authorization")
    parser.add_argument("--user", default="alice", choices=sorted(fixture.USERS))
    parser.add_argument("--deny", action="store_true", help="deny instead of approving")
    args = parser.parse_args(argv)
    stand_in = StandIn(args.user, "deny" if args.deny else "allow", user_code=args.user_code)
    return stand_in.run(args.issuer.rstrip("/") + "/device/")
