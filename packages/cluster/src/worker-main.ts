// The first module of a gale.cluster() worker process: sets up the worker side (worker.ts), then imports the
// entry module, which creates the app and calls app.listen() as it would in a single process.
import { ENV } from './protocol.js';
import { installWorker } from './worker.js';

installWorker();
const entry = process.env[ENV.entry];
if (entry === undefined || entry === '') {
  console.error(`gale cluster worker: ${ENV.entry} is not set (this module is started by gale.cluster())`);
  process.exit(1);
}
await import(entry);
