// Engine.IO's HTTP long-polling transport on Gale requests: a GET is held open until packets are ready (the
// poll), a POST carries a payload from the client. Payloads use engine.io-parser (packets joined by \x1e,
// binary as 'b' + base64). Answers, status codes and headers follow engine.io's polling.js.
import { deflate, gzip } from 'node:zlib';
import { decodePayload, encodePayload } from 'engine.io-parser';
import type { EngineRequest as Request, EngineResponse as Response } from './node-http.js';
import { type EioPacket, Transport } from './transport.js';

/** Response headers, and the hook that lets `io.engine.on('headers')` listeners change them. */
export type HeaderHook = (headers: Record<string, string | string[]>, req: Request) => void;

export interface PollingOptions {
  maxHttpBufferSize: number;
  /** ms a POST body may take to arrive before a 408 (engine.io's httpRequestBodyTimeout). */
  httpRequestBodyTimeout: number;
  /** false: never compress; else responses of at least `threshold` bytes are gzip/deflate-compressed. */
  httpCompression: false | { threshold: number; level?: number };
  headers: HeaderHook;
}

/** How long a close waits for the next poll before giving up (engine.io's closeTimeout). */
const CLOSE_TIMEOUT = 30_000;

function writeHead(res: Response, status: number, headers: Record<string, string | string[]>): void {
  res.status(status);
  for (const name in headers) res.header(name, headers[name] as string | string[]);
}

/**
 * The HTTP long-polling transport of a session (engine.io's `Polling`): `socket.transport` while the session polls.
 *
 * @example
 * engine.on('connection', (socket) => {
 *   if (socket.transport instanceof Polling) console.log('long-polling until the upgrade');
 * });
 */
export class Polling extends Transport {
  readonly name = 'polling' as const;
  private readonly opts: PollingOptions;
  /** The pending poll (GET), answered by the next send. */
  private req: Request | undefined;
  private res: Response | undefined;
  private dataRes: Response | undefined;
  private shouldClose: (() => void) | undefined;
  private readonly onPollGone = (): void => {
    this.req = undefined;
    this.res = undefined;
    this.writable = false;
    this.onError('poll connection closed prematurely');
  };

  constructor(opts: PollingOptions) {
    super();
    this.opts = opts;
  }

  /** An HTTP request for this session: GET polls, POST sends, anything else is a 500 (as engine.io). */
  onRequest(req: Request, res: Response): void {
    const method = req.method;
    if (method === 'GET') this.onPollRequest(req, res);
    else if (method === 'POST') this.onDataRequest(req, res);
    else res.status(500).end();
  }

  canSendVolatile(): boolean {
    return this.writable;
  }

  private onPollRequest(req: Request, res: Response): void {
    if (this.res !== undefined) {
      this.onError('overlap from client');
      res.status(400).end();
      return;
    }
    this.req = req;
    this.res = res;
    res.once('close', this.onPollGone);
    this.writable = true;
    this.owner.onReady();
    // A close was waiting for this poll: answer it with the close packet.
    if (this.writable && this.shouldClose !== undefined) this.send([{ type: 'noop' }]);
  }

