"""How a harness process secures its connection to a Temporal cluster: the `tls` argument
of `Client.connect`, built from `TemporalConfig`.

    nothing set                      None: the SDK's choice (TLS when an API key is set,
                                     which Temporal Cloud needs; plain otherwise)
    tls = true / false               the system's roots / no TLS
    tls_ca_file, tls_cert_file,      a `TLSConfig` from PEM files: the server's root CA,
    tls_key_file, tls_server_name    a client certificate and its key (mTLS, both or
                                     neither), the name the server's certificate carries

Every file is read and checked here, at startup, so a wrong one is a `ConfigError` naming
its variable instead of a handshake that fails later with a transport error. The key file's
content is a secret: no message quotes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from temporalio.service import TLSConfig

from tiny_harness.config import TemporalConfig
from tiny_harness.errors import ConfigError

_PREFIX: Final = "TINY_HARNESS_TEMPORAL__"
_PEM_BEGIN: Final = b"-----BEGIN "


def temporal_tls(config: TemporalConfig) -> bool | TLSConfig | None:
    """The `tls` argument for `Client.connect`; `ConfigError` naming the variable at fault."""
    files = (config.tls_ca_file, config.tls_cert_file, config.tls_key_file)
    if all(path is None for path in files) and config.tls_server_name is None:
        return config.tls
    if config.tls is False:
        raise ConfigError(
            f"{_PREFIX}TLS is false but TLS files or a server name are set: "
            "unset them, or set TLS to true",
            variable=f"{_PREFIX}TLS",
        )
    if (config.tls_cert_file is None) != (config.tls_key_file is None):
        missing = "TLS_KEY_FILE" if config.tls_key_file is None else "TLS_CERT_FILE"
        raise ConfigError(
            f"{_PREFIX}{missing} is not set: a client certificate needs its key, and a key "
            "its certificate",
            variable=f"{_PREFIX}{missing}",
        )
    return TLSConfig(
        server_root_ca_cert=_pem(config.tls_ca_file, "TLS_CA_FILE"),
        client_cert=_pem(config.tls_cert_file, "TLS_CERT_FILE"),
        client_private_key=_pem(config.tls_key_file, "TLS_KEY_FILE"),
        domain=config.tls_server_name,
    )


def _pem(path: Path | None, name: str) -> bytes | None:
    """The PEM file at `path`, read and checked; None when it is not set."""
    if path is None:
        return None
    variable = f"{_PREFIX}{name}"
    try:
        data = path.read_bytes()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ConfigError(f"{variable}: cannot read {path}: {reason}", variable=variable) from None
    if _PEM_BEGIN not in data:
        raise ConfigError(
            f"{variable}: {path} is not a PEM file (no '-----BEGIN' line)", variable=variable
        )
    return data
