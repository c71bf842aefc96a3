"""A TLS front for the test's Temporal dev server, which speaks only plain gRPC.

`tls_proxy` listens on 127.0.0.1 with a server certificate of a throwaway CA, asks every
client for a certificate of that CA (mutual TLS, as a cluster may), and passes the bytes
through to the dev server. `Pki` writes the CA, the server's and a client's PEM files.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class Pki:
    """PEM files of a throwaway CA and the certificates it issued."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def write_pki(folder: Path) -> Pki:
    """A CA, a server certificate for localhost and 127.0.0.1, and a client certificate."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tiny-harness test CA")])
    ca = (
        _builder(ca_name, ca_name, ca_key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_usage(cert_sign=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    pki = Pki(
        *(
            folder / name
            for name in ("ca.pem", "server.pem", "server.key", "client.pem", "client.key")
        )
    )
    pki.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    _issue(
        pki.server_cert,
        pki.server_key,
        "localhost",
        ca,
        ca_key,
        ExtendedKeyUsageOID.SERVER_AUTH,
        names,
    )
    _issue(
        pki.client_cert, pki.client_key, "operator", ca, ca_key, ExtendedKeyUsageOID.CLIENT_AUTH, []
    )
    return pki


@contextlib.asynccontextmanager
async def tls_proxy(upstream: str, pki: Pki) -> AsyncIterator[str]:
    """`host:port` of a mutual-TLS listener passing each connection through to `upstream`."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=pki.ca)
    context.load_cert_chain(pki.server_cert, pki.server_key)
    context.verify_mode = ssl.CERT_REQUIRED
    context.set_alpn_protocols(["h2"])  # gRPC is HTTP/2
    host, port = upstream.rsplit(":", 1)
    pipes: set[asyncio.Task[None]] = set()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        both = (_pipe(reader, up_writer), _pipe(up_reader, writer))
        tasks = [asyncio.create_task(p) for p in both]
        pipes.update(tasks)
        await asyncio.gather(*tasks, return_exceptions=True)

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
    try:
        yield f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        for task in pipes:
            task.cancel()
        await asyncio.gather(*pipes, return_exceptions=True)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


def _issue(
    cert_path: Path,
    key_path: Path,
    name: str,
    ca: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    purpose: x509.ObjectIdentifier,
    names: list[x509.GeneralName],
) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    builder = (
        _builder(subject, ca.subject, key.public_key())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_usage(cert_sign=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([purpose]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
    )
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    cert = builder.sign(ca_key, hashes.SHA256())
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey
) -> x509.CertificateBuilder:
    now = datetime.now(UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
    )


def _usage(*, cert_sign: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=not cert_sign,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=cert_sign,
        crl_sign=cert_sign,
        encipher_only=False,
        decipher_only=False,
    )
