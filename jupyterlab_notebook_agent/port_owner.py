"""Who runs the server listening on a loopback port (Linux), so discovery offers only trusted ones.

On a machine several people use, any of them can listen on 127.0.0.1:11434 and
pose as Ollama: a found server sees the prompts, cells and outputs sent to it,
and its answers are tool calls the agent acts on. So discovery offers a server
only when it runs as the Jupyter server's own user or as a system account (an
admin-installed service such as the ``ollama`` user of Ollama's Linux
installer). The owner comes from ``/proc/net/tcp`` and ``/proc/net/tcp6``
(the listening socket's uid); where they do not exist (macOS, Windows) the
owner is unknown and the server is offered, as it is to any local program.

The proxy asks again before each request it forwards to a found server
(:func:`trusted_owner`, a read of the two tables: about 9 ms with 460 sockets on
a loaded machine, against the seconds a completion takes; not cached, so that no
window opens after a look): the server found may have stopped and another user's
taken the port. What remains is the moment between that look and the connection.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Accounts below this uid are the system's (Debian's and Red Hat's UID_MIN).
FIRST_USER_UID = 1000

#: Socket addresses that accept connections to 127.0.0.1 (as /proc/net writes them).
_LOOPBACK_V4 = {"0100007F", "00000000"}
_LOOPBACK_V6 = {
    "00000000000000000000000000000000",  # ::
    "0000000000000000FFFF00000100007F",  # ::ffff:127.0.0.1
}
_LISTEN = "0A"


def listener_uids(port: int, proc_net: Path = Path("/proc/net")) -> set[int] | None:
    """The uids of the sockets listening on ``port`` for 127.0.0.1; None when the system does not say."""
    tables = [(proc_net / "tcp", _LOOPBACK_V4), (proc_net / "tcp6", _LOOPBACK_V6)]
    uids: set[int] = set()
    readable = False
    for table, addresses in tables:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        readable = True
        for line in lines:
            fields = line.split()
            if len(fields) < 8 or fields[3] != _LISTEN:
                continue
            address, _, hex_port = fields[1].partition(":")
            if address.upper() in addresses and int(hex_port, 16) == port:
                uids.add(int(fields[7]))
    return uids if readable else None


def trusted_owner(port: int, proc_net: Path = Path("/proc/net")) -> tuple[bool, str]:
    """Whether a server on ``port`` may be offered, and if not, why."""
    uids = listener_uids(port, proc_net)
    if not uids:
        return True, ""  # the system does not say (or the server went away: the probe decides)
    own = os.getuid()
    others = sorted(uid for uid in uids if uid != own and uid >= FIRST_USER_UID)
    if others:
        return False, f"it runs as another user (uid {others[0]})"
    return True, ""
