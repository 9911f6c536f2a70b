// The lossy link of the lossy-network bench: a network namespace joined to this one by two TUN devices that
// lossy/wire.py joins in user space, holding every packet half the round trip each way (this kernel has no netem),
// and nftables in the namespace dropping a share of the packets in each direction at random (`numgen random`).
// TCP and QUIC both see the delay and the loss end to end. Removed at exit.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface LossyLink {
  ns: string;
  /** The address of the namespace's end, where the server listens. */
  serverAddr: string;
  /** Sets the loss, in percent (0–100, to 0.1 %), each direction. */
  setLoss(percent: number): void;
  remove(): void;
}

const run = (cmd: string, args: string[], input?: string) =>
  execFileSync(cmd, args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], input });

/** Says what is missing to build the link, or null. */
export function lossyLinkMissing(): string | null {
  for (const [cmd, pkg] of [
    ['ip', 'iproute2'],
    ['nft', 'nftables'],
    ['python3', 'python3'],
  ]) {
    try {
      run('bash', ['-c', `command -v ${cmd}`]);
    } catch {
      return `${cmd} is not installed: apt-get install -y ${pkg}`;
    }
  }
  if (process.getuid?.() !== 0) return 'the lossy link needs root (network namespaces, TUN devices and nftables)';
  return null;
}

/** Builds the link with `rttMs` of round trip added by the wire. */
export async function createLossyLink(rttMs: number): Promise<LossyLink> {
  const id = process.pid % 10_000;
  const ns = `gale-lossy-${id}`;
  const host = `glh${id}`;
  const peer = `gln${id}`;
  const serverAddr = '10.251.0.2';
  let wire: ChildProcess | undefined;
  const remove = () => {
    wire?.kill('SIGKILL');
    try {
      run('ip', ['netns', 'del', ns]);
    } catch {}
  };
  remove();
  try {
    wire = spawn('python3', [join(import.meta.dirname, 'wire.py'), host, peer, String(rttMs / 2)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const w = wire;
    await new Promise<void>((resolve, reject) => {
      w.stdout?.once('data', () => resolve());
      w.once('exit', (code) => reject(new Error(`lossy/wire.py exited with ${code}`)));
    });
    run('ip', ['netns', 'add', ns]);
    run('ip', ['link', 'set', peer, 'netns', ns]);
    run('ip', ['addr', 'add', '10.251.0.1', 'peer', serverAddr, 'dev', host]);
    run('ip', ['link', 'set', host, 'up']);
    run('ip', ['netns', 'exec', ns, 'ip', 'addr', 'add', serverAddr, 'peer', '10.251.0.1', 'dev', peer]);
    run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', peer, 'up']);
    run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
  } catch (err) {
    remove();
    throw new Error(`could not make the lossy link: ${(err as { stderr?: Buffer }).stderr ?? err}`);
  }
  const setLoss = (percent: number) => {
    const per1000 = Math.round(percent * 10);
    const rule = (hook: string, dir: string) =>
      per1000 > 0
        ? `chain ${hook} { type filter hook ${hook} priority 0; ${dir} "${peer}" numgen random mod 1000 < ${per1000} drop; }`
        : '';
    const rules = `table inet gale_lossy {\n${rule('input', 'iifname')}\n${rule('output', 'oifname')}\n}\n`;
    try {
      run('ip', ['netns', 'exec', ns, 'nft', 'delete', 'table', 'inet', 'gale_lossy']);
    } catch {}
    run('ip', ['netns', 'exec', ns, 'nft', '-f', '-'], rules);
  };
  return { ns, serverAddr, setLoss, remove };
}
