// Interop with a second independent client: Python's `websockets` library (Debian python3-websockets, or
// installed from PyPI into a temporary directory when no Python on this machine has it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withApp } from '../helpers.js';
import { PINNED, type Python, pinnedPython, runClient, systemPython } from './py/python.js';

// Both client generations when this machine has Debian's; the pinned PyPI one always (a fresh machine without
// python3-websockets must pass too).
const clients: [string, () => Python][] = [[`websockets ${PINNED}`, pinnedPython]];
const sys = systemPython();
if (sys) clients.push(['Debian python3-websockets', () => sys]);

for (const [clientName, findPython] of clients)
  for (const mode of ['plain', 'deflate', 'deflate-server-bits'] as const) {
    const compress = mode !== 'plain';
    const label = {
      plain: 'no compression',
      deflate: 'permessage-deflate',
      'deflate-server-bits': 'permessage-deflate offering server_max_window_bits=15, which the answer must name',
    }[mode];
    test(`Python ${clientName} (${label}): echo, big message, ping, close code`, {
      timeout: 60_000,
    }, async (t) => {
      const closes: [number, string][] = [];
      const { port } = await withApp(t, (app) => {
        app.ws('/echo', {
          compression: compress ? 'shared' : false,
          maxPayloadLength: 4 * 1024 * 1024,
          message: (ws, data, isBinary) => ws.send(data, { binary: isBinary }),
          close: (_ws, code, reason) => closes.push([code, reason]),
        });
      });
      const out = await runClient(findPython(), [`ws://127.0.0.1:${port}/echo`, mode]);
      const { version, ...r } = JSON.parse(out);
      t.diagnostic(`websockets ${version}`);
      assert.deepEqual(r, {
        extensions: compress ? ['permessage-deflate'] : [],
        text: 'héllo',
        binary: [0, 1, 255],
        big_ok: true,
        pong: true,
        close_code: 4000,
      });
      assert.deepEqual(closes, [[4000, 'py bye']]);
    });
  }
