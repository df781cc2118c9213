"""A fake desktop notification server (Desktop Notifications Specification 1.2) on a private
session bus, for the tests of `authdeck check --notify`. Pure Python D-Bus: jeepney (pinned in
Tests/IdentityProvider/requirements.txt), run with the provider's virtual environment:

    dbus-run-session -- Tests/IdentityProvider/.venv/bin/python fake-notifications.py --record FILE

Its first line on stdout is `{"address": "<the private bus's address>"}` once it owns
`org.freedesktop.Notifications`. Each `Notify` call is appended to FILE as one JSON line:
app_name, replaces_id, app_icon, summary, body, actions, hints (urgency as a number),
expire_timeout, and the id it answered (replaces_id when that is not 0, else the next number).

  --parent-pid PID   exit when that process is gone
"""

import argparse
import json
import os
import sys

from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

NAME = "org.freedesktop.Notifications"
INTERFACE = "org.freedesktop.Notifications"


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", required=True)
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args()

    connection = open_dbus_connection(bus="SESSION")
    reply = connection.send_and_get_reply(message_bus.RequestName(NAME, 4))  # DO_NOT_QUEUE
    if reply.body[0] != 1:  # PRIMARY_OWNER
        sys.exit(f"fake-notifications: could not own {NAME}: {reply.body}")
    print(json.dumps({"address": os.environ["DBUS_SESSION_BUS_ADDRESS"]}), flush=True)

    next_id = 0
    while True:
        try:
            message = connection.receive(timeout=0.5)
        except TimeoutError:
            if args.parent_pid and not alive(args.parent_pid):
                return
            continue
        if message.header.message_type != MessageType.method_call:
            continue
        member = message.header.fields.get(HeaderFields.member)
        interface = message.header.fields.get(HeaderFields.interface)
        if interface not in (INTERFACE, None):
            connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownInterface"))
        elif member == "Notify":
            app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout = message.body
            if replaces_id:
                answered = replaces_id
            else:
                next_id += 1
                answered = next_id
            record = {
                "app_name": app_name, "replaces_id": replaces_id, "app_icon": app_icon, "summary": summary,
                "body": body, "actions": list(actions),
                "hints": {name: value for name, (_signature, value) in hints.items()},
                "expire_timeout": expire_timeout, "id": answered,
            }
            with open(args.record, "a", encoding="utf-8") as file:
                file.write(json.dumps(record) + "\n")
            connection.send(new_method_return(message, "u", (answered,)))
        elif member == "GetCapabilities":
            connection.send(new_method_return(message, "as", (["body"],)))
        elif member == "GetServerInformation":
            connection.send(new_method_return(message, "ssss", ("fake-notifications", "authdeck tests", "1", "1.2")))
        elif member == "CloseNotification":
            connection.send(new_method_return(message))
        else:
            connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod"))


if __name__ == "__main__":
    main()
