// Nest's `httpsOptions` (node:https's createServer options) as the engine's TLS options (gale's listen({ tls })): the
// certificate, key, CA and the TLS versions and ALPN the engine (rustls) can honour; for anything else an error that
// says what to do instead, thrown by NestFactory.create() rather than an HTTPS server that silently differs.
import type { TlsOptions } from 'gale';

type Pem = string | Uint8Array;

/** What the engine cannot honour, and what to do: a GaleExpressAdapter error with code GALE_NEST_UNSUPPORTED. */
export function unsupported(what: string, instead: string): Error {
  return Object.assign(new Error(`@gale-http/express/nest: ${what} cannot be honoured on Gale's engine: ${instead}`), {
    code: 'GALE_NEST_UNSUPPORTED',
  });
}

const ELSEWHERE =
  'terminate TLS in front of the app (a proxy or load balancer), or serve this app with Nest’s own ExpressAdapter';

/** Options the engine cannot honour, with the reason each is refused (node:tls/https names). */
const REFUSED: Record<string, string> = {
  pfx: 'PKCS#12 (pfx) bundles are not read: give the PEM `key` and `cert`',
  passphrase: 'encrypted private keys are not read: give the key unencrypted (PEM)',
  requestCert: 'client certificates (mutual TLS) are not requested by the engine',
  rejectUnauthorized: 'client certificates (mutual TLS) are not checked by the engine',
  SNICallback: 'an SNI callback is not called: the engine picks certificates by name from a table',
  ciphers: 'the cipher list is rustls’s own (TLS 1.2 and 1.3 AEAD suites)',
  ecdhCurve: 'the key-exchange groups are rustls’s own',
  dhparam: 'there are no finite-field Diffie-Hellman suites',
  secureProtocol: 'give minVersion (TLSv1.2 or TLSv1.3) instead',
  secureOptions: 'OpenSSL option flags do not apply to rustls',
  crl: 'certificate revocation lists are for client certificates, which the engine does not check',
  sigalgs: 'the signature algorithms are rustls’s own',
  privateKeyEngine: 'OpenSSL engines are not used',
  privateKeyIdentifier: 'OpenSSL engines are not used',
  ticketKeys: 'session tickets use keys the engine rotates itself',
  sessionIdContext: 'session resumption is by tickets the engine manages',
  pskCallback: 'pre-shared keys are not supported',
  enableTrace: 'TLS tracing is not available',
  ALPNCallback: 'give ALPNProtocols (a list) instead',
};

/** Options that carry no meaning for the engine's listener and are accepted as they are. */
const IGNORED = new Set(['honorCipherOrder', 'sessionTimeout', 'handshakeTimeout', 'allowHalfOpen', 'noDelay']);

function pemList(value: unknown, what: string): Pem | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string' || v instanceof Uint8Array)) {
      if (value.length === 1) return value[0] as Pem;
      if (what === 'ca') return value.map((v) => (typeof v === 'string' ? v : Buffer.from(v).toString())).join('\n');
      throw unsupported(`httpsOptions.${what} with several entries`, `give one ${what} (PEM), or ${ELSEWHERE}`);
    }
    if (value.some((v) => typeof v === 'object' && v !== null && 'passphrase' in v)) {
      throw unsupported(`httpsOptions.${what} with a passphrase`, `give the key unencrypted (PEM), or ${ELSEWHERE}`);
    }
  }
  throw unsupported(`httpsOptions.${what} of this shape`, `give PEM text or a Buffer, or ${ELSEWHERE}`);
}

function version(value: unknown, what: 'minVersion' | 'maxVersion'): 'TLSv1.2' | 'TLSv1.3' | undefined {
  if (value === undefined) return undefined;
  if (value === 'TLSv1.2' || value === 'TLSv1.3') return value;
  throw unsupported(`httpsOptions.${what} ${JSON.stringify(value)}`, `the engine speaks TLSv1.2 and TLSv1.3 only`);
}

/**
 * The engine's TLS options for Nest's `httpsOptions`, or an error naming the first option it cannot honour.
 *
 * @example
 * toGaleTls({ key: readFileSync('key.pem'), cert: readFileSync('cert.pem') }); // { key, cert }
 */
export function toGaleTls(https: Record<string, unknown>): TlsOptions {
  for (const [name, value] of Object.entries(https)) {
    if (value === undefined || value === false) continue;
    const why = Object.hasOwn(REFUSED, name) ? REFUSED[name] : undefined;
    if (why !== undefined) throw unsupported(`httpsOptions.${name}`, `${why}; or ${ELSEWHERE}`);
  }
  const tls: TlsOptions = {};
  const key = pemList(https.key, 'key');
  const cert = pemList(https.cert, 'cert');
  const ca = pemList(https.ca, 'ca');
  if (key === undefined || cert === undefined) {
    throw unsupported('httpsOptions without both key and cert', `give the PEM key and cert, or ${ELSEWHERE}`);
  }
  tls.key = key;
  tls.cert = cert;
  if (ca !== undefined) tls.ca = ca;
  const min = version(https.minVersion, 'minVersion');
  const max = version(https.maxVersion, 'maxVersion');
  if (max === 'TLSv1.2') {
    throw unsupported('httpsOptions.maxVersion TLSv1.2', 'the engine always offers TLS 1.3 as well');
  }
  if (min !== undefined) tls.minVersion = min;
  const alpn = https.ALPNProtocols;
  if (alpn !== undefined) {
    if (!Array.isArray(alpn) || !alpn.every((p) => typeof p === 'string')) {
      throw unsupported('httpsOptions.ALPNProtocols other than a list of strings', 'give a list such as ["http/1.1"]');
    }
    if (alpn.some((p) => p !== 'http/1.1')) {
      throw unsupported(
        `httpsOptions.ALPNProtocols ${JSON.stringify(alpn)}`,
        'Express on the engine speaks HTTP/1.1 here: give ["http/1.1"] or leave it out',
      );
    }
    tls.alpn = alpn as string[];
  }
  const known = new Set(['key', 'cert', 'ca', 'minVersion', 'maxVersion', 'ALPNProtocols', ...IGNORED]);
  for (const [name, value] of Object.entries(https)) {
    if (value === undefined || known.has(name) || Object.hasOwn(REFUSED, name)) continue;
    throw unsupported(`httpsOptions.${name}`, `the engine has no such TLS setting; leave it out, or ${ELSEWHERE}`);
  }
  return tls;
}
