"""The outbound filter's look across SSE events: a key a model streams in pieces (issue #35, D4).

A streamed answer's client joins the text of its events: the chat view a choice's ``delta.content``,
inline completion a completion's ``text`` as ghost text, the agent a tool call's
``function.arguments``. An upstream that streams a key as two, three or ten deltas, or one character
per delta, or ``\\u``-escaped across them, puts it whole on the screen though no event holds it, and
the scrubber (which sees one event at a time, :mod:`.redaction`) passes each piece.

:class:`DeltaScrubber` keeps a look-behind per choice and field of the decoded delta text: the end of a
field that is the start of a secret (``SecretMatcher.pending_prefix``: raw or in escapes, at most the
longest secret's length) is taken out of its event and put before the next delta of the same choice
and field, where the two are redacted together (``SecretMatcher.split_text``); an event that changes
is written again as JSON. What is still held when that choice finishes goes into its finishing event;
at ``[DONE]``, at the end of the stream or when it breaks, into events of its own.

Speed: most events hold nothing to take out and nothing is held. For those the events pass as they
are, after one look at the raw bytes: each joined field's string is found by its key (one search for
a quote), and only its last :attr:`~.redaction.SecretMatcher.look_behind` bytes are decoded and looked
at (bench/proxy_filter.py). Only an event with something to hold, or after one, is parsed, and one with
a ``\\u`` escape outside the joined fields' strings: a key written in escapes (``"\\u0063ontent"``) is
the same key to the client, and only the parse reads it so.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring
from typing import Any

from .redaction import REDACTED, SecretMatcher
from .sse_relay import EVENT_END, event_ends
from .tool_call_grouping import ToolCallGrouping, js_number

_KEYS = rb'"(?:content|text|arguments|reasoning_content|reasoning|refusal)"'

#: A joined field's key and the opening quote of its string value, in events of one line each (LF line ends).
_FIELD = re.compile(_KEYS + rb'\s*:\s*"')

#: The same where lines end with a CR: a data line may break between key and value (``data:`` again), and colon
#: and quote are optional, so that a key whose value does not follow as expected is still found: a line SSE readers
#: skip (a comment, ``id:``) between key and value, or a value that is not a string. Each part matches one way only.
_FIELD_CR = re.compile(_KEYS + rb'(?:\s|data:)*(?P<colon>:(?:\s|data:)*(?P<quote>")?)?')

_LINE = re.compile(r"\r\n|\n|\r")

#: An event with tool calls is always parsed: which call a fragment joins depends on the calls before it
#: (tool_call_grouping.py). Searched for outside the joined fields' strings only (a search of a whole 64 KB event
#: costs ~25 µs, a fifth of what the proxy spends on it).
_TOOL_CALLS = b'"tool_calls"'

#: The last bytes of an escape in JSON text, whole or cut off (``\\u00``, ``\\x``, ``\\\\``).
_ESCAPE_ENDS = b"0123456789abcdefABCDEFnrtbf/\"'\\uUx"

#: JSON's short escapes that stand for one character (not ``\\``, which may begin a deeper escape; not ``\u``).
_SHORT_ESCAPES = {
    ord("n"): "\n",
    ord("r"): "\r",
    ord("t"): "\t",
    ord("b"): "\b",
    ord("f"): "\f",
    ord('"'): '"',
    ord("/"): "/",
}

#: (choice, what a client joins in it), e.g. ``(0, ("delta", "content"))``, ``(0, ("tool", 1))``: see
#: :func:`_joined_fields`. A choice is its ``index`` (any number: ``1.0`` is ``1``, as in JavaScript) or, without
#: one, its place in the event.
Key = tuple[Any, tuple[Any, ...]]


class DeltaScrubber:
    """One streamed answer's look-behind across its events (see the module's docstring)."""

    def __init__(self, matcher: SecretMatcher) -> None:
        self.matcher = matcher
        self._active = bool(matcher)
        self._held: dict[Key, str] = {}
        #: Where held text goes back when it comes out on its own (:meth:`flush`): its choice and field path.
        self._where: dict[Key, tuple[Any, tuple[Any, ...]]] = {}
        #: For a field whose choice finished (what it held went out with it), the end of what the client has: text
        #: that still follows (a hostile upstream; clients keep joining) is looked at after it (:meth:`_after_sent`).
        self._sent: dict[Key, str] = {}
        #: Per choice, its tool calls as the reader groups the fragments (by index, id and name; see
        #: tool_call_grouping.py). Every event with a tool call is parsed, so that this follows the whole stream.
        self._calls: dict[Any, ToolCallGrouping] = {}
        #: The last event parsed, without its choices: the frame of an event that carries held text alone.
        self._frame: dict[str, Any] = {}
        #: The bytes a JSON string can end with when it ends with the start of a secret: the secrets' own
        #: bytes, the last byte of an escape (a hex digit, a short escape's letter) and of a cut-off one.
        self._last_bytes = frozenset(b"".join(s.encode() for s in matcher.secrets) + _ESCAPE_ENDS)
        #: The letters of JSON's short escapes whose character no secret holds (``n`` unless one has a line break):
        #: a string that ends with such a character has no start of a secret at its end.
        chars = set("".join(matcher.secrets))
        if "\n" in chars:
            chars.add("\r")  # a secret's line breaks are matched as CR LF too (redaction.py)
        self._clean_escape_ends = frozenset(letter for letter, char in _SHORT_ESCAPES.items() if char not in chars)

    def feed(self, events: bytes) -> bytes:
        """Whole SSE events in; the events to send now (held text taken out or put back in)."""
        if not self._active or (not self._held and not self._sent and not self._may_hold(events)):
            return events
        return b"".join(self._event(event) for event in _split(events))

    def flush(self) -> bytes:
        """What is held, as events of its own: the stream ended or broke, or an event too long to hold goes on
        unread (proxy_handler.py). The client then has it: text that still follows is looked at after it."""
        if not self._held:
            return b""
        by_choice: dict[Any, dict[str, Any]] = {}
        for key, text in self._held.items():
            index, path = self._where[key]
            choice = by_choice.setdefault(index, {"index": index})
            _put(choice, _fresh(path), text, append=True)
            self._sent[key] = (self._sent.get(key, "") + text)[-self.matcher.look_behind :]
        self._held.clear()
        events = []
        for choice in by_choice.values():
            choice.setdefault("finish_reason", None)
            events.append(_data({**self._frame, "choices": [choice]}, "\n\n"))
        return b"".join(events)

    # -- the look at the raw bytes -----------------------------------------------------------------------------

    def _may_hold(self, events: bytes) -> bool:
        """Whether a joined field's string in ``events`` ends with what may be the start of a secret."""
        # Every joined field is inside a choice: the search starts at the first ``"choices"`` key.
        pos, starts_secret = max(events.find(b'"choices"'), 0), self.matcher.starts.in_bytes
        # A key can be written in escapes (``"\u0063ontent"`` is ``"content"`` to every JSON parser), which the
        # search for the fields' names misses: a ``\u`` anywhere outside the fields' own strings (the keys, the
        # other values: a few bytes an event) sends the event to the parse, which decodes it as the client will.
        outside, find = 0, events.find
        # Nearly every stream: LF line ends, each event one data line. An event of more lines (its JSON over several
        # data lines, or a line readers skip inside it: a comment or ``id:`` between a key and its value, or one
        # holding a decoy ``"content":"`` whose "string" would run into the real field) goes to the parse.
        cr = find(b"\r") >= 0
        if not cr and not _one_line_events(events):
            return True
        search = _FIELD_CR.search if cr else _FIELD.search
        while (match := search(events, pos)) is not None:
            if find(b"\\u", outside, match.start()) >= 0 or find(_TOOL_CALLS, outside, match.start()) >= 0:
                return True
            start = match.end()
            if cr:  # lines may end anywhere: see _FIELD_CR
                if match["colon"] is None or match["quote"] is None:
                    if _line_break(events, match.start(), start):
                        return True  # a line between key and value that is not data (a comment): look properly
                    pos = start  # a string that is not a key, or a value that is not a string (``null``)
                    continue
            end = _closing_quote(events, start)  # memchr: the text itself is never scanned by an expression
            if end < 0 or (cr and _line_break(events, match.start(), end)):
                # Not JSON as expected: a JSON string never holds a raw line break, so this "string" began in a
                # line SSE readers skip (``: "content":"``) and may hide the real field: look properly.
                return True
            pos = outside = end + 1
            if end == start or events[end - 1] not in self._last_bytes:
                continue
            if events[end - 1] in self._clean_escape_ends and _escaped_at(events, end - 1, start):
                continue  # ends with a character no secret holds (code's "\n"): nothing of a secret can be pending
            if events.find(b"\\", max(start, end - self.matcher.look_behind - 16), end) >= 0:
                if self._escaped_tail_pending(events, start, end):
                    return True
                continue
            if starts_secret(events, start, end):  # no escape: the JSON is the text's UTF-8
                return True
        return find(b"\\u", outside) >= 0 or find(_TOOL_CALLS, outside) >= 0

    def _escaped_tail_pending(self, events: bytes, start: int, end: int) -> bool:
        """Whether the JSON string ``events[start:end]``, escapes and all, ends with the start of a secret."""
        tail = events[max(start, end - self.matcher.look_behind - 16) : end]
        for shift in range(16):  # a cut inside an escape or a character: start a little later
            try:
                text = json.loads(b'"' + tail[shift:] + b'"')
            except ValueError:
                continue
            return bool(self.matcher.pending_prefix(text)) or _high_surrogate_end(text)
        return True

    # -- one event, parsed ---------------------------------------------------------------------------------------

    def _event(self, event: bytes) -> bytes:
        text = event.decode("utf-8", "surrogateescape").rstrip("\r\n")
        lines = _LINE.split(text) if "\r" in text else text.split("\n")
        if "\ufeff" in text:
            # openai-node decodes each line on its own with a TextDecoder, which drops a byte order mark that
            # starts it: ``\ufeffdata: {...}`` is a data line to the client.
            lines = [line[1:] if line.startswith("\ufeff") else line for line in lines]
        data = "\n".join(_value(line) for line in lines if line == "data" or line.startswith("data:"))
        if data.strip() == "[DONE]":
            return self.flush() + event
        try:
            # Integers of any length, as JavaScript reads them (Python's own limit, 4300 digits, would make this
            # event pass unread while the client joins its text).
            parsed = json.loads(data, parse_int=_int) if data else None
        except ValueError:
            return event
        if not isinstance(parsed, dict) or not isinstance(parsed.get("choices"), list):
            return event
        self._frame = {k: v for k, v in parsed.items() if k not in ("choices", "usage")}
        changed = False
        for position, choice in enumerate(parsed["choices"]):
            if isinstance(choice, dict):
                changed = self._choice(choice, position) or changed
        if not changed:
            return event
        other = [line for line in lines if line and not (line == "data" or line.startswith("data:"))]
        return "".join(f"{line}\n" for line in other).encode("utf-8", "surrogateescape") + _data(parsed, "\n\n")

    def _choice(self, choice: dict[str, Any], position: int) -> bool:
        """Hold and put back the joined fields of one choice; whether it changed."""
        index = js_number(choice.get("index"))  # as the client reads it: 2**53 + 1 is 2**53
        index = position if index is None else index
        changed = False
        here: dict[Key, tuple[Any, ...]] = {}  # where each field is in this event
        for joined_as, path, text in _joined_fields(choice, self._calls.setdefault(index, ToolCallGrouping())):
            key = (index, joined_as)
            here[key] = path
            held = self._held.pop(key, "")
            if held and _high_surrogate_end(held):  # the pair's second half: one character, as the client reads it
                held, text = "", _paired(held + text)
            if key in self._sent:  # its choice finished before: the client has the end of it already
                sent, keep = self.matcher.split_text("", self._after_sent(key, held + text))
            else:
                sent, keep = self.matcher.split_text(held, text)
            if _high_surrogate_end(sent):
                # Half of a character, whose other half comes next: with the start of a secret before it, if any.
                cut = len(sent) - 1 - self.matcher.pending_prefix(sent[:-1])
                sent, keep = sent[:cut], sent[cut:] + keep
            if keep:
                self._held[key] = keep
                self._where[key] = (index, path)
            if key in self._sent:
                self._sent[key] = (self._sent[key] + sent)[-self.matcher.look_behind :]
            if sent != text:
                _put(choice, path, sent)
                changed = True
        if choice.get("finish_reason") is not None:  # its last event: what it still holds goes with it
            for key in [k for k in self._held if k[0] == index]:
                text = self._held.pop(key)
                _put(choice, here.get(key) or _fresh(self._where[key][1]), text, append=True)
                self._sent[key] = text[-self.matcher.look_behind :]
                changed = True
        return changed

    def _after_sent(self, key: Key, text: str) -> str:
        """``text`` that follows what the client has of a field (``self._sent``), with a secret across the two
        redacted from ``text``: its start went out already; the rest does not."""
        before = self._sent[key].encode("utf-8", "surrogatepass")
        data = before + text.encode("utf-8", "surrogatepass")
        if not self.matcher.candidates(data):
            return text
        across = [end for start, end in self.matcher.spans(data) if start < len(before) < end]
        if not across:
            return text
        return REDACTED.decode() + data[max(across) :].decode("utf-8", "surrogatepass")


