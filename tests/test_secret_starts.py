"""The start of a secret at the end of a text (secret_starts.py), against its definition written out plainly.

``SecretStarts`` answers most ends from two sets (a secret's first characters, the pairs of characters that
follow each other in one) before its searches: a differential test over random texts built from the secrets'
own pieces checks that the quick answer never says "no" where the definition says "yes", for text and for
UTF-8 bytes, short secrets (the token rule), secrets counted whole, long ones and ``\\r\\n`` forms.
"""

from __future__ import annotations

import random

from jupyterlab_notebook_agent.secret_starts import LIMIT, SecretStarts

SECRETS = ["b7x2", "ab", "sk-proj-0123456789", "org-Größe-€-😀", "line-one\nline-two", "L" + "q7/Zk+" * 20]
SHORT = {"b7x2", "ab"}
WHOLE = {"b7x2"}  # "ab" is short too but, like a JSON scalar, counts only as a real prefix


def _token_start(before: str) -> bool:
    return not before or (before[-1].isascii() and not before[-1].isalnum())


def expected(text: str) -> int:
    """The longest end of ``text`` that starts a secret: a real prefix (or the whole, where it counts whole) of
    either line-end form, at the start of a token for a short secret."""
    best = 0
    for secret in SECRETS:
        for form in {secret, secret.replace("\n", "\r\n")}:
            for length in range(1, len(form) + 1):
                if length == len(form) and secret not in WHOLE:
                    continue
                if not text.endswith(form[:length]):
                    continue
                if secret in SHORT and not _token_start(text[: len(text) - length]):
                    continue
                best = max(best, length)
    return best


def test_the_quick_answer_agrees_with_the_definition():
    assert any(len(s) > LIMIT for s in SECRETS)  # the long secrets' search is covered too
    starts = SecretStarts(SECRETS, SHORT, WHOLE)
    pieces = [s[i:j] for s in SECRETS for i in (0, 1, 3) for j in (2, 5, 9, len(s) - 1, len(s))]
    pieces += ["x", " ", "é", "\r", "\n", "-", "s", "q7/Zk+", "0", "Größe", ""]
    rng = random.Random(5)
    said_yes = 0
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 4)))
        want = expected(text)
        assert starts.in_text(text) == want, text
        data = b"{" + text.encode("utf-8") + b'"'
        assert starts.in_bytes(data, 1, len(data) - 1) == (want > 0), text
        said_yes += want > 0
    assert said_yes > 2_000  # the texts end in a secret's start often enough for the test to mean something
