"""An MCP client built on the official Python SDK (`pip install mcp`), run by tests/mcp.rs.

It starts `rental mcp` as a subprocess over stdio (the command line comes after `--`), lists
the tools, checks availability, quotes, books the stay with an idempotency key, retries that
call (which must return the same booking), books it again without the key (which must fail as a
tool error), reuses the key for other fields (also an error) and prints what it saw as one JSON
object on stdout for the Rust test to check.

    python3 mcp_client.py CHECK_IN CHECK_OUT -- rental mcp --url URL --api-key KEY
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def is_error(result):
    """The result's isError flag, whatever the SDK version calls the attribute."""
    for name in ("is_error", "isError"):
        if hasattr(result, name):
            return bool(getattr(result, name))
    raise AttributeError("a tool result without isError")


def text(result):
    """The text content of a tool result (the tools answer with one text block)."""
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def schema(tool):
    for name in ("input_schema", "inputSchema"):
        if hasattr(tool, name):
            return getattr(tool, name)
    raise AttributeError("a tool without an input schema")


async def call(session, name, arguments):
    result = await session.call_tool(name, arguments)
    body = text(result)
    if is_error(result):
        return {"isError": True, "text": body}
    return {"isError": False, "json": json.loads(body)}


async def main(check_in, check_out, command):
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            info = getattr(init, "server_info", None) or getattr(init, "serverInfo")
            listed = await session.list_tools()
            tools = {t.name: {"description": t.description, "inputSchema": schema(t)} for t in listed.tools}
            stay = {"property": "sea-view", "checkIn": check_in, "checkOut": check_out}
            booking = dict(stay, guests=2, guestName="Grace Hopper", guestEmail="grace@example.com",
                           notes="booked by an agent", idempotencyKey="agent-call-7f3a")
            out = {
                "serverName": info.name,
                "tools": tools,
                "properties": await call(session, "list_properties", {}),
                "availability": await call(session, "check_availability",
                                           {"property": "sea-view", "from": check_in, "to": check_out}),
                "quote": await call(session, "get_quote", dict(stay, guests=2)),
                "booking": await call(session, "create_booking", booking),
                "retry": await call(session, "create_booking", booking),
                "again": await call(session, "create_booking",
                                    {k: v for k, v in booking.items() if k != "idempotencyKey"}),
                "reused": await call(session, "create_booking", dict(booking, notes="another request")),
                "badDate": await call(session, "get_quote", dict(stay, checkIn="20/12/2030")),
                "unknownProperty": await call(session, "get_quote", dict(stay, property="nowhere")),
            }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    sep = sys.argv.index("--")
    check_in, check_out = sys.argv[1:sep]
    asyncio.run(main(check_in, check_out, sys.argv[sep + 1:]))