def _split(events: bytes) -> list[bytes]:
    """Whole events, each with its empty line."""
    pieces, last = [], 0
    if b"\r" not in events:  # LF line ends, nearly every stream: memchr, not an expression over the text
        for end in event_ends(events):
            pieces.append(events[last:end])
            last = end
    else:
        for match in EVENT_END.finditer(events):
            pieces.append(events[last : match.end()])
            last = match.end()
    if last < len(events):
        pieces.append(events[last:])
    return pieces


def _value(line: str) -> str:
    """A data line's value (SSE: after the colon, one space dropped)."""
    value = line[5:] if line.startswith("data:") else ""
    return value[1:] if value.startswith(" ") else value


def _line_break(data: bytes, start: int, end: int) -> bool:
    """Whether ``data[start:end]`` holds a line break (memchr only)."""
    return data.find(b"\n", start, end) >= 0 or data.find(b"\r", start, end) >= 0


def _one_line_events(events: bytes) -> bool:
    """Whether each event of ``events`` (LF line ends) is one line and its blank line: each LF is one of a pair."""
    first = events.find(b"\n")
    if 0 <= first < 4096:  # short events: two counts over the bytes beat a Python step per line
        return events.count(b"\n") == 2 * events.count(b"\n\n")
    pos, last = first, len(events) - 1  # long ones: a few line breaks, found with memchr
    while 0 <= pos < last:
        if events[pos + 1] != 0x0A:
            return False
        pos = events.find(b"\n", pos + 2)
    return pos != last  # no LF alone at the very end