  private onDataRequest(req: Request, res: Response): void {
    if (this.dataRes !== undefined) {
      this.onError('data request overlap from client');
      res.status(400).end();
      return;
    }
    if (req.get('content-type') === 'application/octet-stream') {
      // Engine.IO v4 payloads are text; binary bodies were v3's.
      this.onError('invalid content');
      res.status(400).end();
      return;
    }
    const max = this.opts.maxHttpBufferSize;
    // Too large or too slow ends the session too ('transport error'), not just the request, as engine.io 6.6.13.
    const refuse = (status: 413 | 408, why: string): void => {
      res.status(status).end();
      this.onError(why);
    };
    const declared = Number(req.get('content-length'));
    if (declared > max) {
      refuse(413, 'payload too large');
      return;
    }
    this.dataRes = res;
    const timer = setTimeout(() => {
      if (this.dataRes !== res) return;
      this.dataRes = undefined;
      refuse(408, 'http request timeout');
    }, this.opts.httpRequestBodyTimeout);
    timer.unref();
    req.arrayBuffer().then(
      (body) => {
        clearTimeout(timer);
        if (this.dataRes !== res) return; // closed meanwhile
        this.dataRes = undefined;
        if (body.byteLength > max) {
          refuse(413, 'payload too large');
          return;
        }
        this.onData(Buffer.from(body).toString('utf8'));
        if (res.finished) return;
        // text/html, not text/plain, so that old browsers show no download dialog (engine.io GH-43).
        const headers: Record<string, string | string[]> = { 'Content-Type': 'text/html' };
        this.finishHeaders(req, headers);
        writeHead(res, 200, headers);
        res.end('ok');
      },
      () => {
        clearTimeout(timer);
        if (this.dataRes !== res) return;
        this.dataRes = undefined;
        this.onError('data request connection closed prematurely');
      },
    );
  }

  /** A payload from the client: one or more packets. */
  private onData(payload: string): void {
    for (const packet of decodePayload(payload)) {
      if (packet.type === 'close') {
        this.onClose();
        return;
      }
      this.onPacket(packet);
    }
  }

  override onClose(): void {
    // Answer the pending poll so the client is not left waiting.
    if (this.writable) this.send([{ type: 'noop' }]);
    super.onClose();
  }

  send(packets: EioPacket[]): void {
    this.writable = false;
    if (this.shouldClose !== undefined) {
      packets.push({ type: 'close' });
      const done = this.shouldClose;
      this.shouldClose = undefined;
      done();
    }
    const compress = packets.some((p) => p.options?.compress);
    encodePayload(packets, (payload) => this.write(payload, compress));
  }

  private write(payload: string, compress: boolean): void {
    const req = this.req;
    const res = this.res;
    if (req === undefined || res === undefined) return;
    res.off('close', this.onPollGone);
    const done = (): void => {
      if (this.res === res) {
        this.req = undefined;
        this.res = undefined;
      }
      this.owner.onDrain();
    };
    const headers: Record<string, string | string[]> = { 'Content-Type': 'text/plain; charset=UTF-8' };
    const hc = this.opts.httpCompression;
    const encoding =
      compress && hc !== false && Buffer.byteLength(payload) >= hc.threshold
        ? req.acceptsEncodings('gzip', 'deflate')
        : false;
    if (encoding !== 'gzip' && encoding !== 'deflate') {
      this.finishHeaders(req, headers);
      writeHead(res, 200, headers);
      res.end(payload);
      done();
      return;
    }
    headers['Content-Encoding'] = encoding;
    this.finishHeaders(req, headers);
    const zip = encoding === 'gzip' ? gzip : deflate;
    zip(payload, { level: hc === false ? undefined : hc.level }, (err, out) => {
      if (!res.finished) {
        if (err) res.destroy();
        else {
          writeHead(res, 200, headers);
          res.end(out);
        }
      }
      done();
    });
  }

  /** engine.io's headers(): no-store, and the 'headers' hook. */
  private finishHeaders(req: Request, headers: Record<string, string | string[]>): void {
    const ua = req.get('user-agent');
    if (ua !== undefined && (ua.includes(';MSIE') || ua.includes('Trident/'))) headers['X-XSS-Protection'] = '0';
    headers['cache-control'] = 'no-store';
    this.opts.headers(headers, req);
  }

  protected doClose(fn: () => void): void {
    let timer: NodeJS.Timeout | undefined;
    if (this.dataRes !== undefined) {
      const dataRes = this.dataRes;
      this.dataRes = undefined;
      dataRes.destroy();
    }
    const onClose = (): void => {
      clearTimeout(timer);
      fn();
      this.onClose();
    };
    if (this.writable) {
      this.send([{ type: 'close' }]);
      onClose();
    } else if (this.discarded) {
      onClose();
    } else {
      this.shouldClose = onClose;
      timer = setTimeout(onClose, CLOSE_TIMEOUT);
      timer.unref();
    }
  }
}
