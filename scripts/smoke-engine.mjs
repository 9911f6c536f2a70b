// A smoke test of one engine binary on the Node running it: loads gale (with GALE_NATIVE naming the binary under
// test, or whichever the loader finds), serves HTTP and a WebSocket echo on 127.0.0.1 port 0, checks the answers,
// closes, and prints what was loaded. Used by .github/workflows/release.yml on each platform, and by hand:
//   GALE_NATIVE=/path/gale.linux-arm64-gnu.node node scripts/smoke-engine.mjs
import assert from 'node:assert/strict';
import net from 'node:net';
import { gale } from 'gale';

const timer = setTimeout(() => {
  console.error('smoke: no answer within 20 s');
  process.exit(1);
}, 20_000);

const app = gale();
app.get('/hello/:name', (req) => ({ hello: req.params.name }));
app.ws('/echo', { message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }) });
const { port } = await app.listen(0, '127.0.0.1');

const res = await fetch(`http://127.0.0.1:${port}/hello/world`);
assert.equal(res.status, 200);
assert.deepEqual(await res.json(), { hello: 'world' });
assert.equal((await fetch(`http://127.0.0.1:${port}/nothing`)).status, 404);

// A WebSocket round trip over a raw socket (Node 20 has no global WebSocket client): handshake, one masked text frame.
const echoed = await new Promise((resolve, reject) => {
  const s = net.connect(port, '127.0.0.1');
  let buf = Buffer.alloc(0);
  s.on('error', reject);
  s.on('connect', () =>
    s.write(
      'GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    ),
  );
  let upgraded = false;
  s.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    if (!upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end === -1) return;
      assert.match(buf.subarray(0, end).toString(), /^HTTP\/1\.1 101 /);
      buf = buf.subarray(end + 4);
      upgraded = true;
      const mask = Buffer.from([1, 2, 3, 4]);
      const payload = Buffer.from('ping');
      s.write(
        Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload.map((b, i) => b ^ mask[i % 4])]),
      );
    }
    if (upgraded && buf.length >= 2 && buf.length >= 2 + (buf[1] & 0x7f)) {
      resolve(buf.subarray(2, 2 + (buf[1] & 0x7f)).toString());
      s.destroy();
    }
  });
});
assert.equal(echoed, 'ping');
await app.close();
clearTimeout(timer);

const { nativeInfo } = await import('../packages/gale/dist/native.js').catch(() => ({ nativeInfo: undefined }));
console.log(
  `smoke: ok on Node ${process.version} ${process.platform}-${process.arch}` +
    (nativeInfo ? ` with ${nativeInfo.path} (engine ${nativeInfo.build?.engine ?? '?'})` : ''),
);
