// Test certificates made with openssl at test time (never committed keys): a CA, and leaf certificates it signs
// for given host names (also valid for 127.0.0.1), written to a temp dir. openssl is installed if missing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCommand } from '../system-tools.js';

export interface Leaf {
  cert: string;
  key: string;
  certPath: string;
  keyPath: string;
  /** The leaf's serial number (hex), to tell certificates apart. */
  serial: string;
}

export interface Pki {
  dir: string;
  ca: string;
  caPath: string;
  leaf(name: string): Leaf;
}

/** A fresh CA in a temp dir; `leaf(name)` issues a certificate for `name` and 127.0.0.1 (a new one per call). */
export function makePki(): Pki {
  const openssl = ensureCommand('openssl', 'openssl');
  const dir = mkdtempSync(join(tmpdir(), 'gale-tls-'));
  const run = (args: string[]) => execFileSync(openssl, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key']);
  run(['req', '-x509', '-new', '-key', 'ca.key', '-days', '2', '-subj', '/CN=Gale Test CA', '-out', 'ca.pem']);
  let n = 0;
  return {
    dir,
    ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    caPath: join(dir, 'ca.pem'),
    leaf(name: string): Leaf {
      n++;
      const base = `${name.replace(/[^a-z0-9.]/gi, '_')}-${n}`;
      writeFileSync(join(dir, `${base}.ext`), `subjectAltName=DNS:${name},IP:127.0.0.1\n`);
      run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${base}.ec`]);
      // PKCS#8, as most tools write keys today.
      run(['pkcs8', '-topk8', '-nocrypt', '-in', `${base}.ec`, '-out', `${base}.key`]);
      run(['req', '-new', '-key', `${base}.key`, '-subj', `/CN=${name}`, '-out', `${base}.csr`]);
      run([
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        `${base}.ext`,
        '-out',
        `${base}.pem`,
      ]);
      const serial =
        run(['x509', '-in', `${base}.pem`, '-noout', '-serial'])
          .toString()
          .trim()
          .split('=')[1] ?? '';
      return {
        cert: readFileSync(join(dir, `${base}.pem`), 'utf8'),
        key: readFileSync(join(dir, `${base}.key`), 'utf8'),
        certPath: join(dir, `${base}.pem`),
        keyPath: join(dir, `${base}.key`),
        serial: serial.toLowerCase(),
      };
    },
  };
}
