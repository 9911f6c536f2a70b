#!/usr/bin/env node
// The `gale` command (package.json `bin`): start, dev, bench and --version. Parses the command line and hands off;
// the engine is loaded only by the commands that need it (start, --version), so `gale dev`'s watcher and
// `gale bench` stay light.
import { parseArgs } from 'node:util';
import { CliError } from './common.js';

const USAGE = `Usage: gale <command> [options]

Commands:
  start [entry]        Run the app (entry: the argument, package.json "main", or server.js/index.js…, also in dist/)
    --port <n>           Sets PORT for the app (apps read process.env.PORT)
    --host <addr>        Sets HOST for the app
    --env-file <file>    Loads environment variables from a .env file first
    --workers <n|auto>   Run n workers with @gale-http/cluster on one port (auto: one per core; SIGHUP reloads)
  dev [entry]          Run the app and restart it when a source file changes (TypeScript through tsx or Node's
                       type stripping). Entry as for start, src/server.ts and src/index.ts first
    --watch <dir>        Directory to watch (repeatable; default: the entry's directory)
    --ext <list>         Extensions that trigger a restart (default: js,mjs,cjs,ts,mts,cts,json,env)
    --port, --host, --env-file   as for start
  bench <url>          A short load test with autocannon (an optional peer dependency: npm install -D autocannon),
                       checked: a probe request first, then every answer must have the expected status
    -c, --connections <n>  Concurrent connections (default 50)
    -d, --duration <s>     Seconds (default 10)
    -p, --pipelining <n>   Requests in flight per connection (default 1)
    -m, --method <m>       HTTP method (default GET)
    -H, --header <h>       'name: value' (repeatable)
    -b, --body <text>      Request body
    --expect-status <n>    The status every answer must have (default: any 2xx)
    --expect-body <text>   The body every answer must have
    --json                 Print the result as JSON
  --version, -v        Prints the versions of gale, its engine and the binary loaded (package and path)
  --help, -h           This text

Docs: https://github.com/gale-http/gale#the-gale-command`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 1 : 0;
    case '-v':
    case '--version':
    case 'version': {
      const { printVersion } = await import('./version.js');
      return printVersion();
    }
    case 'start': {
      const { start } = await import('./start.js');
      const { values, positionals, tail } = parse(rest, {
        port: { type: 'string' },
        host: { type: 'string' },
        'env-file': { type: 'string' },
        workers: { type: 'string' },
      });
      return start({
        entry: positionals[0],
        port: values.port as string | undefined,
        host: values.host as string | undefined,
        envFile: values['env-file'] as string | undefined,
        workers: values.workers as string | undefined,
        args: tail,
      });
    }
    case 'dev': {
      const { dev } = await import('./dev.js');
      const { values, positionals, tail } = parse(rest, {
        port: { type: 'string' },
        host: { type: 'string' },
        'env-file': { type: 'string' },
        watch: { type: 'string', multiple: true },
        ext: { type: 'string' },
      });
      return dev({
        entry: positionals[0],
        port: values.port as string | undefined,
        host: values.host as string | undefined,
        envFile: values['env-file'] as string | undefined,
        watch: values.watch as string[] | undefined,
        ext: values.ext as string | undefined,
        args: tail,
      });
    }
    case 'bench': {
      const { bench } = await import('./bench.js');
      const { values, positionals } = parse(rest, {
        connections: { type: 'string', short: 'c' },
        duration: { type: 'string', short: 'd' },
        pipelining: { type: 'string', short: 'p' },
        method: { type: 'string', short: 'm' },
        header: { type: 'string', short: 'H', multiple: true },
        body: { type: 'string', short: 'b' },
        'expect-status': { type: 'string' },
        'expect-body': { type: 'string' },
        json: { type: 'boolean' },
      });
      return bench({
        url: positionals[0],
        connections: values.connections as string | undefined,
        duration: values.duration as string | undefined,
        pipelining: values.pipelining as string | undefined,
        method: values.method as string | undefined,
        headers: (values.header as string[] | undefined) ?? [],
        body: values.body as string | undefined,
        expectStatus: values['expect-status'] as string | undefined,
        expectBody: values['expect-body'] as string | undefined,
        json: values.json === true,
      });
    }
    default:
      throw new CliError(`unknown command '${command}'. Run gale --help for the commands.`);
  }
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

/** Options before `--`; what follows `--` is passed to the app untouched. */
function parse(args: string[], options: OptionSpec) {
  const cut = args.indexOf('--');
  const own = cut === -1 ? args : args.slice(0, cut);
  const tail = cut === -1 ? [] : args.slice(cut + 1);
  try {
    const { values, positionals } = parseArgs({ args: own, options, allowPositionals: true, strict: true });
    return { values: values as Record<string, unknown>, positionals, tail };
  } catch (err) {
    throw new CliError(`${(err as Error).message}. Run gale --help for the options.`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // start and dev keep running (the app's server, the watcher); they return -1 to say so.
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof CliError) process.stderr.write(`gale: ${err.message}\n`);
    else process.stderr.write(`gale: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = err instanceof CliError ? err.exitCode : 1;
  },
);
