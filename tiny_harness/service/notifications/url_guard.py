"""The SSRF guard for the push notifications we send, and the POST that goes only where the
guard looked.

A client gives the server a URL and the server later POSTs task events to it. Unguarded,
that is a server-side request forgery (SSRF) opening: a client could aim the server at
127.0.0.1:7233 (Temporal), 169.254.169.254 (cloud metadata) or any host on the private
network, and have it speak from the inside. This module decides, and it never sends to a
URL as given: `post_pinned` sends to a `PushTarget`, the answer of `UrlGuard`.

The rules (`UrlGuard.decide`); a refusal is a `PushUrlRefusedError` whose `reason` is a
fixed phrase, safe to show the client:

1. The URL parses and has a host ("unparseable url"), its scheme is https or http
   ("unsupported scheme"), and it carries no user-info ("credentials in url").
2. The host resolves ("unresolvable host") to at least one address ("no address").
3. Every address is public: not unspecified, loopback, link-local, multicast, shared
   (100.64.0.0/10), site-local (fec0::/10), reserved, private or otherwise not global. An
   IPv6 address that carries an IPv4 one (mapped, compatible, 6to4, Teredo, NAT64
   64:ff9b::/96) is judged by the IPv4 it carries as well. An address passes anyway when it
   is on the allow-list, and so do all of them when the host name is.
4. Plain http only when the host name, or every address, is on the allow-list ("not https").

    url ──parse──▶ host ──resolve once──▶ addresses ──judge each──▶ PushTarget(address)
                                                                        │
    post_pinned: connect to PushTarget.address; Host, SNI, certificate ◀─┘ use the name

The name is resolved once and the POST connects to the address that was judged, so a name
cannot resolve somewhere else between check and use (DNS rebinding). A 3xx answer is
returned as a status, never followed.

Limits:
- An allow-listed name is trusted whatever it resolves to: outside development, allow-list
  addresses or networks rather than names.
- `check` uses the system resolver with its own timeouts; callers put a deadline on it.
- `post_pinned` wants an HTTP/1.1 client used for nothing else, without a proxy
  (`trust_env=False`). It closes each connection after its one request, so a TLS session
  verified for one name is never reused for another name served at the same address.
  Through an https proxy httpcore verifies the certificate against the address, not the
  name, so https deliveries fail closed there.
- An allow-listed IPv6 link-local address with a zone (fe80::1%eth0) cannot be pinned in a
  URL; connecting to it fails.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import httpx
from pydantic import JsonValue

from tiny_harness.errors import ConfigError, PushUrlRefusedError

logger = logging.getLogger(__name__)

ALLOW_VARIABLE = "TINY_HARNESS_PUSH__ALLOW"

type IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
type IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
type Scheme = Literal["http", "https"]

_DEFAULT_PORTS: dict[Scheme, int] = {"http": 80, "https": 443}
_SHARED = ipaddress.IPv4Network("100.64.0.0/10")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
# Labels of letters, digits and inner hyphens; the last must hold a letter, so that
# "127.1" (which resolvers read as 127.0.0.1) is never mistaken for a name.
_HOST_NAME = re.compile(
    r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*"
    r"(?=[a-z0-9-]*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class PushTarget:
    """A push URL the guard accepted, and the one address a POST to it may connect to."""

    url: str
    """The URL as the client gave it (it may carry a secret in its query: never log it)."""
    scheme: Scheme
    host: str
    """The host as the URL names it (lower-cased, IDNA-encoded, IPv6 without brackets)."""
    port: int
    path: str
    """Path and query, percent-encoded, as sent on the request line."""
    address: str
    """The IP address that was checked, and the only one `post_pinned` connects to."""

    @property
    def host_header(self) -> str:
        """`host[:port]` as the receiver expects it in `Host`; the port only if not default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == _DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    @property
    def pinned_url(self) -> str:
        """The URL with the checked address in place of the host."""
        address = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.scheme}://{address}:{self.port}{self.path}"


