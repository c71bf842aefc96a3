"""JWT authentication (`[auth] mode = "jwt"`): a bearer JWT signed by a key of the issuer's
JWKS, served here by a real HTTP server on 127.0.0.1, names the participant; everything
else about a token that is wrong refuses it alike. The JWKS is fetched once, and again
once for a key id it lacks (a rotation), never more often than the refetch interval."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from a2a.client import ClientConfig, ClientFactory
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from starlette.applications import Starlette
from starlette.authentication import AuthenticationError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from temporalio.client import Client

from tests.support import ASKS_WHICH_SIZE, collect, running_harness, send_request, states
from tiny_harness.service.a2a.jwt_bearer import REFETCH_SECONDS, Jwks, JwtBearer
from tiny_harness.service.http import HttpServer, free_port

type SigningKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey

ISSUER = "https://issuer.example"
AUDIENCE = "tiny-harness"


@dataclass
class Issuer:
    """An issuer: its signing keys by key id, and its JWKS on a real HTTP server."""

    url: str = ""
    keys: dict[str, SigningKey] = field(default_factory=dict)
    served: int = 0

    def jwks(self) -> dict[str, Any]:
        keys = []
        for kid, private in self.keys.items():
            if isinstance(private, rsa.RSAPrivateKey):
                jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()))
                jwk["alg"] = "RS256"
            else:
                jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(private.public_key()))
                jwk["alg"] = "ES256"
            keys.append(jwk | {"kid": kid, "use": "sig"})
        return {"keys": keys}

    def token(self, kid: str = "k1", **claims: Any) -> str:
        now = int(time.time())
        payload = {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": now + 300} | claims
        private = self.keys[kid]
        algorithm = "RS256" if isinstance(private, rsa.RSAPrivateKey) else "ES256"
        return jwt.encode(
            {k: v for k, v in payload.items() if v is not None},
            private,
            algorithm=algorithm,
            headers={"kid": kid},
        )


def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@asynccontextmanager
async def issuer() -> AsyncIterator[Issuer]:
    served = Issuer(keys={"k1": rsa_key(), "e1": ec.generate_private_key(ec.SECP256R1())})

    async def jwks(request: Request) -> JSONResponse:
        served.served += 1
        return JSONResponse(served.jwks())

    port = free_port()
    async with HttpServer(Starlette(routes=[Route("/jwks", jwks)]), host="127.0.0.1", port=port):
        served.url = f"http://127.0.0.1:{port}/jwks"
        yield served


def bearer(jwks: Jwks, *, leeway: timedelta = timedelta(seconds=30)) -> JwtBearer:
    return JwtBearer(
        jwks, issuer=ISSUER, audience=AUDIENCE, algorithms=("RS256", "ES256"), leeway=leeway
    )


def unsigned(header: dict[str, Any], payload: dict[str, Any], key: bytes = b"") -> str:
    """A token put together by hand: `alg: none`, or an HMAC over `key`."""

    def part(value: dict[str, Any]) -> str:
        raw = json.dumps(value, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    signing_input = f"{part(header)}.{part(payload)}"
    signature = b""
    if key:
        signature = hmac.new(key, signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + base64.urlsafe_b64encode(signature).decode().rstrip("=")


async def test_a_good_token_names_its_participant_whichever_allowed_key_signed_it() -> None:
    async with issuer() as served:
        check = bearer(Jwks(served.url))
        by_rsa = await check.participant(served.token("k1", sub="alice"))
        by_ec = await check.participant(served.token("e1", sub="bob"))

    assert (by_rsa, by_ec) == ("alice", "bob")
    assert served.served == 1


def public_pem(served: Issuer) -> bytes:
    return (
        served.keys["k1"]
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )


BAD_TOKENS = {
    "wrong issuer": lambda s: s.token(iss="https://elsewhere.example"),
    "wrong audience": lambda s: s.token(aud="another-service"),
    "expired": lambda s: s.token(exp=int(time.time()) - 120),
    "not yet valid": lambda s: s.token(nbf=int(time.time()) + 120),
    "no expiry": lambda s: s.token(exp=None),
    "no participant": lambda s: s.token(sub=None),
    "alg none": lambda s: unsigned(
        {"alg": "none", "kid": "k1"},
        {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": int(time.time()) + 300},
    ),
    "HS256 with the public key": lambda s: unsigned(
        {"alg": "HS256", "kid": "k1"},
        {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": int(time.time()) + 300},
        public_pem(s),
    ),
    "signed by another key under a known id": lambda s: jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": int(time.time()) + 300},
        rsa_key(),
        algorithm="RS256",
        headers={"kid": "k1"},
    ),
    "not a token": lambda s: "not.a.token",
}


@pytest.mark.parametrize("make", list(BAD_TOKENS.values()), ids=list(BAD_TOKENS))
async def test_a_token_wrong_in_any_way_is_refused(make: Any) -> None:
    async with issuer() as served:
        check = bearer(Jwks(served.url))
        await check.participant(served.token())  # the keys are known
        with pytest.raises(AuthenticationError):
            await check.participant(make(served))


async def test_an_unknown_key_id_refetches_once_and_a_rotated_key_is_then_accepted() -> None:
    now = [1000.0]
    async with issuer() as served:
        jwks = Jwks(served.url, clock=lambda: now[0])
        check = bearer(jwks)
        await check.participant(served.token("k1"))
        served.keys["k2"] = rsa_key()  # the issuer rotates: a key the server has not seen
        now[0] += REFETCH_SECONDS
        rotated = await check.participant(served.token("k2", sub="carol"))
        fetches_after_rotation = served.served
        served.keys["k9"] = rsa_key()  # another new key, within the refetch interval
        with pytest.raises(AuthenticationError):
            await check.participant(served.token("k9"))
        no_refetch = served.served
        now[0] += REFETCH_SECONDS
        later = await check.participant(served.token("k9", sub="dave"))

    assert rotated == "carol"
    assert fetches_after_rotation == 2
    assert no_refetch == 2
    assert later == "dave"
    assert served.served == 3


async def test_through_the_server_a_good_token_works_and_a_bad_one_gets_the_one_refusal(
    temporal_client: Client, tmp_path: Path
) -> None:
    async with issuer() as served:
        check = bearer(Jwks(served.url))
        good = served.token(sub="alice")
        expired = served.token(exp=int(time.time()) - 3600)
        async with (
            running_harness(
                temporal_client, tmp_path, ASKS_WHICH_SIZE, auth=check, auth_mode="jwt"
            ) as h,
            httpx.AsyncClient(headers={"Authorization": f"Bearer {good}"}) as as_alice,
        ):
            config = ClientConfig(supported_protocol_bindings=["JSONRPC"], httpx_client=as_alice)
            client = await ClientFactory(config).create_from_url(h.url)
            sent = await collect(client.send_message(send_request("a shirt")))
            refused = await h.http.post(
                f"{h.url}/rest/message:send",
                json={},
                headers={"Authorization": f"Bearer {expired}"},
            )
            card = (await h.http.get(f"{h.url}/.well-known/agent-card.json")).json()

    assert states(sent)[-1] == "TASK_STATE_INPUT_REQUIRED"
    assert refused.status_code == 401
    assert refused.json()["message"] == "a valid credential is required"
    assert card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["bearerFormat"] == "JWT"
