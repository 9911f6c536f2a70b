# Python `websockets` client for Gale's WebSocket tests: echo text and binary, a 200 KB message, a ping,
# compressed messages when the server offers permessage-deflate, then a close with code 4000. Prints one JSON line.
# Works with the legacy client (websockets < 14, Debian's python3-websockets 10.x: `ws.extensions`) and the
# asyncio client of websockets >= 14 (where the negotiated extensions live on `ws.protocol`).
import asyncio
import json
import ssl
import sys

import websockets
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory


async def main(url: str, mode: str, ca: str | None) -> None:
    out = {}
    options = {"compression": "deflate" if mode == "deflate" else None}
    if ca:
        # wss:// with the test CA; the certificate names 127.0.0.1 too.
        options["ssl"] = ssl.create_default_context(cafile=ca)
    if mode == "deflate-server-bits":
        # An offer naming server_max_window_bits: the client fails the handshake unless the answer
        # names it too (RFC 7692 §7.1.2.1).
        options["extensions"] = [
            ClientPerMessageDeflateFactory(server_max_window_bits=15, client_max_window_bits=True)
        ]
    async with websockets.connect(url, max_size=2**22, **options) as ws:
        extensions = getattr(ws, "extensions", None)
        if extensions is None:
            extensions = ws.protocol.extensions
        out["extensions"] = [e.name for e in extensions]
        out["version"] = websockets.__version__
        await ws.send("héllo")
        out["text"] = await ws.recv()
        await ws.send(b"\x00\x01\xff")
        out["binary"] = list(await ws.recv())
        big = "0123456789" * 20000
        await ws.send(big)
        out["big_ok"] = (await ws.recv()) == big
        pong = await ws.ping(b"py")
        await asyncio.wait_for(pong, 3)
        out["pong"] = True
        await ws.close(code=4000, reason="py bye")
        out["close_code"] = ws.close_code
    print(json.dumps(out))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
