"""`Redactor`: masks credential-shaped values in text and in A2A messages.

It runs wherever something is recorded (abuse case 6): at A2A ingress, on every Temporal
payload (the codec in service/durable/redaction.py), on every store record, on every log
line and span attribute. What it masks, each replaced by `[redacted:<kind>]` so a reader
sees what was there without the value:

    configured secrets      any occurrence of a value given to the constructor (8+ chars)
    private keys            PEM `-----BEGIN ... PRIVATE KEY-----` blocks
    vendor keys             OpenAI `sk-`/`sk-proj-`, Anthropic `sk-ant-`, GitHub `ghp_`/
                            `github_pat_`, AWS `AKIA`/`ASIA` ids, Temporal `tmprl_`, Slack
                            `xox?-`, Google `AIza`, and JWTs (`eyJ..`, Temporal Cloud keys)
    by context              `Authorization:` header values, `Bearer <token>`, the password
                            in `scheme://user:password@host`, credential query parameters
                            (`?access_token=`), `NAME_API_KEY=`/`"password": ...` assignments

In a message: every text part, every string inside data parts and metadata (recursively;
a field whose name says it is a credential, such as `api_key`, is masked whatever its
value), file names, a raw part that is UTF-8 text, and URLs (their userinfo and credential
query values, percent-encoded so the URL stays valid). Identifiers (message, task and
context ids) are left alone. In a JSON value (`counted_json`: what the Temporal payload
codec and the store write): every string, and by field name as in data parts. Pure,
deterministic, no I/O; patterns are precompiled.

Limits: it is a pattern matcher, so it cannot catch a credential with no recognisable shape
or context (a bare random password in prose, a token in a URL path, a vendor whose format it
does not know), a configured secret that was encoded (base64, percent-encoding) or split
across parts, secrets in binary raw parts or in data-part keys, or values shorter than
8 characters. Context shapes demand a machine-made value, so a short or all-letters
credential after `Bearer` or `password=` can pass; a configured secret is the reliable way
to catch a known one.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from a2a.types import Message, Part
from google.protobuf.struct_pb2 import Struct, Value
from pydantic import BaseModel, JsonValue, SecretStr

from tiny_harness.harness.security.shapes import (
    CREDENTIAL_PARAMETERS,
    MASKED,
    SHAPES,
    Pattern,
    Shape,
    mask,
    sensitive_name,
)

MIN_SECRET_CHARS: Final = 8
"""Shorter configured secrets are ignored: masking every "changeme" in prose helps nobody."""

_MEMO_CHARS: Final = 16 * 1024 * 1024
"""How many characters of text the redactor remembers, least recently used first out (a
quarter of that at most in one text). A long message passes the redactor several times on
its way (in every payload that carries it), and each pass over half a megabyte costs
about 0.2 s."""

_URL_QUERY_NAMES: Final = re.compile(rf"(?:{CREDENTIAL_PARAMETERS}|key|code)", re.IGNORECASE)
"""Query parameters of a URL part whose value is a credential (in a URL part, unlike in
prose, `key` and `code` name one: an API key, an OAuth code)."""


@dataclass(frozen=True, slots=True)
class Redacted[T]:
    """A redacted value and how many credentials were masked in it (never which)."""

    value: T
    masked: int


class Redactor:
    """Masks credential shapes and the configured secrets; see the module docstring."""

    def __init__(self, secrets: Iterable[SecretStr | str | None] = ()) -> None:
        """`secrets`: values masked wherever they occur; None, empty and short ones are
        ignored (see `MIN_SECRET_CHARS`)."""
        values = {s.get_secret_value() if isinstance(s, SecretStr) else s for s in secrets}
        kept = sorted((v for v in values if v and len(v) >= MIN_SECRET_CHARS), key=len)
        shapes: list[Shape] = []
        if kept:
            # Longest first, so a secret containing another is masked whole.
            alternatives = "|".join(re.escape(v) for v in reversed(kept))
            shapes.append(Pattern("secret", re.compile(alternatives)))
        self._shapes: tuple[Shape, ...] = (*shapes, *SHAPES)
        self._memo: OrderedDict[str, Redacted[str]] = OrderedDict()
        self._memo_chars = 0

    def text(self, text: str) -> str:
        """`text` with every credential masked."""
        return self.counted_text(text).value

    def message(self, message: Message) -> Message:
        """A redacted copy of `message`; `message` itself is not changed."""
        return self.counted_message(message).value

    def counted_text(self, text: str) -> Redacted[str]:
        """`text` with every credential masked, and how many were. The same text is
        masked the same way every time, so a text seen lately is answered from memory:
        payloads repeat most of their strings (a system prompt, tool schemas)."""
        known = self._memo.get(text)
        if known is not None:
            self._memo.move_to_end(text)
            return known
        counted = self._counted_text(text)
        if len(text) <= _MEMO_CHARS // 4:
            self._memo[text] = counted
            self._memo_chars += len(text)
            while self._memo_chars > _MEMO_CHARS:
                oldest, _ = self._memo.popitem(last=False)
                self._memo_chars -= len(oldest)
        return counted

    def _counted_text(self, text: str) -> Redacted[str]:
        lowered = text.lower()
        total = 0
        for shape in self._shapes:
            text, count = shape.sub(text, lowered)
            total += count
        return Redacted(text, total)

    def counted_message(self, message: Message) -> Redacted[Message]:
        """A redacted copy of `message` (see the module docstring for what is scanned), and
        how many credentials were masked."""
        copy = Message()
        copy.CopyFrom(message)
        masked = self._struct(copy.metadata)
        for part in copy.parts:
            masked += self._part(part)
        return Redacted(copy, masked)

    def counted_json(self, value: JsonValue) -> Redacted[JsonValue]:
        """A redacted copy of a JSON value: every string in it masked as text, and the
        string of a field named as a credential (`api_key`) masked whatever it is; keys
        are left alone. How many credentials were masked. A value with nothing to mask is
        returned as it is, not copied (most are: every payload sent to Temporal passes)."""
        if not self._holds_credential(value):
            return Redacted(value, 0)
        return self._masked_json(value)

    def _holds_credential(self, value: JsonValue) -> bool:
        if isinstance(value, str):
            return self.counted_text(value).masked > 0
        if isinstance(value, list):
            return any(self._holds_credential(item) for item in value)
        if isinstance(value, dict):
            return any(
                (isinstance(item, str) and _masks_string_by_name(name, item))
                or self._holds_credential(item)
                for name, item in value.items()
            )
        return False

    def _masked_json(self, value: JsonValue) -> Redacted[JsonValue]:
        if isinstance(value, str):
            text = self.counted_text(value)
            return Redacted(text.value, text.masked)
        if isinstance(value, list):
            items = [self._masked_json(item) for item in value]
            return Redacted([i.value for i in items], sum(i.masked for i in items))
        if isinstance(value, dict):
            fields: dict[str, JsonValue] = {}
            masked = 0
            for name, item in value.items():
                if isinstance(item, str) and _masks_string_by_name(name, item):
                    fields[name], masked = mask("credential-field"), masked + 1
                    continue
                redacted = self._masked_json(item)
                fields[name], masked = redacted.value, masked + redacted.masked
            return Redacted(fields, masked)
        return Redacted(value, 0)

    def model[M: BaseModel](self, value: M) -> M:
        """`value` itself when nothing in its JSON form is a credential, else a copy built
        from its masked JSON form (a record about to be stored, say)."""
        redacted = self.counted_json(value.model_dump(mode="json"))
        return value if not redacted.masked else type(value).model_validate(redacted.value)

    # ---- message parts: each redacts in place (on the copy) and returns its count ------

    def _part(self, part: Part) -> int:
        masked = self._struct(part.metadata)
        if part.filename:
            filename = self.counted_text(part.filename)
            part.filename, masked = filename.value, masked + filename.masked
        content = part.WhichOneof("content")
        if content == "text":
            text = self.counted_text(part.text)
            part.text, masked = text.value, masked + text.masked
        elif content == "data":
            masked += self._value(part.data)
        elif content == "url":
            url = self.counted_url(part.url)
            part.url, masked = url.value, masked + url.masked
        elif content == "raw":
            masked += self._raw(part)
        return masked

    def _raw(self, part: Part) -> int:
        try:
            decoded = part.raw.decode("utf-8")
        except UnicodeDecodeError:
            return 0  # binary: nothing a text pattern could read (a documented limit)
        text = self.counted_text(decoded)
        if text.masked:
            part.raw = text.value.encode("utf-8")
        return text.masked

    def _struct(self, struct: Struct) -> int:
        masked = 0
        for name, value in struct.fields.items():
            if value.WhichOneof("kind") == "string_value" and _masks_by_name(name, value):
                value.string_value = mask("credential-field")
                masked += 1
            else:
                masked += self._value(value)
        return masked

    def _value(self, value: Value) -> int:
        kind = value.WhichOneof("kind")
        if kind == "string_value":
            text = self.counted_text(value.string_value)
            value.string_value = text.value
            return text.masked
        if kind == "struct_value":
            return self._struct(value.struct_value)
        if kind == "list_value":
            return sum(self._value(item) for item in value.list_value.values)
        return 0

    # ---- URLs --------------------------------------------------------------------------

    def counted_url(self, url: str) -> Redacted[str]:
        """`url` with its userinfo and credential query values masked (percent-encoded, so
        it stays a URL), then the text shapes applied to what is left."""
        try:
            parts = urlsplit(url)
        except ValueError:  # not a URL after all (a malformed IPv6 host): treat as text
            return self.counted_text(url)
        netloc, masked = parts.netloc, 0
        userinfo, at, host = netloc.rpartition("@")
        if at and userinfo:
            netloc, masked = quote(mask("userinfo"), safe="") + "@" + host, 1
        query, query_masked = self._query(parts.query)
        if masked or query_masked:
            url = urlunsplit(parts._replace(netloc=netloc, query=query))
        rest = self.counted_text(url)
        return Redacted(rest.value, masked + query_masked + rest.masked)

    def _query(self, query: str) -> tuple[str, int]:
        segments, masked = query.split("&"), 0
        for index, segment in enumerate(segments):
            name, eq, value = segment.partition("=")
            if not eq or not value or unquote(value).startswith(MASKED):
                continue
            by_name = _URL_QUERY_NAMES.fullmatch(unquote(name)) is not None
            if by_name or self.counted_text(unquote(value)).masked:
                segments[index] = f"{name}={quote(mask('query'), safe='')}"
                masked += 1
        return "&".join(segments), masked


def _masks_by_name(name: str, value: Value) -> bool:
    """A non-empty string in a field named as a credential (`api_key`, `password`)."""
    return _masks_string_by_name(name, value.string_value)


def _masks_string_by_name(name: str, text: str) -> bool:
    return bool(text) and not text.startswith(MASKED) and sensitive_name(name)
