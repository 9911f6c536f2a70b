// Loaded into Node for Windows under Wine by scripts/test-windows.mjs (`--import`), never on Windows itself.
// Wine 8.0 fails a TCP connect whose socket asked for keep-alive before connecting ("connect UNKNOWN"); undici
// (so every fetch() in the tests) does that, and so does node:http against node:http — the proof is
// scripts/windows/wine-keepalive-proof.mjs. Keep-alive probes start after a minute of silence and no test waits
// that long, so the client's setKeepAlive becomes a no-op; the server under test is not touched.
import net from 'node:net';

net.Socket.prototype.setKeepAlive = function setKeepAlive() {
  return this;
};
