// autocannon as a load tool (`--tool autocannon`, the npm devDependency): lib/autocannon-run.mjs runs it in its own
// Node process pinned to the load core, checks the status and body bytes of every response through a setupClient
// hook, and prints one JSON line, parsed here.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadErrors, LoadRequest, LoadResult, LoadTool } from './load-types.ts';
import { atExit } from './proc.ts';
import { repoDir } from './servers.ts';
import { emptyResult, outputTail, runPinnedTool } from './toolrun.ts';

const runner = fileURLToPath(new URL('./autocannon-run.mjs', import.meta.url));
const pkg = join(repoDir, 'node_modules', 'autocannon', 'package.json');

interface RunnerJson {
  requests: number;
  checked: number;
  invalid: number;
  firstInvalid: string;
  hookProblem: string | null;
  errors: LoadErrors;
  autocannon: Record<string, unknown>;
  durationS: number;
  latencyUs: LoadResult['latencyUs'];
}

async function run(req: LoadRequest): Promise<LoadResult> {
  if (req.threads !== 1) return emptyResult(`autocannon runs here in one thread (got --threads ${req.threads})`);
  const dir = mkdtempSync(join(tmpdir(), 'gale-autocannon-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const unhook = atExit(removeDir);
  const bodyPath = join(dir, 'expected-body');
  const cfgPath = join(dir, 'config.json');
  writeFileSync(bodyPath, req.scenario.body);
  writeFileSync(
    cfgPath,
    JSON.stringify({
      url: req.url,
      connections: req.connections,
      pipelining: req.depth,
      durationS: req.durationS,
      timeoutS: req.timeoutS,
      method: req.scenario.method,
      headers: req.scenario.headers,
      expectStatus: req.scenario.status,
      expectBodyFile: bodyPath,
    }),
  );
  const limitMs = (req.durationS + req.timeoutS + 15) * 1000;
  const x = await runPinnedTool(process.execPath, [runner, cfgPath], { cpu: req.cpu, nofile: req.nofile, limitMs });
  removeDir();
  unhook();
  const { code, signal, toolCpuPct } = x;
  if (x.killed) return emptyResult(`autocannon did not finish within ${limitMs / 1000}s and was killed`, toolCpuPct);
  const line = x.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (code !== 0 || !line) {
    const why = outputTail(x);
    return emptyResult(`autocannon exited with ${code ?? signal}${why ? `: ${why}` : ''}`, toolCpuPct);
  }
  const j = JSON.parse(line) as RunnerJson;
  if (j.hookProblem) return emptyResult(j.hookProblem, toolCpuPct);
  return {
    requests: j.requests,
    durationS: j.durationS,
    rps: j.durationS > 0 ? j.requests / j.durationS : 0,
    latencyUs: j.latencyUs,
    errors: j.errors,
    checked: j.checked,
    invalid: j.invalid,
    firstInvalid: j.firstInvalid,
    toolCpuPct,
    extra: { autocannon: j.autocannon },
  };
}

export const autocannon: LoadTool = {
  id: 'autocannon',
  maxThreads: 1,
  validates:
    "the exact status and the exact body bytes, compared as autocannon's HTTP parser delivers " +
    "them (a `setupClient` hook in `lib/autocannon-run.mjs`, since autocannon's own `expectBody` compares text " +
    'decoded chunk by chunk); a connection closed by the server is an error',
  latency: "per response, autocannon's own timing from the request's write to the end of its response",
  missing() {
    if (existsSync(pkg)) return null;
    return [
      'autocannon is not installed. It is a devDependency of the repository: run `npm install` at the repo root',
      '(or: npm install --save-dev autocannon), then run the benchmark again.',
    ].join('\n');
  },
  version() {
    try {
      const { version } = JSON.parse(readFileSync(pkg, 'utf8')) as { version: string };
      return `autocannon ${version} on Node ${process.version}`;
    } catch {
      return 'autocannon (unknown version)';
    }
  },
  describe: (connections) => `autocannon -c ${connections}`,
  run,
};
