// A stand-in for `require('supertest')` that serves each `request(app)` through the app's own `app.listen(0)`
// (Gale's engine) instead of `http.createServer(app)` (node:http). supertest listens before each request and closes
// after it; this hands it a server object that does the same through app.listen, so the lifecycle is unchanged.
'use strict';
const real = require(process.env.UPSTREAM_REAL_SUPERTEST);

/** What supertest takes for a server: listen(0), address(), close(cb) and `_handle` while listening. */
class EngineServer {
  constructor(app) {
    this.app = app;
    this.server = null;
    this._handle = null;
  }
  listen(port) {
    this.server = this.app.listen(port);
    this._handle = this.server;
    return this;
  }
  address() {
    return this.server === null ? null : this.server.address();
  }
  close(cb) {
    const server = this.server;
    this.server = null;
    this._handle = null;
    if (server === null) {
      if (cb) process.nextTick(cb);
      return this;
    }
    server.close(cb);
    return this;
  }
}

/** An app that listens itself (an Express app); anything else (a bare `(req, res)` function) goes to node:http. */
const served = (app) => (typeof app === 'function' && typeof app.listen === 'function' ? new EngineServer(app) : app);

module.exports = function request(app, options) {
  return real(served(app), options);
};
module.exports.Test = real.Test;
module.exports.agent = function agent(app, options) {
  return real.agent(served(app), options);
};
module.exports.cookies = real.cookies;
