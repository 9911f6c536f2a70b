# A WebTransport client for the tests: aioquic (PyPI) over one QUIC connection to 127.0.0.1, running a script of steps.
# Input (stdin, JSON): {"port", "ca" (PEM path), "servername" (a.test), "steps": [...]}; each step is one of
#   {"do": "connect", "path", "headers": [[k, v]]}     a session's extended CONNECT (later steps use the last one)
#   {"do": "datagram", "data"}                           a datagram in the session
#   {"do": "bidi" | "uni", "name", "data", "fin"}         opens a stream of the session and writes to it
#   {"do": "write", "name", "data", "fin"}               writes more to a stream opened by name
#   {"do": "reset", "name", "code"}                      resets a stream opened by name (RESET_STREAM with an HTTP/3 code)
#   {"do": "capsule", "hex", "fin"}                      raw bytes as DATA on the CONNECT stream
#   {"do": "get", "path"}                                a plain HTTP/3 GET on the same connection
#   {"do": "wait", "for", "timeout"}                     until an event of that kind ("datagram", "status", "end:<name>",
#                                                        "server-stream", "server-end", "connect-end", "reset:<name>",
#                                                        "response")
#   {"do": "sleep", "s"}
# Output (stdout, JSON): {"events": [...]} in arrival order: {"kind": "status", "status"}, {"kind": "datagram", "data"},
# {"kind": "data", "stream" (name, or "s<id>" for the server's), "data", "end"}, {"kind": "reset", "stream", "code"},
# {"kind": "stop", "stream", "code"}, {"kind": "connect-data", "hex"}, {"kind": "connect-end"}, {"kind": "response",
# "status", "body"}, {"kind": "closed", "code"}. Data is latin-1 text.
import asyncio
import json
import sys

from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, FrameType, H3Connection
from aioquic.h3.events import DataReceived, DatagramReceived, HeadersReceived, WebTransportStreamDataReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, StopSendingReceived, StreamReset


class Client(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = H3Connection(self._quic, enable_webtransport=True)
        self.events = []
        self.changed = asyncio.Event()
        self.names = {}
        self.session = None
        self.gets = set()

    def name(self, sid):
        return self.names.get(sid, "s%d" % sid)

    def add(self, ev):
        self.events.append(ev)
        self.changed.set()

    def quic_event_received(self, event):
        if isinstance(event, StreamReset):
            self.add({"kind": "reset", "stream": self.name(event.stream_id), "code": event.error_code})
        elif isinstance(event, StopSendingReceived):
            self.add({"kind": "stop", "stream": self.name(event.stream_id), "code": event.error_code})
        elif isinstance(event, ConnectionTerminated):
            self.add({"kind": "closed", "code": event.error_code, "reason": event.reason_phrase})
        for ev in self.h3.handle_event(event):
            sid = getattr(ev, "stream_id", None)
            if isinstance(ev, HeadersReceived) and sid == self.session:
                status = int(dict(ev.headers)[b":status"])
                self.add({"kind": "status", "status": status,
                          "headers": [[k.decode(), v.decode()] for k, v in ev.headers]})
            elif isinstance(ev, HeadersReceived) and sid in self.gets:
                self.get_status = int(dict(ev.headers)[b":status"])
                self.get_body = b""
            elif isinstance(ev, DataReceived) and sid in self.gets:
                self.get_body += ev.data
                if ev.stream_ended:
                    self.add({"kind": "response", "status": self.get_status, "body": self.get_body.decode("latin-1")})
            elif isinstance(ev, DataReceived) and sid == self.session:
                if ev.data:
                    self.add({"kind": "connect-data", "hex": ev.data.hex()})
                if ev.stream_ended:
                    self.add({"kind": "connect-end"})
            elif isinstance(ev, DatagramReceived):
                self.add({"kind": "datagram", "data": ev.data.decode("latin-1")})
            elif isinstance(ev, WebTransportStreamDataReceived):
                self.add({"kind": "data", "stream": self.name(sid), "data": ev.data.decode("latin-1"),
                          "end": ev.stream_ended})
            if getattr(ev, "stream_ended", False) and sid == self.session and not isinstance(ev, DataReceived):
                self.add({"kind": "connect-end"})

    def seen(self, want, since):
        for ev in self.events[since:]:
            k = ev["kind"]
            if want == k or (want == "server-stream" and k == "data" and ev["stream"].startswith("s")):
                return True
            if want == "server-end" and k == "data" and ev["stream"].startswith("s") and ev["end"]:
                return True
            if want.startswith("end:") and k == "data" and ev["stream"] == want[4:] and ev["end"]:
                return True
            if want.startswith("reset:") and k in ("reset", "stop") and ev["stream"] == want[6:]:
                return True
        return False

    async def wait(self, want, timeout, since):
        async def loop():
            while not self.seen(want, since):
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(loop(), timeout)


async def run(job):
    cfg = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, max_datagram_frame_size=65536)
    cfg.load_verify_locations(job["ca"])
    cfg.server_name = job.get("servername", "a.test")
    host = cfg.server_name.encode()
    async with connect("127.0.0.1", job["port"], configuration=cfg, create_protocol=Client) as c:
        streams = {}
        mark = 0
        for step in job["steps"]:
            do = step["do"]
            data = step.get("data", "").encode("latin-1")
            if do == "connect":
                sid = c._quic.get_next_available_stream_id()
                c.session = sid
                fields = [(b":method", b"CONNECT"), (b":protocol", b"webtransport"), (b":scheme", b"https"),
                          (b":authority", host), (b":path", step["path"].encode()),
                          (b"origin", b"https://" + host)]
                fields += [(k.encode(), v.encode()) for k, v in step.get("headers", [])]
                c.h3.send_headers(sid, fields)
                mark = len(c.events)
            elif do == "datagram":
                c.h3.send_datagram(c.session, data)
            elif do in ("bidi", "uni"):
                sid = c.h3.create_webtransport_stream(c.session, is_unidirectional=do == "uni")
                if do == "bidi":
                    # aioquic 1.7.2 marks a bidirectional stream as WebTransport only when the peer opened it: without
                    # this, the server's bytes on the client's own stream would be parsed as HTTP/3 frames.
                    with c.h3._get_or_create_stream(sid) as own:
                        own.frame_type = FrameType.WEBTRANSPORT_STREAM
                        own.session_id = c.session
                streams[step["name"]] = sid
                c.names[sid] = step["name"]
                c._quic.send_stream_data(sid, data, end_stream=step.get("fin", False))
            elif do == "write":
                c._quic.send_stream_data(streams[step["name"]], data, end_stream=step.get("fin", False))
            elif do == "reset":
                c._quic.reset_stream(streams[step["name"]], step["code"])
            elif do == "capsule":
                c.h3.send_data(c.session, bytes.fromhex(step["hex"]), end_stream=step.get("fin", False))
            elif do == "get":
                sid = c._quic.get_next_available_stream_id()
                c.gets.add(sid)
                c.h3.send_headers(sid, [(b":method", b"GET"), (b":scheme", b"https"), (b":authority", host),
                                        (b":path", step["path"].encode())], end_stream=True)
            elif do == "sleep":
                c.transmit()
                await asyncio.sleep(step["s"])
            c.transmit()
            if do == "wait":
                try:
                    await c.wait(step["for"], step.get("timeout", 5), step.get("since", 0))
                except asyncio.TimeoutError:
                    c.add({"kind": "timeout", "for": step["for"]})
                    break
        return c.events


print(json.dumps({"events": asyncio.run(run(json.load(sys.stdin)))}))
