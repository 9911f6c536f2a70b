// nginx as a static-file baseline: the harness starts Debian's nginx itself, one process (`master_process off`) on
// 127.0.0.1:$PORT, with a config generated into a temp dir (pid, logs and temp paths there), serving the demo's
// public/ at /static/ and prerendered/ at / like the other apps. Only the static scenarios run against it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prerenderedDir, publicDir } from './assets.ts';
import { atExit } from './proc.ts';

export const NGINX_INSTALL = 'sudo apt-get update && sudo apt-get install -y nginx-light';

let found: string | null | undefined;

/** The nginx binary: on PATH, or /usr/sbin/nginx (not on a normal user's PATH on Debian); null when missing. */
export function nginxBinary(): string | null {
  if (found !== undefined) return found;
  found = null;
  try {
    found = execFileSync('bash', ['-c', 'command -v nginx'], { encoding: 'utf8', stdio: 'pipe' }).trim() || null;
  } catch {}
  if (!found) {
    for (const p of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']) {
      if (existsSync(p)) found = p;
    }
  }
  return found;
}

/** `nginx -V` output (nginx prints it to stderr), or ''. */
function nginxInfo(): string {
  const bin = nginxBinary();
  if (!bin) return '';
  const r = spawnSync(bin, ['-V'], { encoding: 'utf8' });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`;
}

let info: string | undefined;
const nginxV = (): string => {
  info ??= nginxInfo();
  return info;
};

export function nginxVersion(): string | null {
  return nginxV().match(/nginx version: (\S+)/)?.[1] ?? null;
}

export function nginxMissing(): string | null {
  return nginxBinary() ? null : `nginx is not installed (install it with: ${NGINX_INSTALL})`;
}

/** Temp-path directives for the modules this nginx was built with (a directive of a missing module is an error). */
function tempPaths(dir: string): string[] {
  const v = nginxV();
  const out = [`client_body_temp_path ${q(join(dir, 'client_body'))};`];
  for (const m of ['proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    if (v.includes(`--without-http_${m}_module`)) continue;
    out.push(`${m}_temp_path ${q(join(dir, m))};`);
  }
  return out;
}

const q = (s: string): string => `"${s.replace(/["\\]/g, '\\$&')}"`;

/** The generated nginx.conf. `openFileCache` keeps descriptors and metadata of served files (not their content). */
export function nginxConfig(o: {
  dir: string;
  port: number;
  connections: number;
  openFileCache: boolean;
  /** TCP_CORK around sendfile (nginx's `tcp_nopush`); default off, see the comment in the config. */
  tcpNopush?: boolean;
}): string {
  const cache = o.openFileCache
    ? ['open_file_cache max=1000 inactive=60s;', 'open_file_cache_valid 60s;', 'open_file_cache_min_uses 1;']
    : ['open_file_cache off;'];
  return [
    'daemon off;',
    'master_process off;',
    'worker_processes 1;',
    `pid ${q(join(o.dir, 'nginx.pid'))};`,
    'error_log stderr warn;',
    `events { worker_connections ${Math.max(1024, o.connections * 2 + 64)}; }`,
    'http {',
    '  access_log off;',
    '  sendfile on;',
    // tcp_nopush (TCP_CORK) holds each response until a full packet or the uncork: with wrk's pipelined batches
    // of small answers it left nginx at a fraction of its speed, so the default row runs without it (what a
    // small-file site would pick); `nginx-nopush` keeps it for the large-file comparison.
    `  tcp_nopush ${o.tcpNopush ? 'on' : 'off'};`,
    '  tcp_nodelay on;',
    // nginx closes a keep-alive connection after 1000 requests by default; the Node servers never do, and a
    // closed connection is an error for the load tools.
    '  keepalive_requests 1000000000;',
    '  keepalive_timeout 75s;',
    '  server_tokens off;',
    '  types { text/html html; text/css css; application/octet-stream bin; }',
    '  default_type application/octet-stream;',
    '  charset utf-8;',
    ...tempPaths(o.dir).map((l) => `  ${l}`),
    ...cache.map((l) => `  ${l}`),
    '  server {',
    `    listen 127.0.0.1:${o.port};`,
    '    server_name _;',
    `    location /static/ { alias ${q(`${publicDir}/`)}; }`,
    `    location / { root ${q(prerenderedDir)}; }`,
    '  }',
    '}',
    '',
  ].join('\n');
}

/** Writes a config into a fresh temp dir; returns the nginx command line and a cleanup that removes the dir. */
export function nginxLaunch(o: { port: number; connections: number; openFileCache: boolean; tcpNopush?: boolean }): {
  cmd: string;
  args: string[];
  cleanup: () => void;
} {
  const bin = nginxBinary();
  if (!bin) throw new Error(nginxMissing() ?? 'nginx is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'gale-bench-nginx-'));
  const unhook = atExit(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'logs'));
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig({ ...o, dir }));
  return {
    cmd: bin,
    // -e: the error log nginx opens before reading the config (else /var/log/nginx/error.log).
    args: ['-p', `${dir}/`, '-e', 'stderr', '-c', conf],
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      unhook();
    },
  };
}
