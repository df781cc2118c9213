"""A fake freedesktop Secret Service (API 0.2) on a private session bus, for the tests.

Run inside `dbus-run-session` (TestSupport's FakeSecretService does), with Debian's python3-gi:

    dbus-run-session -- /usr/bin/python3 fake-secret-service.py --state FILE [options]

Its first line on stdout is `{"address": "<the private bus's address>"}` once it owns
`org.freedesktop.secrets`; after every change it rewrites FILE (JSON: the items' labels and
attributes, whether the default collection is locked, each prompt and how it ended, the method
calls received). Secrets are never written anywhere.

Modes:
  --hang                 owns the name, then never answers anything (a hung daemon)
  --locked               the default collection starts locked: `Unlock` and a `CreateItem` into
                         it return a prompt (Secret Service API §Prompts)
  --prompt-delay SECONDS how long a prompt waits before it completes (a person typing), default 0.2
  --dismiss              every prompt ends with Completed(dismissed=true)
  --parent-pid PID       exit when that process is gone

Objects: the service (/org/freedesktop/secrets), one collection `login` (also at
/org/freedesktop/secrets/aliases/default), its items, sessions ("plain" only) and prompts.
"""

import argparse
import json
import os
import sys
import threading
import time

from gi.repository import Gio, GLib

BUS_NAME = "org.freedesktop.secrets"
SERVICE_PATH = "/org/freedesktop/secrets"
COLLECTION_PATH = "/org/freedesktop/secrets/collection/login"
ALIAS_PATH = "/org/freedesktop/secrets/aliases/default"

INTERFACES = Gio.DBusNodeInfo.new_for_xml("""
<node>
  <interface name="org.freedesktop.Secret.Service">
    <method name="OpenSession">
      <arg name="algorithm" type="s" direction="in"/><arg name="input" type="v" direction="in"/>
      <arg name="output" type="v" direction="out"/><arg name="result" type="o" direction="out"/>
    </method>
    <method name="CreateCollection">
      <arg name="properties" type="a{sv}" direction="in"/><arg name="alias" type="s" direction="in"/>
      <arg name="collection" type="o" direction="out"/><arg name="prompt" type="o" direction="out"/>
    </method>
    <method name="SearchItems">
      <arg name="attributes" type="a{ss}" direction="in"/>
      <arg name="unlocked" type="ao" direction="out"/><arg name="locked" type="ao" direction="out"/>
    </method>
    <method name="Unlock">
      <arg name="objects" type="ao" direction="in"/>
      <arg name="unlocked" type="ao" direction="out"/><arg name="prompt" type="o" direction="out"/>
    </method>
    <method name="Lock">
      <arg name="objects" type="ao" direction="in"/>
      <arg name="locked" type="ao" direction="out"/><arg name="Prompt" type="o" direction="out"/>
    </method>
    <method name="GetSecrets">
      <arg name="items" type="ao" direction="in"/><arg name="session" type="o" direction="in"/>
      <arg name="secrets" type="a{o(oayays)}" direction="out"/>
    </method>
    <method name="ReadAlias">
      <arg name="name" type="s" direction="in"/><arg name="collection" type="o" direction="out"/>
    </method>
    <method name="SetAlias">
      <arg name="name" type="s" direction="in"/><arg name="collection" type="o" direction="in"/>
    </method>
    <property name="Collections" type="ao" access="read"/>
  </interface>
  <interface name="org.freedesktop.Secret.Collection">
    <method name="Delete"><arg name="prompt" type="o" direction="out"/></method>
    <method name="SearchItems">
      <arg name="attributes" type="a{ss}" direction="in"/><arg name="results" type="ao" direction="out"/>
    </method>
    <method name="CreateItem">
      <arg name="properties" type="a{sv}" direction="in"/><arg name="secret" type="(oayays)" direction="in"/>
      <arg name="replace" type="b" direction="in"/>
      <arg name="item" type="o" direction="out"/><arg name="prompt" type="o" direction="out"/>
    </method>
    <signal name="ItemCreated"><arg name="item" type="o"/></signal>
    <signal name="ItemDeleted"><arg name="item" type="o"/></signal>
    <signal name="ItemChanged"><arg name="item" type="o"/></signal>
    <property name="Items" type="ao" access="read"/>
    <property name="Label" type="s" access="readwrite"/>
    <property name="Locked" type="b" access="read"/>
    <property name="Created" type="t" access="read"/>
    <property name="Modified" type="t" access="read"/>
  </interface>
  <interface name="org.freedesktop.Secret.Item">
    <method name="Delete"><arg name="Prompt" type="o" direction="out"/></method>
    <method name="GetSecret">
      <arg name="session" type="o" direction="in"/><arg name="secret" type="(oayays)" direction="out"/>
    </method>
    <method name="SetSecret"><arg name="secret" type="(oayays)" direction="in"/></method>
    <property name="Locked" type="b" access="read"/>
    <property name="Attributes" type="a{ss}" access="readwrite"/>
    <property name="Label" type="s" access="readwrite"/>
    <property name="Created" type="t" access="read"/>
    <property name="Modified" type="t" access="read"/>
  </interface>
  <interface name="org.freedesktop.Secret.Prompt">
    <method name="Prompt"><arg name="window-id" type="s" direction="in"/></method>
    <method name="Dismiss"/>
    <signal name="Completed"><arg name="dismissed" type="b"/><arg name="result" type="v"/></signal>
  </interface>
</node>
""")
SERVICE, COLLECTION, ITEM, PROMPT = (INTERFACES.lookup_interface("org.freedesktop.Secret." + name)
                                     for name in ("Service", "Collection", "Item", "Prompt"))
