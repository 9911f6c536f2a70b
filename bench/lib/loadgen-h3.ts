// The gale-loadgen-h3 load tool (bench/loadgen-h3, Rust: quinn + h3) for the HTTP/3 scenarios: built on demand with
// cargo, run pinned to its core; it checks the status and exact body of every response and prints gale-loadgen's JSON.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadRequest, LoadResult, LoadTool } from './load-types.ts';
import { cargoTool, lastJsonLine, loadgenResult } from './loadgen.ts';
import { atExit } from './proc.ts';
import type { Scenario } from './scenario-types.ts';
import { benchCert, validateSecure } from './secure.ts';
import { emptyResult, outputTail, runPinnedTool } from './toolrun.ts';
import type { Validation } from './validate.ts';

const tool = cargoTool('gale-loadgen-h3', 'tool');

/** Path of the built binary (for the pre-run check), once `loadgenH3.missing()` returned null. */
export function loadgenH3Binary(): string | null {
  return tool.binary();
}

async function run(req: LoadRequest): Promise<LoadResult> {
  const binary = tool.binary();
  if (!binary) return emptyResult(tool.build() ?? 'gale-loadgen-h3 is not built');
  if (req.threads !== 1) return emptyResult(`gale-loadgen-h3 is single-threaded (got --threads ${req.threads})`);
  const dir = mkdtempSync(join(tmpdir(), 'gale-loadgen-h3-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const unhook = atExit(removeDir);
  const bodyPath = join(dir, 'expected-body');
  writeFileSync(bodyPath, req.scenario.body);
  const args = [
    '--url',
    req.url,
    '--ca',
    benchCert().certPath,
    '--connections',
    String(req.connections),
    '--streams',
    String(req.depth),
    '--duration',
    String(req.durationS),
    '--timeout',
    String(req.timeoutS),
    '--method',
    req.scenario.method,
    ...Object.entries(req.scenario.headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]),
    '--expect-status',
    String(req.scenario.status),
    '--expect-body-file',
    bodyPath,
  ];
  // + 10 s: every connection's handshake comes first (for up to 10 s).
  const limitMs = (req.durationS + req.timeoutS + 25) * 1000;
  const x = await runPinnedTool(binary, args, { cpu: req.cpu, nofile: req.nofile, limitMs });
  removeDir();
  unhook();
  const { code, signal, toolCpuPct } = x;
  if (x.killed)
    return emptyResult(`gale-loadgen-h3 did not finish within ${limitMs / 1000}s and was killed`, toolCpuPct);
  const j = lastJsonLine(x.stdout);
  if ((code !== 0 && code !== 1) || !j) {
    const why = outputTail(x);
    return emptyResult(`gale-loadgen-h3 exited with ${code ?? signal}${why ? `: ${why}` : ''}`, toolCpuPct);
  }
  return loadgenResult(j, toolCpuPct);
}

/**
 * The pre-run check of an HTTP/3 scenario: over HTTPS (validateSecure: status, Content-Type, Alt-Svc, exact body), then
 * one request over HTTP/3 itself with gale-loadgen-h3 (status and exact body; ALPN h3 is all it offers).
 */
export async function validateH3(
  base: string,
  s: Scenario,
): Promise<{ seen: Validation | null; problem: string | null }> {
  const v = await validateSecure(base, s);
  if (v.problem) return v;
  const binary = tool.binary();
  if (!binary) return { seen: v.seen, problem: tool.build() ?? 'gale-loadgen-h3 is not built' };
  const dir = mkdtempSync(join(tmpdir(), 'gale-loadgen-h3-'));
  try {
    const bodyPath = join(dir, 'expected-body');
    writeFileSync(bodyPath, s.body);
    const r = spawnSync(
      binary,
      [
        ...['--url', `${base}${s.path}`, '--ca', benchCert().certPath, '--connections', '1', '--requests', '1'],
        ...['--expect-status', String(s.status), '--expect-body-file', bodyPath, '--timeout', '5'],
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    const j = lastJsonLine(r.stdout ?? '');
    if (r.status !== 0 || !j) {
      const why = j?.first_invalid ?? (`${r.stderr ?? ''}`.trim().split('\n').pop() || `exit ${r.status ?? r.signal}`);
      return { seen: v.seen, problem: `validation over HTTP/3: ${why}` };
    }
    return { seen: v.seen && { ...v.seen, headers: { ...v.seen.headers, protocol: 'h3' } }, problem: null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const loadgenH3: LoadTool = {
  id: 'loadgen-h3',
  maxThreads: 1,
  validates:
    'the exact status and the exact body bytes of every response over HTTP/3 (ALPN h3 only; compared in Rust by ' +
    'gale-loadgen-h3); a stream reset or a connection closed under a request is an error',
  latency: 'per request, from opening its stream to the end of its response body; depth = concurrent streams',
  missing: () => tool.build(),
  version() {
    const binary = tool.binary();
    if (!binary) return 'gale-loadgen-h3 (not built)';
    return spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim() || 'unknown';
  },
  describe: (connections) => `gale-loadgen-h3 -c${connections}`,
  run,
};
