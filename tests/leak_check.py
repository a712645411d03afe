"""Finding a secret in what reached the browser, in any form a filter could have missed.

Independent of the extension's own matcher: the text is searched as it is and fully decoded
(JSON ``\\u`` escapes, ``\\/``, URL percent-encoding). Short secrets (under 8 characters)
count as leaked only the way docs/security.md says they are filtered: as a whole token, and a
secret that reads as a JSON number or literal only as a whole quoted string.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


def decoded(text: str) -> str:
    """``text`` with every JSON ``\\u`` escape, ``\\/`` and ``%XX`` decoded."""
    out = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    return unquote(out.replace("\\/", "/"))


def _found(secret: str, text: str) -> bool:
    if len(secret) >= 8:
        return secret in text
    if _SCALAR.fullmatch(secret):
        return f'"{secret}"' in text
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", text) is not None


def leaked(text: str, secrets: list[str] | tuple[str, ...]) -> list[str]:
    """The secrets that occur in ``text`` (raw or decoded)."""
    both = (text, decoded(text))
    return [s for s in secrets if any(_found(s, t) for t in both)]


def response_text(response) -> str:
    """A tornado response's headers and body as one text."""
    headers = "\n".join(f"{k}: {v}" for k, v in response.headers.get_all())
    return headers + "\n\n" + response.body.decode("utf-8", "replace")
