// @ts-check
// The built server's environment variables, read as @sveltejs/adapter-node reads them (same names, the same
// `envPrefix` rule, the same errors for bad values). ENV_PREFIX is replaced when the adapter bundles this file.
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** The output directory (this file is an entry point, so it sits at the top of it). */
export const dir = path.dirname(fileURLToPath(import.meta.url));

const expected = new Set([
  'SOCKET_PATH',
  'HOST',
  'PORT',
  'ORIGIN',
  'XFF_DEPTH',
  'ADDRESS_HEADER',
  'PROTOCOL_HEADER',
  'HOST_HEADER',
  'PORT_HEADER',
  'BODY_SIZE_LIMIT',
  'SHUTDOWN_TIMEOUT',
  'IDLE_TIMEOUT',
  'KEEP_ALIVE_TIMEOUT',
  'HEADERS_TIMEOUT',
  'WORKERS',
]);
// systemd's socket activation variables are never prefixed.
const unprefixed = new Set(['LISTEN_PID', 'LISTEN_FDS']);

/** @type {string} */
export const env_prefix = ENV_PREFIX;

if (env_prefix) {
  for (const name in process.env) {
    if (name.startsWith(env_prefix) && !expected.has(name.slice(env_prefix.length))) {
      throw new Error(
        `You should change envPrefix (${env_prefix}) to avoid conflicts with existing environment variables — unexpectedly saw ${name}`,
      );
    }
  }
}

/**
 * The value of `name` (with the prefix), or `fallback`.
 * @template F
 * @param {string} name
 * @param {F} fallback
 * @returns {string | F}
 */
export function env(name, fallback) {
  const full = (unprefixed.has(name) ? '' : env_prefix) + name;
  const value = process.env[full];
  return value === undefined ? fallback : value;
}

/**
 * A timeout in whole seconds (a non-negative integer), or `fallback` when unset or empty.
 * @param {string} name
 * @param {number} [fallback]
 * @returns {number | undefined}
 */
export function timeout_env(name, fallback) {
  const raw = env(name, undefined);
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) {
    throw new Error(
      `Invalid value for environment variable ${env_prefix + name}: ${JSON.stringify(raw)} (should be a non-negative integer)`,
    );
  }
  return Number.parseInt(raw, 10);
}

/**
 * BODY_SIZE_LIMIT's syntax: bytes, or a number with K, M or G (1024-based); `Infinity` for no limit.
 * @param {string} value
 * @returns {number}
 */
export function parse_as_bytes(value) {
  const unit = value[value.length - 1]?.toUpperCase() ?? '';
  const multiplier = unit === 'K' ? 1024 : unit === 'M' ? 1024 * 1024 : unit === 'G' ? 1024 * 1024 * 1024 : 1;
  return Number(multiplier === 1 ? value : value.slice(0, -1)) * multiplier;
}

/**
 * ORIGIN as an origin (`https://my.site`), or undefined when unset; anything but an http(s) URL is an error.
 * @param {string | undefined} value
 * @returns {string | undefined}
 */
export function parse_origin(value) {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  let url;
  try {
    url = new URL(trimmed);
  } catch (error) {
    throw new Error(
      `Invalid ORIGIN: '${trimmed}'. ORIGIN must be a valid URL with http:// or https:// protocol. ` +
        `For example: 'http://localhost:3000' or 'https://my.site'`,
      { cause: error },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(
      `Invalid ORIGIN: '${trimmed}'. Only http:// and https:// protocols are supported. Received protocol: ${url.protocol}`,
    );
  }
  return url.origin;
}
