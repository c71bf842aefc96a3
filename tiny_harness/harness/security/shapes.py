"""The credential shapes the `Redactor` masks: one precompiled pattern per kind of secret.

Each shape replaces what it matches with `mask(kind)`, e.g. `[redacted:bearer]`, keeping
the text around it (a header name, `Bearer `, `password=`) so a reader still sees what was
there. They run in `SHAPES` order: first the vendor key shapes, whose prefix alone says
what they are, then private keys, then the shapes that are credentials only by context (a
header, `Bearer`, a URL's userinfo or query, `password=`), whose values must also look
machine-made, so prose such as "the bearer of this letter" or "Authorization: required" is
left alone. Every context shape skips a value that is already a mask, so nothing is masked
twice.

Every pattern is linear in its input: a match can only start where a run of its
characters starts (a lookbehind, not `\\b`) and variable parts are bounded, so a hostile
1 MiB message cannot make a pattern backtrack for long. Private-key blocks are found by
`_PemBlocks`, not one regex, for the same reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

MASKED: Final = "[redacted:"
"""How every mask begins; a value starting with it is never masked again."""


def mask(kind: str) -> str:
    """The text that stands in for a masked value of `kind`."""
    return f"{MASKED}{kind}]"


SECRET_NAMES: Final = re.compile(
    r"(?:api[_-]?key|secret(?:[_-]?key)?|secret[_-]?access[_-]?key|client[_-]?secret"
    r"|(?:access|refresh|id|auth|bearer)[_-]?token|password|passwd|private[_-]?key"
    r"|authorization|credentials?)",
    re.IGNORECASE,
)
"""Names whose value is a credential: the end of a variable or field name (`OPENAI_API_KEY`,
`db_password`, `client_secret`). A bare `token` is not one: `next_page_token` is not secret."""


def _machine_made(value: str) -> bool:
    """Not a word of prose: 8+ characters with a digit, or with upper and lower case letters
    past the first (base64), or 24+ characters of anything."""
    if len(value) < 8:
        return False
    inner = value[1:]
    mixed = any(c.isupper() for c in inner) and any(c.islower() for c in inner)
    return len(value) >= 24 or mixed or any(c.isdigit() for c in value)


_ALNUM_RUN: Final = re.compile(r"[A-Za-z0-9]{12}")


def _key_like(value: str) -> bool:
    """A vendor key body: letters, a digit and a run of 12 letters and digits, which hyphenated
    prose after the same prefix ("sk-learn-2024-notes") does not have."""
    return any(c.isdigit() for c in value) and _ALNUM_RUN.search(value) is not None


class Shape(Protocol):
    """One kind of credential: masks every occurrence in a text, says how many."""

    def sub(self, text: str, lowered: str) -> tuple[str, int]:
        """`text` with this shape masked, and the count; `lowered` is the original text in
        lower case, for a quick check that the shape can be there at all."""
        ...


@dataclass(frozen=True, slots=True)
class Pattern:
    """A regex shape. The group `keep`, when present, is kept in front of the mask; the
    group `value` (else the whole match) is what `accept` judges."""

    kind: str
    regex: re.Pattern[str]
    needles: tuple[str, ...] = ()
    """Lower-case literals one of which a match must contain; none means always try."""
    accept: Callable[[str], bool] | None = None

    def sub(self, text: str, lowered: str) -> tuple[str, int]:
        if self.needles and not any(n in lowered for n in self.needles):
            return text, 0
        count = 0

        def replace(match: re.Match[str]) -> str:
            nonlocal count
            groups = match.groupdict()
            value = groups.get("value") or match.group(0)
            if self.accept is not None and not self.accept(value):
                return match.group(0)
            count += 1
            return (groups.get("keep") or "") + mask(self.kind)

        return self.regex.sub(replace, text), count


_PEM_BEGIN: Final = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END: Final = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY: Final = re.compile(r"[A-Za-z0-9+/=\s]*")


class _PemBlocks:
    """Private-key PEM blocks, BEGIN to END; a block cut short loses its base64 body."""

    kind: Final = "private-key"

    def sub(self, text: str, lowered: str) -> tuple[str, int]:
        if "private key" not in lowered:
            return text, 0
        out: list[str] = []
        pos, count, may_end = 0, 0, True
        while (begin := _PEM_BEGIN.search(text, pos)) is not None:
            # Once no END follows, none follows a later BEGIN either: one search, not one each.
            end = _PEM_END.search(text, begin.end()) if may_end else None
            if end is None:
                may_end = False
                stop = _PEM_BODY.match(text, begin.end())
                pos_after = stop.end() if stop is not None else begin.end()
            else:
                pos_after = end.end()
            out += [text[pos : begin.start()], mask(self.kind)]
            pos, count = pos_after, count + 1
        return "".join([*out, text[pos:]]), count


_NOT_MASKED: Final = r"(?!\[redacted:|%5Bredacted)"
_AUTH_SCHEMES: Final = frozenset(
    [
        "basic",
        "bearer",
        "digest",
        "token",
        "apikey",
        "api-key",
        "key",
        "negotiate",
        "ntlm",
        "hoba",
        "mutual",
        "oauth",
        "dpop",
        "aws4-hmac-sha256",
        "sharedkey",
        "sharedkeylite",
        "ssws",
        "jwt",
        "vapid",
        "gssapi",
        "kerberos",
    ]
)
_PARAM: Final = r"[A-Za-z][\w-]{0,64}=(?:\"[^\"\r\n]{0,1024}\"|[^\s\"'<>,]+)"


def _authorization_value(value: str) -> bool:
    return _machine_made(value) or "=" in value


CREDENTIAL_PARAMETERS: Final = (
    r"access_token|refresh_token|id_token|token|api[_-]?key|apikey|secret|client_secret"
    r"|password|passwd|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token"
    r"|x-goog-signature|x-goog-credential"
)
"""Query parameter names (a regex alternation) whose value is a credential wherever the
query appears."""


SHAPES: Final[tuple[Shape, ...]] = (
    Pattern(
        "anthropic-key",
        re.compile(r"(?<![A-Za-z0-9_-])sk-ant-(?P<value>[A-Za-z0-9_-]{20,})"),
        ("sk-ant-",),
        _key_like,
    ),
    Pattern(
        "openai-key",
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?P<value>[A-Za-z0-9_-]{20,})"),
        ("sk-",),
        _key_like,
    ),
    Pattern(
        "github-token",
        re.compile(r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{30,})"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Pattern(
        "aws-access-key-id",
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])"),
        ("akia", "asia"),
    ),
    Pattern(
        "temporal-key",
        re.compile(r"(?<![A-Za-z0-9_-])tmprl_(?P<value>[A-Za-z0-9_-]{20,})"),
        ("tmprl_",),
        _key_like,
    ),
    # After the vendor keys: a block cut short (no END) takes the base64-looking text after
    # its BEGIN, which would otherwise swallow the prefix of a key that follows and leave
    # the key's body in clear; masked first, the key stops the body at its mask.
    _PemBlocks(),
    Pattern(
        "slack-token",
        re.compile(r"(?<![A-Za-z0-9-])xox[abposr]-(?P<value>[A-Za-z0-9-]{10,})"),
        ("xox",),
        _key_like,
    ),
    Pattern(
        "google-api-key",
        re.compile(r"(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"),
        ("aiza",),
    ),
    Pattern(
        "jwt",  # also Temporal Cloud API keys, which are JWTs
        re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
        ("eyj",),
    ),
    Pattern(
        "authorization",
        re.compile(
            r"(?P<keep>(?<![\w-])(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
            r"(?:(?P<scheme>[A-Za-z][\w-]{0,31})[ \t]+)?)"
            rf"(?P<value>{_NOT_MASKED}(?:{_PARAM}|[^\s\"'<>,]+)(?:[ \t]*,[ \t]*{_PARAM})*)",
            re.IGNORECASE,
        ),
        ("authorization",),
        _authorization_value,
    ),
    Pattern(
        "bearer",
        re.compile(
            rf"(?P<keep>(?<![\w-])bearer[ \t]+){_NOT_MASKED}(?P<value>[A-Za-z0-9\-._~+/]+=*)",
            re.IGNORECASE,
        ),
        ("bearer",),
        _machine_made,
    ),
    Pattern(
        "password",  # scheme://user:password@host
        re.compile(
            r"(?P<keep>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s:/?#@\[\]]+:)"
            rf"{_NOT_MASKED}(?P<value>[^\s/?#@]+)(?=@)"
        ),
        ("://",),
    ),
    Pattern(
        "query",  # ?access_token=..., &X-Amz-Signature=...
        re.compile(
            rf"(?P<keep>[?&](?:{CREDENTIAL_PARAMETERS})=)"
            rf"{_NOT_MASKED}(?P<value>[^&\s#\"'<>]+)",
            re.IGNORECASE,
        ),
        ("=",),
    ),
    Pattern(
        "credential-field",  # OPENAI_API_KEY=..., "password": "..."
        re.compile(
            rf"(?P<keep>(?<![\w.-])[\w.-]{{0,48}}?{SECRET_NAMES.pattern}"
            r"[\"']?[ \t]*[:=][ \t]*[\"']?)"
            rf"{_NOT_MASKED}(?P<value>[^\s\"'<>,;]+)",
            re.IGNORECASE,
        ),
        ("=", ":"),
        _machine_made,
    ),
)
"""Every built-in shape, in the order they run (`Redactor` runs configured secrets first)."""


_SECRET_NAME: Final = re.compile(rf"{SECRET_NAMES.pattern}$", re.IGNORECASE)


def sensitive_name(name: str) -> bool:
    """Whether a field called `name` holds a credential whatever its value looks like."""
    return _SECRET_NAME.search(name) is not None
