// `gale --version`: the gale package's version, the engine's (from the build record beside the binary, written by
// scripts/build-native.mjs from the Cargo workspace), and which binary was loaded: the per-platform package and its
// version, or the build from source, with the file's path. Exit 1, with the loader's message, when none loads.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The version of the gale package this command belongs to. */
export function packageVersion(): { version: string; dir: string } {
  const file = fileURLToPath(new URL('../../package.json', import.meta.url));
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version: string };
  return { version: pkg.version, dir: fileURLToPath(new URL('../..', import.meta.url)) };
}

export async function printVersion(): Promise<number> {
  const { version, dir } = packageVersion();
  const out = [`gale ${version} (${dir.replace(/[/\\]$/, '')})`];
  let code = 0;
  try {
    const { nativeInfo } = await import('../native.js');
    const b = nativeInfo.build;
    const engine = b?.engine ?? nativeInfo.package?.version ?? 'unknown';
    const details = [
      b?.napi ? `Node-API ${b.napi}` : undefined,
      b?.rustTarget,
      b?.rustc,
      b?.commit ? `commit ${b.commit}` : undefined,
    ].filter(Boolean);
    out.push(`engine ${engine}${details.length ? ` (${details.join(', ')})` : ''}`);
    const source = nativeInfo.package
      ? `${nativeInfo.package.name} ${nativeInfo.package.version}`
      : process.env.GALE_NATIVE
        ? 'GALE_NATIVE'
        : 'built from source';
    out.push(`binary ${source}: ${nativeInfo.path}`);
  } catch (err) {
    out.push(`engine: not loaded: ${(err as Error).message}`);
    code = 1;
  }
  out.push(`node ${process.version} (${process.platform}-${process.arch}, Node-API ${process.versions.napi})`);
  process.stdout.write(`${out.join('\n')}\n`);
  return code;
}
