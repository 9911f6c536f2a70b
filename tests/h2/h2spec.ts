// h2spec (github.com/summerwind/h2spec), the HTTP/2 conformance suite, for the tests: built once with `go install`
// from the Go module proxy into the cache folder (scripts/cache-dir.mjs), pinned; Go comes from PATH or Debian.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../scripts/cache-dir.mjs';
import { ensureCommand } from '../system-tools.js';

/** The h2spec release the tests pin (its module has no go.mod, hence +incompatible). */
export const H2SPEC = 'v2.2.1+incompatible';

/** The path of the pinned h2spec binary, built on first use; throws saying how to get it when that fails. */
export function h2specPath(): string {
  const dir = cacheDir(`h2spec-${H2SPEC}`);
  const bin = join(dir, 'h2spec');
  if (existsSync(bin)) return bin;
  const go = ensureCommand('go', 'golang-go');
  mkdirSync(cacheDir(), { recursive: true });
  const staging = mkdtempSync(cacheDir('h2spec-staging-'));
  try {
    execFileSync(go, ['install', `github.com/summerwind/h2spec/cmd/h2spec@${H2SPEC}`], {
      env: { ...process.env, GOBIN: staging, GOFLAGS: '-modcacherw' },
      stdio: 'inherit',
      timeout: 300_000,
    });
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `the HTTP/2 conformance test needs h2spec and building it failed (${(err as Error).message}): install Go ` +
        `(\`sudo apt-get install -y golang-go\`), then \`GOBIN=${dir} go install ` +
        `github.com/summerwind/h2spec/cmd/h2spec@${H2SPEC}\``,
    );
  }
  // A rename is atomic: a parallel run never sees a half-built folder.
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another run got there first
  }
  return bin;
}
