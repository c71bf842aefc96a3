"""`UrlGuard` and `post_pinned`: the decision on its own (no traffic at all), `check` with real
resolution of localhost, and honeypots on 127.0.0.1 that count what reaches them.

Public addresses such as 8.8.8.8 appear only as decision inputs; nothing here connects to
any address but loopback.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import ipaddress
import logging
import ssl
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tiny_harness.errors import ConfigError, PushUrlRefusedError
from tiny_harness.service.http import HttpServer, free_port
from tiny_harness.service.notifications.url_guard import PushTarget, UrlGuard, post_pinned

pytestmark = pytest.mark.timeout(30)

NO_ALLOW = UrlGuard([])
HOOK = "https://hook.example/hook"


def refusal(guard: UrlGuard, url: str, addresses: list[str]) -> str:
    with pytest.raises(PushUrlRefusedError) as refused:
        guard.decide(url, addresses)
    return refused.value.reason


# --- the decision, with no traffic -------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("10.0.0.5", "private address"),
        ("192.168.1.10", "private address"),
        ("172.16.0.1", "private address"),
        ("fd12:3456::1", "private address"),
        ("169.254.169.254", "link-local address"),
        ("fe80::1", "link-local address"),
        ("127.0.0.1", "loopback address"),
        ("::1", "loopback address"),
        ("::ffff:127.0.0.1", "loopback address"),
        ("::ffff:10.0.0.5", "private address"),
        ("::ffff:169.254.169.254", "link-local address"),
        ("::10.0.0.5", "private address"),  # IPv4-compatible
        ("2002:7f00:1::1", "loopback address"),  # 6to4 around 127.0.0.1
        ("64:ff9b::a9fe:a9fe", "link-local address"),  # NAT64 around 169.254.169.254
        ("100.64.0.1", "shared address"),
        ("0.0.0.0", "unspecified address"),
        ("::", "unspecified address"),
        ("224.0.0.1", "multicast address"),
        ("ff02::1", "multicast address"),
        ("fec0::1", "site-local address"),
        ("240.0.0.1", "reserved address"),
    ],
)
def test_a_non_public_address_is_refused_with_its_reason(address: str, reason: str) -> None:
    assert refusal(NO_ALLOW, HOOK, [address]) == reason


def test_a_teredo_address_is_judged_by_the_client_address_it_hides() -> None:
    # Teredo: 2001:0::/32, server IPv4, flags, port, then the client IPv4 with every bit flipped.
    client = int(ipaddress.IPv4Address("127.0.0.1")) ^ 0xFFFFFFFF
    server = int(ipaddress.IPv4Address("8.8.8.8"))
    teredo = ipaddress.IPv6Address((0x20010000 << 96) | (server << 64) | client)
    assert refusal(NO_ALLOW, HOOK, [str(teredo)]) == "loopback address"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://10.0.0.5/hook", "private address"),
        ("https://169.254.169.254/latest/meta-data/", "link-local address"),
        ("https://[::1]:8443/hook", "loopback address"),
        ("https://[::ffff:127.0.0.1]/hook", "loopback address"),
    ],
)
def test_an_ip_literal_is_judged_itself_whatever_addresses_are_passed(
    url: str, reason: str
) -> None:
    assert refusal(NO_ALLOW, url, ["8.8.8.8"]) == reason


def test_a_host_with_one_private_address_among_public_ones_is_refused() -> None:
    assert refusal(NO_ALLOW, HOOK, ["8.8.8.8", "10.0.0.5"]) == "private address"


def test_plain_http_to_a_public_address_is_refused() -> None:
    assert refusal(NO_ALLOW, "http://hook.example/hook", ["8.8.8.8"]) == "not https"


def test_user_info_in_the_url_is_refused() -> None:
    url = "https://user:secret@hook.example/hook"
    assert refusal(NO_ALLOW, url, ["8.8.8.8"]) == "credentials in url"


@pytest.mark.parametrize(
    "url", ["ftp://hook.example/hook", "file:///etc/passwd", "ws://hook.example/hook"]
)
def test_a_scheme_other_than_http_or_https_is_refused(url: str) -> None:
    assert refusal(NO_ALLOW, url, ["8.8.8.8"]) == "unsupported scheme"


@pytest.mark.parametrize(
    "url",
    ["", "not a url", "hook.example/hook", "https://", "https://[::1/hook", "https://h:99999/"],
)
def test_an_unparseable_url_is_refused(url: str) -> None:
    assert refusal(NO_ALLOW, url, ["8.8.8.8"]) == "unparseable url"


def test_a_host_that_resolved_to_nothing_is_refused() -> None:
    assert refusal(NO_ALLOW, HOOK, []) == "no address"


def test_a_public_https_target_passes_pinned_to_its_first_address() -> None:
    url = "https://Hook.Example:8443/hook?token=s3cret"
    target = NO_ALLOW.decide(url, ["8.8.4.4", "2606:4700::1111", "8.8.4.4"])
    assert target == PushTarget(
        url=url,
        scheme="https",
        host="hook.example",
        port=8443,
        path="/hook?token=s3cret",
        address="8.8.4.4",
    )
    assert target.pinned_url == "https://8.8.4.4:8443/hook?token=s3cret"
    assert target.host_header == "hook.example:8443"


def test_an_ipv6_address_is_bracketed_in_the_pinned_url() -> None:
    target = NO_ALLOW.decide(HOOK, ["2606:4700::1111"])
    assert target.pinned_url == "https://[2606:4700::1111]:443/hook"
    assert target.host_header == "hook.example"


def test_a_nat64_address_around_a_public_ipv4_passes() -> None:
    assert NO_ALLOW.decide(HOOK, ["64:ff9b::808:808"]).address == "64:ff9b::808:808"


def test_a_target_cannot_be_changed_after_the_check() -> None:
    target = NO_ALLOW.decide(HOOK, ["8.8.8.8"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        target.address = "127.0.0.1"  # type: ignore[misc]


def test_an_allow_listed_host_name_lets_plain_http_to_loopback_through() -> None:
    guard = UrlGuard(["LocalHost"])
    target = guard.decide("http://localhost:8080/hook", ["127.0.0.1", "::1"])
    assert (target.address, target.host_header) == ("127.0.0.1", "localhost:8080")


def test_an_allow_listed_address_lets_that_address_through() -> None:
    target = UrlGuard(["127.0.0.1"]).decide("http://127.0.0.1:9000/hook", [])
    assert target.pinned_url == "http://127.0.0.1:9000/hook"


def test_an_allow_listed_network_lets_its_addresses_through() -> None:
    guard = UrlGuard(["10.0.0.0/8", "fd00::/8"])
    assert guard.decide("http://intranet.test/hook", ["10.0.0.5"]).address == "10.0.0.5"
    assert guard.decide("https://intranet.test/", ["fd00::5"]).address == "fd00::5"


def test_an_allow_listed_ipv4_address_covers_its_ipv6_mapped_form() -> None:
    target = UrlGuard(["127.0.0.1"]).decide(HOOK, ["::ffff:127.0.0.1"])
    assert target.address == "::ffff:127.0.0.1"


def test_an_allow_listed_address_does_not_cover_the_hosts_other_addresses() -> None:
    guard = UrlGuard(["127.0.0.1"])
    assert refusal(guard, HOOK, ["127.0.0.1", "10.0.0.5"]) == "private address"


def test_plain_http_needs_every_address_allow_listed() -> None:
    guard = UrlGuard(["10.0.0.0/8"])
    assert refusal(guard, "http://mixed.test/hook", ["10.0.0.5", "8.8.8.8"]) == "not https"


@pytest.mark.parametrize(
    "entry", ["", "10.0.0.1/8", "http://localhost", "*.example.com", "127.1", "a b", "-x.test"]
)
def test_an_invalid_allow_list_entry_is_a_config_error(entry: str) -> None:
    with pytest.raises(ConfigError) as error:
        UrlGuard(["localhost", entry])
    assert error.value.variable == "TINY_HARNESS_PUSH__ALLOW"


def test_a_refusal_is_logged_with_reason_and_host_but_never_the_query(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING), pytest.raises(PushUrlRefusedError) as refused:
        NO_ALLOW.decide("https://intranet.test/hook?token=s3cret", ["10.0.0.5"])
    assert "s3cret" not in str(refused.value)
    [record] = [r for r in caplog.records if r.name.endswith("url_guard")]
    assert record.levelno == logging.WARNING
    assert "private address" in record.getMessage()
    assert "intranet.test" in record.getMessage()
    assert "s3cret" not in record.getMessage()


# --- check: real resolution, still no traffic --------------------------------------------


async def test_check_resolves_localhost_and_refuses_it_as_loopback() -> None:
    with pytest.raises(PushUrlRefusedError) as refused:
        await NO_ALLOW.check("https://localhost/hook")
    assert refused.value.reason == "loopback address"


async def test_check_lets_allow_listed_localhost_through_on_a_loopback_address() -> None:
    target = await UrlGuard(["localhost"]).check("https://localhost/hook")
    assert ipaddress.ip_address(target.address).is_loopback
    assert target.host == "localhost"


async def test_check_refuses_a_host_that_cannot_be_resolved() -> None:
    # A label over 63 characters fails before any query leaves the machine.
    with pytest.raises(PushUrlRefusedError) as refused:
        await NO_ALLOW.check(f"https://{'a' * 64}.test/hook")
    assert refused.value.reason == "unresolvable host"


async def test_check_does_not_resolve_an_ip_literal(monkeypatch: pytest.MonkeyPatch) -> None:
    async def no_resolution(*args: object, **kwargs: object) -> list[object]:
        raise AssertionError("an IP literal was resolved")

    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", no_resolution)
    target = await NO_ALLOW.check("https://8.8.8.8/hook")
    assert target.address == "8.8.8.8"


# --- honeypots on loopback ---------------------------------------------------------------


class Honeypot:
    """Counts every request per path; `/hook` answers 200, `/redirect` a 302 to `/second`."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.requests: list[Request] = []
        self.bodies: list[bytes] = []
        self.app = Starlette(routes=[Route("/{path}", self.endpoint, methods=["GET", "POST"])])

    async def endpoint(self, request: Request) -> Response:
        path = request.path_params["path"]
        self.hits[path] += 1
        self.requests.append(request)
        self.bodies.append(await request.body())
        if path == "redirect":
            return RedirectResponse(str(request.url_for("endpoint", path="second")), 302)
        if path == "slow":
            await asyncio.sleep(1)
        return JSONResponse({"ok": True})