def _escaped_at(data: bytes, pos: int, start: int) -> bool:
    """Whether the byte at ``pos`` is the letter of an escape: an odd run of backslashes (after ``start``) before it."""
    run = 0
    while pos - 1 - run >= start and data[pos - 1 - run] == 0x5C:
        run += 1
    return run % 2 == 1


def _closing_quote(data: bytes, start: int) -> int:
    """Where the JSON string that starts at ``start`` ends (its closing quote), or -1.

    ``memchr`` for each quote, checked for the backslashes before it: text holds few escaped quotes, and
    this reads the string once at memory speed. Code holds many (``row[\\"units\\"]``), and a Python step
    per quote cost ~0.2 µs, 15 ms per MB (bench/proxy_filter.py --prose); past a few, json's own scanner (C)
    finds the end.
    """
    pos, tries = data.find(b'"', start), 0
    while pos >= 0:
        # :func:`_escaped_at`'s count, inline: a call per quote made this 20 % slower on events of code (the opening
        # quote before ``start`` ends the run, so no bound is checked).
        run = 0
        while data[pos - 1 - run] == 0x5C:
            run += 1
        if run % 2 == 0:
            return pos
        tries += 1
        if tries == _QUOTE_TRIES:
            return _string_end(data, start)
        pos = data.find(b'"', pos + 1)
    return -1


