"""Large payloads by reference: Temporal carries a digest, the harness's store the bytes.

    value ─► pydantic JSON ─► RedactingCodec ─► ExternalStorage ─┬─ under the threshold: inline
                                                                 └─ at or over it: StorePayloads
                                                                    puts the bytes in the store,
                                                                    history holds a reference

The claim-check pattern, on the Temporal SDK's own external storage (`ExternalStorage`, a
`StorageDriver`), which every payload a client or worker sends passes after the payload
codec: workflow and update arguments, activity inputs and results, continue-as-new input,
query answers. So no payload in history is larger than the threshold, whatever a reply, a
tool result or a conversation holds, and a credential is masked before its bytes are kept.

The bytes are written before their reference leaves the process (the SDK awaits `store`
before it sends the payload), stored once per content (`Store.put_blob`, named by their
SHA-256), and claimed by the task whose workflow sent them: the target workflow's id up to
its first dot, since a task's other workflows are named `<task id>.<role>...` (stand-ins,
couriers). They go with that task (retention; see `Store.delete_expired`). A reference
whose bytes are gone cannot be read: `retrieve` raises `MissingPayloadError`, and Temporal
keeps retrying the workflow task until an operator deals with it.

Every process that reads a task's payloads (the server reading update and query answers,
the worker its activations) must reach the same store.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Final

from temporalio.api.common.v1 import Payload
from temporalio.converter import (
    DataConverter,
    ExternalStorage,
    StorageDriver,
    StorageDriverClaim,
    StorageDriverRetrieveContext,
    StorageDriverStoreContext,
    StorageDriverWorkflowInfo,
)

from tiny_harness.errors import MissingPayloadError
from tiny_harness.harness.persistence.store import Store

UNOWNED: Final = ""
"""The owner of a payload stored for no workflow (kept by its age alone)."""

_DIGEST: Final = "sha256"


def owning_task(context: StorageDriverStoreContext) -> str:
    """The task a payload belongs to: its target workflow's id up to the first dot."""
    target = context.target
    if isinstance(target, StorageDriverWorkflowInfo) and target.id:
        return target.id.split(".", 1)[0]
    return UNOWNED


class StorePayloads(StorageDriver):
    """Keeps payloads in the harness's `Store`, one blob per content."""

    def __init__(self, store: Store, *, clock: Callable[[], datetime] | None = None) -> None:
        self._store = store
        self._clock = clock or (lambda: datetime.now(UTC))

    def name(self) -> str:
        """The driver's name in every reference it makes."""
        return "tiny-harness-store"

    async def store(
        self, context: StorageDriverStoreContext, payloads: Sequence[Payload]
    ) -> list[StorageDriverClaim]:
        """Put each payload in the store for its task; a claim naming its digest."""
        owner = owning_task(context)
        claims: list[StorageDriverClaim] = []
        for payload in payloads:
            data = payload.SerializeToString(deterministic=True)
            digest = await self._store.put_blob(data, owner=owner, stored_at=self._clock())
            claims.append(StorageDriverClaim(claim_data={_DIGEST: digest}))
        return claims

    async def retrieve(
        self, context: StorageDriverRetrieveContext, claims: Sequence[StorageDriverClaim]
    ) -> list[Payload]:
        """The payload each claim names; `MissingPayloadError` when one is not stored."""
        payloads: list[Payload] = []
        for claim in claims:
            digest = claim.claim_data.get(_DIGEST, "")
            data = await self._store.get_blob(digest) if digest else None
            if data is None:
                raise MissingPayloadError(
                    f"payload {digest or '(no digest)'} is not in the store: it went with "
                    "its task, or this process reads another store than the one that wrote it"
                )
            payloads.append(Payload.FromString(data))
        return payloads


def with_payload_store(converter: DataConverter, store: Store, *, threshold: int) -> DataConverter:
    """`converter`, keeping every payload of `threshold` bytes or more in `store`
    (`temporal.large_payload_bytes`: Temporal warns at 512 kB and refuses about 2 MB, and a
    workflow task's whole answer must stay under 4 MB)."""
    storage = ExternalStorage(drivers=[StorePayloads(store)], payload_size_threshold=threshold)
    return dataclasses.replace(converter, external_storage=storage)
