#!/usr/bin/env node
'use strict';
// Run first by `npm test`: npm scripts put node_modules/.bin first on PATH, so `node` here is the
// pinned `node` devDependency (Lambda's runtime), not the machine's. Prints the version so every
// test log shows it, and stops the run if the pinned binary did not install.
const { devDependencies } = require('../package.json');
const wanted = String(devDependencies.node).split('.')[0];
const running = process.versions.node.split('.')[0];
process.stdout.write(`Tests run on Node.js ${process.version} (${process.execPath})\n`);
if (running !== wanted) {
  process.stderr.write(
    `Expected Node.js ${wanted} from the pinned "node" devDependency, got ${process.version}. ` +
      'Reinstall with install scripts enabled (npm ci), which lets the "node" package fetch its binary.\n',
  );
  process.exit(1);
}
