#!/usr/bin/env node
'use strict';
// The `store-orders-admin` bin: runs the TypeScript entry in this process through tsx's
// CommonJS hook, so exit codes, signals and stdio are the command's own.
const path = require('node:path');

let register;
try {
  ({ register } = require('tsx/cjs/api'));
} catch {
  process.stderr.write('store-orders-admin runs through tsx: install the project dependencies first (npm ci).\n');
  process.exit(1);
}
register();
require(path.join(__dirname, 'cli.ts'));