@dataclass(frozen=True, slots=True)
class _Url:
    scheme: Scheme
    host: str
    port: int
    path: str
    literal: IpAddress | None


class UrlGuard:
    """Decides whether the server may POST to a push URL, and to which address.

    `allow` holds host names (matched exactly, case-insensitively), IP addresses and CIDR
    networks that may be reached although not public, and over plain http.
    """

    def __init__(self, allow: Sequence[str]) -> None:
        names: set[str] = set()
        networks: list[IpNetwork] = []
        for entry in allow:
            text = entry.strip()
            try:
                networks.append(ipaddress.ip_network(text))
                continue
            except ValueError:
                pass
            if not _HOST_NAME.fullmatch(text) or len(text) > 253:
                raise ConfigError(
                    f"{ALLOW_VARIABLE}: {entry!r} is not a host name, an IP address or a "
                    "CIDR network (with no host bits set)",
                    variable=ALLOW_VARIABLE,
                )
            names.add(text.lower())
        self._names = frozenset(names)
        self._networks = tuple(networks)

    def decide(self, url: str, addresses: Sequence[str]) -> PushTarget:
        """The whole decision for `url`, given the addresses its host resolved to.

        Pure: no I/O besides logging a refusal. For an IP-literal host `addresses` is
        ignored, since the literal is the address. Raises `PushUrlRefusedError`.
        """
        return self._decide(url, _parse(url), addresses)

    def _decide(self, url: str, parsed: _Url, addresses: Sequence[str]) -> PushTarget:
        if parsed.literal is not None:
            ips: list[IpAddress] = [parsed.literal]
        else:
            try:
                ips = list(dict.fromkeys(ipaddress.ip_address(a) for a in addresses))
            except ValueError:
                raise _refused("unparseable address", parsed.host) from None
        if not ips:
            raise _refused("no address", parsed.host)
        name_allowed = parsed.host in self._names
        allowed = [name_allowed or self._allows(ip) for ip in ips]
        for ip, ok in zip(ips, allowed, strict=True):
            reason = _why_not_public(ip)
            if reason is not None and not ok:
                raise _refused(reason, parsed.host)
        if parsed.scheme == "http" and not all(allowed):
            raise _refused("not https", parsed.host)
        return PushTarget(
            url=url,
            scheme=parsed.scheme,
            host=parsed.host,
            port=parsed.port,
            path=parsed.path,
            address=str(ips[0]),
        )

    async def check(self, url: str) -> PushTarget:
        """Resolve the URL's host once (not an IP literal), then `decide`."""
        parsed = _parse(url)
        if parsed.literal is not None:
            return self._decide(url, parsed, ())
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(
                parsed.host, parsed.port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
            )
        except (OSError, UnicodeError):
            # OSError covers socket.gaierror; over-long labels fail IDNA encoding instead.
            raise _refused("unresolvable host", parsed.host) from None
        return self._decide(url, parsed, [str(info[4][0]) for info in infos])

    def _allows(self, ip: IpAddress) -> bool:
        candidates: list[IpAddress] = [ip]
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            candidates.append(ip.ipv4_mapped)
        return any(c in net for c in candidates for net in self._networks)


