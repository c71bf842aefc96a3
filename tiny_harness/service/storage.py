"""Which store a process keeps its tasks in, from its settings.

SQLite, in one file under the data directory, is the embedded default: one host, nothing
to run. With ``TINY_HARNESS_STORE__URL`` set, every role (`serve`, `server`, `worker`,
the `tasks` commands) uses that PostgreSQL database instead, so several hosts share the
tasks, their logs, stored payloads and push configs. Push configs live in the same
database as the tasks.
"""

from __future__ import annotations

from contextlib import AsyncExitStack

from tiny_harness.config import Settings
from tiny_harness.errors import StoreError
from tiny_harness.harness.persistence.postgres import PostgresStore, location
from tiny_harness.harness.persistence.postgres_push_configs import PostgresPushConfigs
from tiny_harness.harness.persistence.push_config_store import PushConfigStore, PushConfigTable
from tiny_harness.harness.persistence.sqlite import SqliteStore
from tiny_harness.harness.persistence.sqlite_push_configs import SqlitePushConfigs
from tiny_harness.harness.persistence.store import Store


def open_store(settings: Settings, stack: AsyncExitStack, *, existing: bool = False) -> Store:
    """The configured store, closed when `stack` closes. `existing`: refuse (`StoreError`)
    a SQLite file that is not there yet, rather than create one (an operator's command)."""
    url = settings.store.url
    store: Store
    if url is not None:
        store = PostgresStore(url.get_secret_value(), pool_size=settings.store.pool_size)
    else:
        path = settings.store_path
        if existing and not path.is_file():
            raise StoreError(f"no store at {path} (give the server's --data-dir or --config)")
        store = SqliteStore(path)
    stack.push_async_callback(store.close)
    return store


def describe(settings: Settings) -> str:
    """Where the store is, for logs and messages: never the URL's password."""
    if settings.store.url is not None:
        return f"postgres at {location(settings.store.url.get_secret_value())}"
    return f"sqlite at {settings.store_path}"


def push_configs(
    settings: Settings, store: Store, key: bytes, stack: AsyncExitStack
) -> PushConfigStore:
    """Our clients' push configs, in the store's database, closed when `stack` closes."""
    table: PushConfigTable = (
        PostgresPushConfigs(store)
        if isinstance(store, PostgresStore)
        else SqlitePushConfigs(settings.store_path)
    )
    configs = PushConfigStore(table, key, max_per_task=settings.push.max_configs_per_task)
    stack.push_async_callback(configs.close)
    return configs
