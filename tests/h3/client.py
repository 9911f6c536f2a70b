# An independent HTTP/3 client for the tests: aioquic (PyPI) over one QUIC connection to 127.0.0.1.
# Input (stdin, JSON): {"port", "ca" (PEM path), "servername", "requests": [{"method", "path", "headers": [[k, v]],
# "body" (base64), "chunks" (base64 list, sent as separate DATA frames), "open" (no FIN after the fields and body), "raw" (base64 bytes sent as the whole stream)}], "parallel": bool, "timeout": seconds}.
# Output (stdout, JSON): {"alpn", "serial" (the server certificate's, hex), "responses": [{"status", "headers": [[k, v]], "body" (base64), "reset" (code)}]}.
import asyncio
import base64
import json
import ssl
import sys

from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, StreamReset


class Client(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = H3Connection(self._quic)
        self.waiting = {}

    def finish(self, sid):
        fut, rec = self.waiting.pop(sid)
        if not fut.done():
            fut.set_result(rec)

    def quic_event_received(self, event):
        if isinstance(event, StreamReset) and event.stream_id in self.waiting:
            self.waiting[event.stream_id][1]["reset"] = event.error_code
            self.finish(event.stream_id)
            return
        if isinstance(event, ConnectionTerminated):
            for sid in list(self.waiting):
                self.waiting[sid][1]["closed"] = event.error_code
                self.finish(sid)
            return
        for ev in self.h3.handle_event(event):
            sid = getattr(ev, "stream_id", None)
            if sid not in self.waiting:
                continue
            rec = self.waiting[sid][1]
            if isinstance(ev, HeadersReceived):
                fields = [[k.decode(), v.decode()] for k, v in ev.headers]
                status = next(int(v) for k, v in fields if k == ":status")
                if status >= 200 and rec["status"] is None:
                    rec["status"] = status
                    rec["headers"] = [f for f in fields if not f[0].startswith(":")]
                elif status < 200:
                    rec["informational"].append(status)
            elif isinstance(ev, DataReceived):
                rec["body"] += ev.data
            if getattr(ev, "stream_ended", False):
                self.finish(sid)

    async def request(self, req, authority):
        sid = self._quic.get_next_available_stream_id()
        fields = [
            (b":method", req.get("method", "GET").encode()),
            (b":scheme", b"https"),
            (b":authority", authority.encode()),
            (b":path", req.get("path", "/").encode()),
        ] + [(k.encode(), v.encode()) for k, v in req.get("headers", [])]
        chunks = [base64.b64decode(c) for c in req.get("chunks", [])]
        if "body" in req:
            chunks = [base64.b64decode(req["body"])]
        rec = {"status": None, "headers": [], "body": b"", "informational": []}
        fut = asyncio.get_running_loop().create_future()
        self.waiting[sid] = (fut, rec)
        if "raw" in req:
            # Bytes as they are on the request stream (hostile-client tests): frames the h3 layer would not send.
            self._quic.send_stream_data(sid, base64.b64decode(req["raw"]), end_stream=True)
            self.transmit()
            rec = await fut
            rec["body"] = base64.b64encode(rec["body"]).decode()
            return rec
        # "open": the request's stream stays open after its fields and body (no FIN), as a stalling client's.
        self.h3.send_headers(sid, fields, end_stream=not chunks and not req.get("open"))
        for i, c in enumerate(chunks):
            self.h3.send_data(sid, c, end_stream=i == len(chunks) - 1 and not req.get("open"))
            self.transmit()
            if len(chunks) > 1:
                await asyncio.sleep(0.01)
        self.transmit()
        rec = await fut
        rec["body"] = base64.b64encode(rec["body"]).decode()
        return rec


async def main(spec):
    config = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    config.load_verify_locations(spec["ca"])
    config.server_name = spec.get("servername", "a.test")
    config.verify_mode = ssl.CERT_REQUIRED
    async with connect(
        "127.0.0.1", spec["port"], configuration=config, create_protocol=Client, wait_connected=True
    ) as client:
        authority = f"{config.server_name}:{spec['port']}"
        reqs = spec["requests"]
        if spec.get("parallel"):
            out = await asyncio.gather(*(client.request(r, authority) for r in reqs))
        else:
            out = [await client.request(r, authority) for r in reqs]
        alpn = client._quic.tls.alpn_negotiated
        cert = client._quic.tls._peer_certificate
        serial = format(cert.serial_number, "x") if cert is not None else None
        client.close()
        await client.wait_closed()
    return {"alpn": alpn, "serial": serial, "responses": out}


if __name__ == "__main__":
    spec = json.loads(sys.stdin.read())
    result = asyncio.run(asyncio.wait_for(main(spec), spec.get("timeout", 10)))
    json.dump(result, sys.stdout)