async def post_pinned(
    client: httpx.AsyncClient,
    target: PushTarget,
    *,
    json_body: JsonValue,
    headers: Mapping[str, str],
    # Also httpx's own connect/read timeouts, and the deadline is reported as an httpx
    # error like theirs, so it is a parameter rather than the caller's asyncio.timeout.
    timeout: float,  # noqa: ASYNC109
) -> int:
    """POST `json_body` to `target`, connecting to `target.address` only; the status code.

    Host, TLS SNI and the certificate check use `target.host`. Redirects are returned, not
    followed, and the answer's body is never read. `timeout` bounds the whole exchange.
    HTTP statuses raise nothing; transport failures raise `httpx.TransportError` (a
    `httpx.TimeoutException` past the deadline). See the module's limits for `client`.
    """
    sent = httpx.Headers(headers)
    sent["Host"] = target.host_header
    # One request per connection: a pooled TLS session was verified for the name it was
    # opened for, and another name served at the same address must not inherit it.
    sent["Connection"] = "close"
    extensions: dict[str, str] = {}
    if target.scheme == "https":
        # httpcore hands this to ssl as server_hostname: SNI and certificate check both.
        extensions["sni_hostname"] = target.host
    try:
        async with (
            asyncio.timeout(timeout),
            # The stream's own exit closes the response on every path (a timeout or a
            # cancellation included), so no connection outlives the call.
            client.stream(
                "POST",
                target.pinned_url,
                json=json_body,
                headers=sent,
                timeout=timeout,
                extensions=extensions,
                follow_redirects=False,
            ) as response,
        ):
            return response.status_code
    except TimeoutError:
        # httpx times each read separately; a receiver dripping bytes is cut off here.
        raise httpx.TimeoutException(f"no answer within {timeout} s") from None


def _parse(url: str) -> _Url:
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        raise _refused("unparseable url", None) from None
    if not parsed.scheme:
        raise _refused("unparseable url", None)
    if parsed.scheme not in ("http", "https"):
        raise _refused("unsupported scheme", None)
    scheme: Scheme = "https" if parsed.scheme == "https" else "http"
    try:
        host = parsed.raw_host.decode("ascii").lower()
    except UnicodeDecodeError:
        raise _refused("unparseable url", None) from None
    port = _DEFAULT_PORTS[scheme] if parsed.port is None else parsed.port
    if not host or not 0 < port < 65536:
        raise _refused("unparseable url", None)
    if parsed.userinfo:
        raise _refused("credentials in url", host)
    try:
        literal: IpAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    return _Url(
        scheme=scheme,
        host=host,
        port=port,
        path=parsed.raw_path.decode("ascii"),
        literal=literal,
    )


def _why_not_public(ip: IpAddress) -> str | None:
    """The reason `ip`, or an IPv4 address it carries, is not public; None if it is."""
    if isinstance(ip, ipaddress.IPv6Address):
        for carried in _carried_ipv4(ip):
            reason = _judge(carried)
            if reason is not None:
                return reason
        if ip.ipv4_mapped is not None or ip in _NAT64:
            # Traffic to these goes to the IPv4 address they carry, judged public above.
            return None
    return _judge(ip)


def _carried_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    carried: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        carried.append(ip.ipv4_mapped)
    if (ip in _IPV4_COMPATIBLE and int(ip) > 1) or ip in _NAT64:
        # The last 32 bits (:: and ::1 are judged as themselves: unspecified, loopback).
        carried.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip.sixtofour is not None:
        carried.append(ip.sixtofour)
    if ip.teredo is not None:
        carried.extend(ip.teredo)
    return carried


def _judge(ip: IpAddress) -> str | None:
    # Most specific first, so the reason names what the operator will recognise.
    if ip.is_unspecified:
        return "unspecified address"
    if ip.is_loopback:
        return "loopback address"
    if ip.is_link_local:
        return "link-local address"
    if ip.is_multicast:
        return "multicast address"
    if ip in _SHARED:
        return "shared address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local:
        return "site-local address"
    if ip.is_reserved:
        return "reserved address"
    if ip.is_private:
        return "private address"
    if not ip.is_global:
        return "non-public address"
    return None


def _refused(reason: str, host: str | None) -> PushUrlRefusedError:
    # The host only: the URL's query may carry the receiver's secret.
    logger.warning("push URL refused: %s (host %r)", reason, host)
    where = f" (host {host})" if host else ""
    return PushUrlRefusedError(f"push URL refused: {reason}{where}", reason=reason)
