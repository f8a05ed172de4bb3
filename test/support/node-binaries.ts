// Node.js binaries besides the one running the tests. The typed client declares an older Node in
// its engines than the project pins, so its example also runs on the oldest it declares, found on
// PATH (CI's setup-node puts it there; on a developer machine it is often the system's own node).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export type NodeLookup = { found: true; path: string; version: string } | { found: false; reason: string };

/** The oldest major version a package.json's `engines.node` (`>=N`) allows. */
export function oldestNodeMajor(packageJsonPath: string): number {
  const { engines } = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { engines?: { node?: string } };
  const major = /^>=(\d+)$/.exec(engines?.node ?? '')?.[1];
  if (major === undefined) throw new Error(`${packageJsonPath}: engines.node is not ">=N": ${engines?.node}`);
  return Number(major);
}

/** The first `node` on PATH, outside node_modules (npm's pinned one), whose major version is `major`. */
export function findNode(major: number, env: NodeJS.ProcessEnv = process.env): NodeLookup {
  for (const dir of new Set((env.PATH ?? '').split(delimiter))) {
    if (dir === '' || dir.split(/[\\/]/).includes('node_modules')) continue;
    try {
      const path = join(dir, 'node');
      const version = execFileSync(path, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      if (version.startsWith(`v${major}.`)) return { found: true, path, version: version.trim() };
    } catch {
      // No node in that folder, or one that does not run: the next folder.
    }
  }
  return {
    found: false,
    reason: `no Node.js ${major} on PATH outside node_modules; install one (e.g. nvm, setup-node)`,
  };
}