#: Escaped quotes stepped over one by one before json's scanner reads the rest of the string.
_QUOTE_TRIES = 8


def _string_end(data: bytes, start: int) -> int:
    """The closing quote of the JSON string that starts at ``start``, by json's C scanner, or -1."""
    # Latin-1 keeps every byte one character, so its offsets are the bytes' offsets; not strict: a raw control
    # character in the string does not hide where it ends (the loop above reads past them too).
    try:
        return start + scanstring(data[start:].decode("latin-1"), 0, False)[1] - 1
    except ValueError:  # a broken escape, or no closing quote: not JSON as expected
        return -1


def _joined_fields(
    choice: dict[str, Any], calls: ToolCallGrouping
) -> list[tuple[tuple[Any, ...], tuple[Any, ...], str]]:
    """The text fields of a choice a client joins across events: (what it is joined as, its path, its text).

    As the agent's reader joins them (src/agent/model/accumulator.ts), and openai-node's: ``text``; ``delta``'s
    ``content`` and ``refusal``; its thinking, ``reasoning_content`` or else ``reasoning`` (one text: a server may
    move from one to the other mid-stream), the other one on its own; each tool call's arguments, as the reader
    groups the fragments into calls (``calls``: this choice's, see tool_call_grouping.py); the legacy
    ``function_call``'s arguments.
    """
    found: list[tuple[tuple[Any, ...], tuple[Any, ...], str]] = []
    if isinstance(choice.get("text"), str):
        found.append((("text",), ("text",), choice["text"]))
    delta = choice.get("delta")
    if not isinstance(delta, dict):
        return found
    for name in ("content", "refusal"):
        if isinstance(delta.get(name), str):
            found.append((("delta", name), ("delta", name), delta[name]))
    thinking = [name for name in ("reasoning_content", "reasoning") if isinstance(delta.get(name), str)]
    if thinking:
        shown = "reasoning_content" if delta.get("reasoning_content") else thinking[-1]
        for name in thinking:
            joined_as = ("delta", "reasoning") if name == shown else ("delta", name)
            found.append((joined_as, ("delta", name), delta[name]))
    for position, fragment in enumerate(delta.get("tool_calls") if isinstance(delta.get("tool_calls"), list) else []):
        if not isinstance(fragment, dict):
            continue
        joined_as = ("tool", calls.add(fragment).serial)
        function = fragment.get("function")
        if isinstance(function, dict) and isinstance(function.get("arguments"), str):
            # The fragment by its place in this event (two may share an index) and its index as sent (for an event
            # of its own, :meth:`DeltaScrubber.flush`).
            at = (position, fragment.get("index"))
            found.append((joined_as, ("delta", "tool_calls", at, "function", "arguments"), function["arguments"]))
    legacy = delta.get("function_call")
    if isinstance(legacy, dict) and isinstance(legacy.get("arguments"), str):
        found.append((("function_call",), ("delta", "function_call", "arguments"), legacy["arguments"]))
    return found