ERROR_PREFIX = "org.freedesktop.Secret.Error."


class FakeSecretService:
    def __init__(self, connection, options):
        self.connection = connection
        self.options = options
        self.locked = options.locked
        self.items = {}        # path -> {"label", "attributes", "secret": (parameters, value, content type)}
        self.prompts = {}      # path -> {"kind", "outcome", "action"}
        self.sessions = set()
        self.calls = []
        self.counter = 0
        self.created = int(time.time())
        connection.register_object(SERVICE_PATH, SERVICE, self.method_call, self.get_property, None)
        for path in (COLLECTION_PATH, ALIAS_PATH):
            connection.register_object(path, COLLECTION, self.method_call, self.get_property, None)
        self.write_state()

    # The state file: what a test asserts on (never a secret).
    def wrong_reply(self):
        try:
            with open(self.options.wrong_reply_file) as f:
                return f.read().strip()
        except (OSError, TypeError):
            return ""

    def write_state(self):
        state = {
            "locked": self.locked,
            "items": [{"path": path, "label": item["label"], "attributes": item["attributes"]}
                      for path, item in sorted(self.items.items())],
            "prompts": [{"path": path, "kind": prompt["kind"], "outcome": prompt["outcome"]}
                        for path, prompt in sorted(self.prompts.items())],
            "calls": self.calls,
        }
        temporary = self.options.state + ".tmp"
        with open(temporary, "w") as file:
            json.dump(state, file, sort_keys=True)
        os.replace(temporary, self.options.state)

    def next_path(self, prefix):
        self.counter += 1
        return "%s/%d" % (prefix, self.counter)

    # Properties.
    def get_property(self, connection, sender, path, interface, name):
        if interface == SERVICE.name and name == "Collections":
            return GLib.Variant("ao", [COLLECTION_PATH])
        if interface == COLLECTION.name:
            return {
                "Items": lambda: GLib.Variant("ao", sorted(self.items)),
                "Label": lambda: GLib.Variant("s", "Login"),
                "Locked": lambda: GLib.Variant("b", self.locked),
                "Created": lambda: GLib.Variant("t", self.created),
                "Modified": lambda: GLib.Variant("t", self.created),
            }[name]()
        item = self.items.get(path)
        if interface == ITEM.name and item is not None:
            return {
                "Locked": lambda: GLib.Variant("b", self.locked),
                "Attributes": lambda: GLib.Variant("a{ss}", item["attributes"]),
                "Label": lambda: GLib.Variant("s", item["label"]),
                "Created": lambda: GLib.Variant("t", self.created),
                "Modified": lambda: GLib.Variant("t", self.created),
            }[name]()
        return None

    # Method calls.
    def method_call(self, connection, sender, path, interface, method, parameters, invocation):
        self.calls.append("%s.%s" % (interface.rsplit(".", 1)[-1], method))
        # The state file is written before the reply, so that a test reading it once its call
        # returned sees what the call did (dbus-send Lock, then the state: it raced).
        try:
            handler = getattr(self, "%s_%s" % (interface.rsplit(".", 1)[-1], method))
            result = handler(path, *parameters.unpack())
        except ServiceError as error:
            self.write_state()
            invocation.return_dbus_error(error.name, error.message)
        except Exception as error:  # a bug in the fake: say so rather than never answer
            print("fake-secret-service: %s.%s: %r" % (interface, method, error), file=sys.stderr)
            self.write_state()
            invocation.return_dbus_error("org.freedesktop.DBus.Error.Failed", repr(error))
        else:
            self.write_state()
            reply = {
                (SERVICE.name, "OpenSession"): "(vo)", (SERVICE.name, "CreateCollection"): "(oo)",
                (SERVICE.name, "SearchItems"): "(aoao)", (SERVICE.name, "Unlock"): "(aoo)",
                (SERVICE.name, "Lock"): "(aoo)", (SERVICE.name, "GetSecrets"): "(a{o(oayays)})",
                (SERVICE.name, "ReadAlias"): "(o)", (SERVICE.name, "SetAlias"): "()",
                (COLLECTION.name, "Delete"): "(o)", (COLLECTION.name, "SearchItems"): "(ao)",
                (COLLECTION.name, "CreateItem"): "(oo)",
                (ITEM.name, "Delete"): "(o)", (ITEM.name, "GetSecret"): "((oayays))", (ITEM.name, "SetSecret"): "()",
                (PROMPT.name, "Prompt"): "()", (PROMPT.name, "Dismiss"): "()",
            }[(interface, method)]
            if self.wrong_reply() == method:
                # The reply with one string more than the API says ("(vo)" answered as "(vos)"),
                # sent as a raw message: return_value would check it against the introspection.
                message = invocation.get_message().new_method_reply()
                message.set_body(GLib.Variant(reply[:-1] + "s)", tuple(result) + ("extra",)))
                connection.send_message(message, Gio.DBusSendMessageFlags.NONE)
                return
            invocation.return_value(GLib.Variant(reply, result))

    def Service_OpenSession(self, path, algorithm, _input):
        if algorithm != "plain":
            raise ServiceError("org.freedesktop.DBus.Error.NotSupported", "only the plain algorithm")
        session = self.next_path(SERVICE_PATH + "/session")
        self.sessions.add(session)
        return (GLib.Variant("s", ""), session)

    def Service_CreateCollection(self, path, properties, alias):
        raise ServiceError("org.freedesktop.DBus.Error.NotSupported", "the fake has one collection")

    def matching(self, attributes):
        return sorted(path for path, item in self.items.items()
                      if all(item["attributes"].get(name) == value for name, value in attributes.items()))

    def Service_SearchItems(self, path, attributes):
        found = self.matching(attributes)
        return ([], found) if self.locked else (found, [])

    def Service_Unlock(self, path, objects):
        if not self.locked:
            return (objects, "/")
        return ([], self.new_prompt("unlock", lambda: GLib.Variant("ao", objects), GLib.Variant("ao", [])))

    def Service_Lock(self, path, objects):
        self.locked = True
        return (objects, "/")

    def Service_GetSecrets(self, path, items, session):
        if self.locked:
            return ({},)
        return ({item: (session,) + self.items[item]["secret"] for item in items if item in self.items},)

    def Service_ReadAlias(self, path, name):
        return (COLLECTION_PATH if name == "default" else "/",)

    def Service_SetAlias(self, path, name, collection):
        return ()

    def Collection_Delete(self, path):
        raise ServiceError("org.freedesktop.DBus.Error.NotSupported", "the fake keeps its collection")

    def Collection_SearchItems(self, path, attributes):
        return (self.matching(attributes),)

    def Collection_CreateItem(self, path, properties, secret, replace):
        label = properties.get("org.freedesktop.Secret.Item.Label", "")
        attributes = properties.get("org.freedesktop.Secret.Item.Attributes", {})
        _session, parameters, value, content_type = secret

        def create():
            existing = self.matching(attributes) if replace else []
            item = existing[0] if existing else self.next_path(COLLECTION_PATH)
            if not existing:
                self.connection.register_object(item, ITEM, self.method_call, self.get_property, None)
            self.items[item] = {"label": label, "attributes": dict(attributes),
                                "secret": (bytes(parameters), bytes(value), content_type)}
            return item

        if self.locked:
            # A locked collection: the item is created when the prompt unlocks it (API §Prompts).
            return ("/", self.new_prompt("create", lambda: GLib.Variant("o", create()), GLib.Variant("o", "/")))
        return (create(), "/")

    def Item_Delete(self, path):
        if self.locked:
            raise ServiceError(ERROR_PREFIX + "IsLocked", "the collection is locked")
        del self.items[path]
        return ("/",)

    def Item_GetSecret(self, path, session):
        if self.locked:
            raise ServiceError(ERROR_PREFIX + "IsLocked", "the collection is locked")
        if session not in self.sessions:
            raise ServiceError(ERROR_PREFIX + "NoSession", "no such session")
        return ((session,) + self.items[path]["secret"],)

    def Item_SetSecret(self, path, secret):
        raise ServiceError("org.freedesktop.DBus.Error.NotSupported", "not in the fake")

    # Prompts: Prompt() starts the wait; after --prompt-delay it completes (unlocking the
    # collection and running the action) or, with --dismiss, ends dismissed.
    def new_prompt(self, kind, action, empty):
        """`action` makes the result of a completed prompt; `empty` is the dismissed one's (of
        the same type: libsecret checks the type even then)."""
        prompt = self.next_path(SERVICE_PATH + "/prompt")
        self.prompts[prompt] = {"kind": kind, "outcome": "created", "action": action, "empty": empty}
        self.connection.register_object(prompt, PROMPT, self.method_call, None, None)
        return prompt

    def Prompt_Prompt(self, path, window_id):
        prompt = self.prompts[path]
        prompt["outcome"] = "shown"
        GLib.timeout_add(int(self.options.prompt_delay * 1000), self.complete, path)
        return ()

    def Prompt_Dismiss(self, path):
        self.finish(path, True, self.prompts[path]["empty"])
        return ()

    def complete(self, path):
        prompt = self.prompts[path]
        if prompt["outcome"] != "shown":
            return False
        if self.options.dismiss:
            self.finish(path, True, prompt["empty"])
        else:
            self.locked = False
            self.finish(path, False, prompt["action"]())
        self.write_state()
        return False

    def finish(self, path, dismissed, result):
        self.prompts[path]["outcome"] = "dismissed" if dismissed else "completed"
        self.connection.emit_signal(None, path, PROMPT.name, "Completed", GLib.Variant("(bv)", (dismissed, result)))


