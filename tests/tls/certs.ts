// Test certificates made with openssl at test time (never committed keys): a CA, and leaf certificates it signs
// for given host names (also valid for 127.0.0.1), written to a temp dir. openssl is installed if missing.
// Where openssl cannot run (Node for Windows under Wine starts no Linux program), GALE_TEST_PKI names a folder
// made beforehand by `premakePki` (scripts/test-windows.mjs does): the same CA and leaves, handed out in order.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  /** Removes the temp dir `makePki` made (a premade GALE_TEST_PKI folder is left to the runner that made it). */
  remove(): void;
}

/**
 * A fresh CA in a temp dir; `leaf(name)` issues a certificate for `name` and 127.0.0.1 (a new one per call). The
 * caller removes the dir with `remove()` when its tests are done (`after(() => pki.remove())`).
 */
export function makePki(): Pki {
  const premade = process.env.GALE_TEST_PKI;
  if (premade) return { ...premadePki(premade), remove: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'gale-tls-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    return { ...freshPki(dir), remove };
  } catch (err) {
    remove();
    throw err;
  }
}

/** Makes a CA and `count` leaves per host name in `dir`, for a later `makePki()` with GALE_TEST_PKI=dir. */
export function premakePki(dir: string, leaves: Record<string, number>): void {
  mkdirSync(dir, { recursive: true });
  const pki = freshPki(dir);
  for (const [name, count] of Object.entries(leaves)) {
    for (let i = 0; i < count; i++) {
      const leaf = pki.leaf(name);
      writeFileSync(join(dir, `premade-${safe(name)}-${i + 1}.json`), JSON.stringify(leaf));
    }
  }
}

const safe = (name: string): string => name.replace(/[^a-z0-9.]/gi, '_');

/** The PKI `premakePki` wrote: each `leaf(name)` is the next unused leaf for that name. */
function premadePki(dir: string): Omit<Pki, 'remove'> {
  const used = new Map<string, number>();
  return {
    dir,
    ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    caPath: join(dir, 'ca.pem'),
    leaf(name: string): Leaf {
      const n = (used.get(name) ?? 0) + 1;
      used.set(name, n);
      const file = join(dir, `premade-${safe(name)}-${n}.json`);
      if (!existsSync(file)) {
        throw new Error(`GALE_TEST_PKI=${dir} has no leaf #${n} for ${name}: premake more (scripts/test-windows.mjs)`);
      }
      const leaf = JSON.parse(readFileSync(file, 'utf8')) as Leaf;
      // The paths as this process spells them (the folder may have been written under another OS's view of it).
      const base = leaf.certPath.replace(/^.*[/\\]/, '').replace(/\.pem$/, '');
      return { ...leaf, certPath: join(dir, `${base}.pem`), keyPath: join(dir, `${base}.key`) };
    },
  };
}

function freshPki(dir: string): Omit<Pki, 'remove'> {
  const openssl = ensureCommand('openssl', 'openssl');
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
      const base = `${safe(name)}-${n}`;
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
