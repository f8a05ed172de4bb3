#!/usr/bin/env node
'use strict';
// The Node.js the project runs on is pinned by package.json's "node" devDependency (Lambda's
// runtime): npm scripts put node_modules/.bin first on PATH, so `node` there is that binary, once
// its install script has fetched it. Run first by `npm test`, this prints the version so every test
// log shows it, and stops the run if the pinned binary did not install. `npm start` reads
// pinnedNodeWarning from here and only warns.
const { devDependencies } = require('../package.json');

/** The pinned major version, e.g. "24". */
const PINNED_MAJOR = String(devDependencies.node).split('.')[0];

/**
 * Undefined on the pinned major; otherwise one line saying which Node.js runs instead and how to
 * get the pinned one (`npm ci --ignore-scripts` leaves it unfetched, and the machine's Node runs).
 */
function pinnedNodeWarning(version = process.versions.node, execPath = process.execPath) {
  if (version.split('.')[0] === PINNED_MAJOR) return undefined;
  return (
    `Running on Node.js v${version} (${execPath}), not the pinned Node.js ${PINNED_MAJOR} ` +
    '(package.json\'s "node" devDependency): run npm rebuild node to fetch it (an install with --ignore-scripts skips that)'
  );
}

module.exports = { PINNED_MAJOR, pinnedNodeWarning };

if (require.main === module) {
  process.stdout.write(`Tests run on Node.js ${process.version} (${process.execPath})\n`);
  const warning = pinnedNodeWarning();
  if (warning !== undefined) {
    process.stderr.write(`${warning}.\n`);
    process.exit(1);
  }
}
