"""The demo's policy hook, an MCP server on stdio: no order above `ORDER_LIMIT` items.

Listed in `hooks.json` at `tool.invoked.pre`, so the harness asks its `handle_hook` tool
before every tool call. It vetoes a `place_order` call whose quantity is above the limit:
that call is not run, and the model reads the reason instead of a result (and can
recover). Every other call passes unchanged.
"""

import os

from mcp.server.mcpserver import MCPServer
from pydantic import JsonValue

server = MCPServer("order-limit")


@server.tool()
def handle_hook(point: str, context: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """Answer one hook point with a reply envelope: pass, or abort with a reason."""
    call = context.get("call")
    if point != "tool.invoked.pre" or not isinstance(call, dict):
        return {"result": None}
    name, arguments = call.get("name"), call.get("arguments")
    if not str(name).endswith(".place_order") or not isinstance(arguments, dict):
        return {"result": None}
    limit = int(os.environ.get("ORDER_LIMIT", "10"))
    quantity = arguments.get("quantity")
    if isinstance(quantity, int) and quantity > limit:
        message = f"orders above {limit} items need a manager's approval; this one is {quantity}"
        reason: JsonValue = {"code": "order_over_limit", "message": message}
        data: JsonValue = {"abort": True, "reason": reason}
        return {"error": {"code": -32001, "message": "order over the limit", "data": data}}
    return {"result": None}


if __name__ == "__main__":
    server.run()
