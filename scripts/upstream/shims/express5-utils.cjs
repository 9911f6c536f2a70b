// Stands for Express 5's private lib/utils in its suite: the tests take only `methods` from it (Express defines it
// as node:http's METHODS in lower case; the 20 cases of test/utils.js that test the other private helpers are not run).
'use strict';
const { METHODS } = require('node:http');
exports.methods = METHODS.map((m) => m.toLowerCase());
