// Types for the npm aliases the Express layer loads for its Express 4 mode (the same packages at the
// versions Express 4 ships), declared as loosely as the layer uses them.
declare module 'path-to-regexp-0' {
  function pathToRegexp(
    path: string | RegExp | readonly (string | RegExp)[],
    keys?: { name: string | number }[],
    options?: { sensitive?: boolean; strict?: boolean; end?: boolean },
  ): RegExp;
  export default pathToRegexp;
}
declare module 'body-parser-1' {
  const bodyParser: Record<string, (options?: object) => (req: never, res: never, next: () => void) => void>;
  export default bodyParser;
}
declare module 'serve-static-1' {
  const serveStatic: (root: string, options?: object) => (req: never, res: never, next: () => void) => void;
  export default serveStatic;
}
declare module 'send-0' {
  interface Mime {
    lookup(path: string, fallback?: string): string;
    charsets: { lookup(mime: string, fallback?: string): string };
  }
  const send: ((req: never, path: string, options?: object) => NodeJS.EventEmitter) & { mime: Mime };
  export default send;
}
declare module 'finalhandler-1' {
  const finalhandler: (req: never, res: never, options?: object) => (err?: unknown) => void;
  export default finalhandler;
}
declare module 'content-disposition-0' {
  /** content-disposition 0.5 (Express 4's): every filename parameter quoted. */
  function contentDisposition(filename?: string, options?: { type?: string; fallback?: string | boolean }): string;
  export default contentDisposition;
}
declare module 'content-type-1' {
  /** content-type 1 (Express 4's): parse throws on a malformed value; format sorts the parameters. */
  interface ContentType {
    type: string;
    parameters: Record<string, string>;
  }
  const contentType: { parse(header: string): ContentType; format(obj: ContentType): string };
  export default contentType;
}
