// TEMPORARY stand-in for Gale's FastWsConnection (packages/gale/src/fastws/server.ts, being written): just enough of
// the fast-ws protocol for the fastws-echo benchmark (greeting, `echo` events with a reply id, string values).
// Delete this file once packages/gale/dist/fastws/server.js exists.
const id = (name) => {
  let s = 0;
  for (let i = 0; i < name.length; i++) s += name.charCodeAt(i) * (i + 1);
  return s.toString(16);
};

export class FastWsConnection {
  constructor(raw) {
    this.raw = raw;
    this.handlers = new Map();
  }
  greet() {
    this.raw.send('\x00\x02');
  }
  on(name, fn) {
    this.handlers.set(id(name), fn);
    return this;
  }
  receive(text) {
    const start = text.indexOf('\x01');
    if (text.charCodeAt(0) !== 5 || start < 0 || !text.endsWith('\x02')) return this.raw.close(1002, 'bad frame');
    const head = text.slice(1, start);
    const sep = head.indexOf('\x16');
    const replyId = sep < 0 ? '' : head.slice(sep + 1);
    const fn = this.handlers.get(sep < 0 ? head : head.slice(0, sep));
    const data = JSON.parse(text.slice(start + 1, -1))[0];
    fn?.({ name: '', data, replyId, reply: (x) => this.raw.send(`\x06${replyId}\x01${JSON.stringify([x])}\x02`) });
  }
}