@pytest.fixture
async def honeypot() -> AsyncIterator[tuple[Honeypot, int]]:
    pot = Honeypot()
    async with HttpServer(pot.app, host="127.0.0.1", port=0) as server:
        yield pot, server.port


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    # trust_env=False: no proxy from the environment may carry loopback traffic elsewhere.
    async with httpx.AsyncClient(trust_env=False) as http:
        yield http


async def test_without_an_allow_list_loopback_urls_are_refused_and_never_reached(
    honeypot: tuple[Honeypot, int],
) -> None:
    pot, port = honeypot
    for url in (f"http://127.0.0.1:{port}/hook", f"http://localhost:{port}/hook"):
        with pytest.raises(PushUrlRefusedError) as refused:
            await NO_ALLOW.check(url)
        assert refused.value.reason == "loopback address"
    assert sum(pot.hits.values()) == 0


async def test_post_pinned_reaches_an_allow_listed_host_with_its_own_host_header(
    client: httpx.AsyncClient,
) -> None:
    # The honeypot listens where localhost resolved, so the test holds on IPv6-first hosts.
    pot, port = Honeypot(), free_port()
    target = await UrlGuard(["localhost"]).check(f"http://localhost:{port}/hook?token=s3cret")
    assert ipaddress.ip_address(target.address).is_loopback
    async with HttpServer(pot.app, host=target.address, port=port):
        status = await post_pinned(
            client,
            target,
            json_body={"taskId": "t-1", "final": True},
            headers={"Authorization": "Bearer abc", "host": "elsewhere.test"},
            timeout=5.0,
        )
    assert status == 200
    assert pot.hits == Counter({"hook": 1})
    [request] = pot.requests
    assert request.headers["host"] == f"localhost:{port}"
    assert request.headers["authorization"] == "Bearer abc"
    assert request.headers["connection"] == "close"
    assert request.query_params["token"] == "s3cret"
    assert pot.bodies == [b'{"taskId":"t-1","final":true}']


