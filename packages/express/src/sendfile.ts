// Express's sendfile(): pipes a `send` stream into res and reports the outcome once (end, error,
// directory, or the client going away).
import onFinished from 'on-finished';

type Cb = (err?: unknown) => void;

/** What `send` returns, as sendfile uses it. */
export interface FileStream {
  on(event: string, fn: (...a: unknown[]) => void): unknown;
  pipe(res: unknown): unknown;
}

/** Express's sendfile(). */
export function sendfile(
  res: { setHeader(k: string, v: string): unknown },
  file: FileStream,
  options: Record<string, unknown>,
  callback: Cb,
): void {
  let done = false;
  let streaming: boolean | undefined;
  const onaborted = (): void => {
    if (done) return;
    done = true;
    callback(Object.assign(new Error('Request aborted'), { code: 'ECONNABORTED' }));
  };
  const ondirectory = (): void => {
    if (done) return;
    done = true;
    callback(Object.assign(new Error('EISDIR, read'), { code: 'EISDIR' }));
  };
  const onerror = (err: unknown): void => {
    if (done) return;
    done = true;
    callback(err);
  };
  const onend = (): void => {
    if (done) return;
    done = true;
    callback();
  };
  const onfinish = (err: unknown): void => {
    if (err && (err as { code?: string }).code === 'ECONNRESET') {
      onaborted();
      return;
    }
    if (err) {
      onerror(err);
      return;
    }
    if (done) return;
    setImmediate(() => {
      if (streaming !== false && !done) {
        onaborted();
        return;
      }
      if (done) return;
      done = true;
      callback();
    });
  };
  file.on('directory', ondirectory);
  file.on('end', onend);
  file.on('error', onerror);
  file.on('file', () => {
    streaming = false;
  });
  file.on('stream', () => {
    streaming = true;
  });
  onFinished(res as never, onfinish);
  if (options.headers) {
    file.on('headers', (r: unknown) => {
      const obj = options.headers as Record<string, string>;
      for (const k of Object.keys(obj)) (r as typeof res).setHeader(k, obj[k] as string);
    });
  }
  file.pipe(res);
}
