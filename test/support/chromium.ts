// Where the API reference page test finds a browser: CHROMIUM_PATH when set, else the usual
// install paths of Chromium and Chrome on Linux (Debian, Ubuntu's snap) and macOS. playwright-core
// downloads no browser of its own, and installing one is .ci/run's job, never the tests'.

import { accessSync, constants } from 'node:fs';

export const CHROMIUM_CANDIDATES: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/snap/bin/chromium',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

export type ChromiumLookup = { found: true; path: string } | { found: false; reason: string };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The browser to drive, or why there is none. A CHROMIUM_PATH that is set must be right. */
export function findChromium(
  env: NodeJS.ProcessEnv = process.env,
  isExecutable: (path: string) => boolean = executable,
): ChromiumLookup {
  const chosen = env.CHROMIUM_PATH;
  if (chosen !== undefined && chosen !== '') {
    return isExecutable(chosen)
      ? { found: true, path: chosen }
      : { found: false, reason: `CHROMIUM_PATH is ${chosen}, which is not an executable file` };
  }
  const path = CHROMIUM_CANDIDATES.find(isExecutable);
  if (path !== undefined) return { found: true, path };
  return {
    found: false,
    reason: `no Chromium or Chrome at ${CHROMIUM_CANDIDATES.join(', ')}; install one or set CHROMIUM_PATH`,
  };
}