async def test_post_pinned_returns_a_redirect_without_following_it(
    honeypot: tuple[Honeypot, int], client: httpx.AsyncClient
) -> None:
    pot, port = honeypot
    target = await UrlGuard(["127.0.0.1"]).check(f"http://127.0.0.1:{port}/redirect")
    status = await post_pinned(client, target, json_body=None, headers={}, timeout=5.0)
    assert status == 302
    assert pot.hits == Counter({"redirect": 1})


async def test_post_pinned_gives_up_at_the_deadline_with_an_httpx_timeout(
    honeypot: tuple[Honeypot, int], client: httpx.AsyncClient
) -> None:
    _, port = honeypot
    target = await UrlGuard(["127.0.0.1"]).check(f"http://127.0.0.1:{port}/slow")
    with pytest.raises(httpx.TimeoutException):
        await post_pinned(client, target, json_body={}, headers={}, timeout=0.2)


# --- TLS: connect to the address, verify the name ----------------------------------------


@dataclasses.dataclass(frozen=True)
class Pki:
    """A throwaway CA, and a server certificate it issued for one DNS name (no IP address)."""

    ca_pem: str
    cert_file: Path
    key_file: Path


def _ca(now: datetime.datetime) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "url guard test CA")])
    usage = x509.KeyUsage(
        digital_signature=False,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=True,
        crl_sign=True,
        encipher_only=False,
        decipher_only=False,
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(usage, critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )
    return key, cert


def issue(tmp_path: Path, dns_name: str) -> Pki:
    now = datetime.datetime.now(datetime.UTC)
    ca_key, ca = _ca(now)
    key = ec.generate_private_key(ec.SECP256R1())
    ca_ski = ca.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, dns_name)]))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(dns_name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "server.pem", tmp_path / "server.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    ca_pem = ca.public_bytes(serialization.Encoding.PEM).decode()
    return Pki(ca_pem=ca_pem, cert_file=cert_file, key_file=key_file)


class TlsHoneypot:
    """An HTTPS server on 127.0.0.1 that records the SNI names and requests it receives.

    It keeps a connection open for more requests unless the client asks to close it.
    """

    def __init__(self, pki: Pki) -> None:
        self.server_names: list[str | None] = []
        self.requests: list[bytes] = []
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(pki.cert_file, pki.key_file)
        self.context.sni_callback = self._sni

    def _sni(self, _: ssl.SSLObject | ssl.SSLSocket, name: str | None, __: ssl.SSLContext) -> None:
        self.server_names.append(name)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while head := await self._read_request(reader):
                writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
                await writer.drain()
                if b"\r\nconnection: close\r\n" in head.lower():
                    break
        finally:
            writer.close()

    async def _read_request(self, reader: asyncio.StreamReader) -> bytes:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return b""
        lengths = [line for line in head.lower().split(b"\r\n") if b"content-length" in line]
        length = int(lengths[0].split(b":")[1]) if lengths else 0
        self.requests.append(head + await reader.readexactly(length))
        return head


async def serve_tls(pot: TlsHoneypot, host: str, port: int) -> asyncio.Server:
    return await asyncio.start_server(pot.handle, host, port, ssl=pot.context)


async def test_https_is_verified_against_the_host_name_while_connecting_by_address(
    tmp_path: Path,
) -> None:
    # The certificate names localhost only: verifying it against 127.0.0.1 would fail.
    pki = issue(tmp_path, "localhost")
    pot, port = TlsHoneypot(pki), free_port()
    target = await UrlGuard(["localhost"]).check(f"https://localhost:{port}/hook")
    server = await serve_tls(pot, target.address, port)  # where localhost resolved: loopback
    verify = ssl.create_default_context(cadata=pki.ca_pem)
    try:
        async with httpx.AsyncClient(trust_env=False, verify=verify) as http:
            status = await post_pinned(http, target, json_body={"a": 1}, headers={}, timeout=5.0)
    finally:
        server.close()
        await server.wait_closed()
    assert status == 204
    assert pot.server_names == ["localhost"]
    [request] = pot.requests
    assert request.startswith(b"POST /hook HTTP/1.1\r\n")
    assert f"Host: localhost:{port}\r\n".encode() in request


async def test_https_to_a_server_whose_certificate_names_another_host_fails(
    tmp_path: Path,
) -> None:
    pki = issue(tmp_path, "elsewhere.test")
    pot, port = TlsHoneypot(pki), free_port()
    server = await serve_tls(pot, "127.0.0.1", port)
    verify = ssl.create_default_context(cadata=pki.ca_pem)
    try:
        target = UrlGuard(["localhost"]).decide(f"https://localhost:{port}/hook", ["127.0.0.1"])
        async with httpx.AsyncClient(trust_env=False, verify=verify) as http:
            with pytest.raises(httpx.ConnectError, match="certificate verify failed"):
                await post_pinned(http, target, json_body={}, headers={}, timeout=5.0)
    finally:
        server.close()
        await server.wait_closed()
    assert pot.requests == []


async def test_a_tls_connection_verified_for_one_name_is_not_reused_for_another(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    # Both names sit at 127.0.0.1, the certificate covers only the first: the second POST
    # must open its own connection and fail verification, not ride the first one's session.
    pki = issue(tmp_path, "first.test")
    pot, port = TlsHoneypot(pki), free_port()
    server = await serve_tls(pot, "127.0.0.1", port)
    guard = UrlGuard(["127.0.0.1"])
    first = guard.decide(f"https://first.test:{port}/hook", ["127.0.0.1"])
    second = guard.decide(f"https://second.test:{port}/hook", ["127.0.0.1"])
    verify = ssl.create_default_context(cadata=pki.ca_pem)
    try:
        async with httpx.AsyncClient(trust_env=False, verify=verify) as http:
            assert await post_pinned(http, first, json_body={}, headers={}, timeout=5.0) == 204
            with pytest.raises(httpx.ConnectError, match="certificate verify failed"):
                await post_pinned(http, second, json_body={}, headers={}, timeout=5.0)
    finally:
        server.close()
        await server.wait_closed()
    assert len(pot.requests) == 1
    assert pot.server_names == ["first.test", "second.test"]