def _is_number(value: Any) -> bool:
    """Whether a JSON value is a number (as JavaScript's ``typeof`` says; not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _high_surrogate_end(text: str) -> bool:
    """Whether ``text`` ends with the first half of a surrogate pair (``\\ud83d``), whose second half follows."""
    return bool(text) and "\ud800" <= text[-1] <= "\udbff"


def _paired(text: str) -> str:
    """``text`` with each surrogate pair made the one character it stands for (a lone half stays)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _int(digits: str) -> int | float:
    """A JSON integer; past Python's limit on digits, as a float (JavaScript reads every number so)."""
    return int(digits) if len(digits) < 4000 else float(digits)


def _put(choice: dict[str, Any], path: tuple[Any, ...], text: str, append: bool = False) -> None:
    """Set the field at ``path`` to ``text`` (``append``: after what it holds), making the path as needed."""
    node: Any = choice
    steps = iter(path[:-1])
    for step in steps:
        if step == "tool_calls":
            position, index = next(steps)  # the fragment's place in its event, and its index as sent (or None)
            calls = node.setdefault("tool_calls", [])
            if position is not None and position < len(calls) and isinstance(calls[position], dict):
                node = calls[position]
            else:  # an event of its own (flush): the fragment, with the index that tells the client its call
                node = {} if index is None else {"index": index}
                calls.append(node)
        else:
            if not isinstance(node.get(step), dict):
                node[step] = {}
            node = node[step]
    last = path[-1]
    current = node.get(last) if isinstance(node.get(last), str) else ""
    node[last] = current + text if append else text


def _fresh(path: tuple[Any, ...]) -> tuple[Any, ...]:
    """``path`` for a fragment of its own: a tool call's is added to the event, not put in the one at its place."""
    if len(path) > 2 and path[1] == "tool_calls":
        return (*path[:2], (None, path[2][1]), *path[3:])
    return path


def _data(payload: dict[str, Any], end: str) -> bytes:
    return f"data: {json.dumps(payload, ensure_ascii=False)}{end}".encode("utf-8", "surrogatepass")