class ServiceError(Exception):
    def __init__(self, name, message):
        super().__init__(message)
        self.name = name
        self.message = message


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", required=True)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--wrong-reply-file", metavar="FILE",
                        help="a file naming a method (read at each call) to answer with a reply of the wrong type")
    parser.add_argument("--locked", action="store_true")
    parser.add_argument("--dismiss", action="store_true")
    parser.add_argument("--prompt-delay", type=float, default=0.2)
    parser.add_argument("--parent-pid", type=int)
    options = parser.parse_args()
    loop = GLib.MainLoop()
    connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    service = FakeSecretService(connection, options)

    owned = []

    def acquired(_connection, _name):
        owned.append(True)
        print(json.dumps({"address": os.environ["DBUS_SESSION_BUS_ADDRESS"]}), flush=True)
        if options.hang:
            # The bus still takes the calls; nobody ever answers them.
            while True:
                time.sleep(3600)

    def lost(_connection, _name):
        if not owned:  # (losing it when the bus goes away at the end is no news)
            print("fake-secret-service: could not own %s" % BUS_NAME, file=sys.stderr)
        loop.quit()

    Gio.bus_own_name_on_connection(connection, BUS_NAME, Gio.BusNameOwnerFlags.NONE, acquired, lost)
    if options.parent_pid:
        def watch_parent():
            # A thread: in --hang the main loop never runs again.
            while True:
                try:
                    os.kill(options.parent_pid, 0)
                except OSError:
                    os._exit(0)
                time.sleep(1)
        threading.Thread(target=watch_parent, daemon=True).start()
    service.write_state()
    loop.run()
    return 1


if __name__ == "__main__":
    sys.exit(main())
