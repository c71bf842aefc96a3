"""The demo shop's MCP server, on stdio: a catalogue to search and orders to place.

Run by the harness from `mcp.json` (`python store.py`, with `SHOP_DIR` set to the plugin's
data folder). Its two tools reach the model as `shop.store.find_items` and
`shop.store.place_order`:

    find_items(query)                 read-only and idempotent: the harness may retry it
    place_order(sku, quantity, size)  neither: the harness never runs it twice, even
                                      across a worker crash

Every order placed is one line of `SHOP_DIR/orders.jsonl`, so you can see that an order
was placed exactly once, and every call is written to `SHOP_DIR/calls.log` as it starts and
as it ends. A number in `SHOP_DIR/latency` makes each catalogue lookup take that many
seconds, as a slow backend would: `examples/demo-run` uses it to crash a worker mid-call.
"""

import asyncio
import json
import os
from pathlib import Path
from typing import TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("store")


class Item(TypedDict):
    """One item of the catalogue, as `find_items` answers it."""

    sku: str
    name: str
    price_eur: float
    sizes: str


class Order(TypedDict):
    """One order placed, as `place_order` answers it and `orders.jsonl` keeps it."""

    order: str
    sku: str
    quantity: int
    size: str


CATALOGUE: tuple[Item, ...] = (
    {"sku": "TS-100", "name": "Team T-shirt, navy", "price_eur": 12.5, "sizes": "S M L XL"},
    {"sku": "TS-200", "name": "Team T-shirt, white", "price_eur": 11.0, "sizes": "S M L"},
    {"sku": "HD-300", "name": "Hoodie, grey", "price_eur": 34.0, "sizes": "M L XL"},
)


def _folder() -> Path:
    folder = Path(os.environ.get("SHOP_DIR", "."))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _log(line: str) -> None:
    with (_folder() / "calls.log").open("a", encoding="utf-8") as log:
        log.write(line + "\n")


async def _take(seconds: float) -> None:
    """Wait `seconds`, or exit once the harness that asked has died: nobody would read it."""
    parent = os.getppid()
    for _ in range(int(seconds * 10)):
        await asyncio.sleep(0.1)
        if os.getppid() != parent:
            os._exit(0)


def _latency() -> float:
    setting = _folder() / "latency"
    return float(setting.read_text()) if setting.exists() else 0.0


@server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
async def find_items(query: str) -> list[Item]:
    """Search the catalogue: every item whose name contains a word of `query`."""
    _log(f"start find_items {query}")
    await _take(_latency())
    words = {w.lower() for w in query.split() if len(w) > 2}
    found = [item for item in CATALOGUE if words & set(item["name"].lower().split())]
    _log(f"end find_items {query}")
    return found


@server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False))
def place_order(sku: str, quantity: int, size: str) -> Order:
    """Order `quantity` of the item `sku` in `size`; answers the order's number."""
    _log(f"start place_order {sku} {quantity} {size}")
    if sku not in {item["sku"] for item in CATALOGUE}:
        raise ValueError(f"no item {sku!r} in the catalogue")
    orders = _folder() / "orders.jsonl"
    number = 1 + (len(orders.read_text().splitlines()) if orders.exists() else 0)
    order = Order(order=f"A-{number:04d}", sku=sku, quantity=quantity, size=size)
    with orders.open("a", encoding="utf-8") as file:
        file.write(json.dumps(order) + "\n")
    _log(f"end place_order {sku} {quantity} {size}")
    return order


if __name__ == "__main__":
    server.run()
