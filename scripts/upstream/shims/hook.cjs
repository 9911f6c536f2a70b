// Loaded with `--require` into an upstream suite's mocha: redirects, at run time, the suite's requires of the
// package under test (`require('..')`, `require('../../lib/express')`, `require('../lib/utils')`) and, when
// UPSTREAM_SUPERTEST names a stand-in, `require('supertest')`. The suite's files stay as upstream wrote them.
'use strict';
const Module = require('node:module');
const path = require('node:path');

const copy = process.env.UPSTREAM_COPY; // the suite's temporary copy (the package root its tests require)
const impl = process.env.UPSTREAM_IMPL; // the module that stands for that package
const utils = process.env.UPSTREAM_UTILS; // stands for its lib/utils (Express 5's tests take `methods` from it)
const supertest = process.env.UPSTREAM_SUPERTEST; // a supertest stand-in, or unset for the real one
if (!copy || !impl) throw new Error('hook.cjs needs UPSTREAM_COPY and UPSTREAM_IMPL');

const pkgRoots = new Set([
  copy,
  path.join(copy, 'index.js'),
  path.join(copy, 'lib', 'express'),
  path.join(copy, 'lib', 'express.js'),
]);
const utilsPaths = new Set([path.join(copy, 'lib', 'utils'), path.join(copy, 'lib', 'utils.js')]);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (request === 'supertest' && supertest && parent && parent.filename !== supertest) return supertest;
  if ((request.startsWith('.') || request.startsWith('/')) && parent && parent.filename) {
    const target = path.resolve(path.dirname(parent.filename), request);
    if (pkgRoots.has(target) || pkgRoots.has(target.replace(/[\\/]+$/, ''))) return impl;
    if (utils && utilsPaths.has(target)) return utils;
  }
  return resolve.call(this, request, parent, ...rest);
};
