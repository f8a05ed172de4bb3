import { CHROMIUM_CANDIDATES, findChromium } from '../support/chromium';

const only =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);

test('CHROMIUM_PATH wins over every usual path', () => {
  expect(
    findChromium({ CHROMIUM_PATH: '/opt/chrome/chrome' }, only('/opt/chrome/chrome', '/usr/bin/chromium')),
  ).toEqual({ found: true, path: '/opt/chrome/chrome' });
});

test('a CHROMIUM_PATH that is not executable is reported, not silently replaced by another browser', () => {
  const lookup = findChromium({ CHROMIUM_PATH: '/nowhere/chrome' }, only('/usr/bin/chromium'));
  expect(lookup).toEqual({ found: false, reason: expect.stringContaining('CHROMIUM_PATH is /nowhere/chrome') });
});

test('without CHROMIUM_PATH, the first usual path that exists: Debian, snap, macOS', () => {
  expect(findChromium({}, only('/snap/bin/chromium', '/usr/bin/google-chrome'))).toEqual({
    found: true,
    path: '/snap/bin/chromium',
  });
  const mac = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';
  expect(findChromium({ CHROMIUM_PATH: '' }, only(mac))).toEqual({ found: true, path: mac });
});

test('no browser anywhere: the reason names the places looked at and the variable to set', () => {
  const lookup = findChromium({}, only());
  expect(lookup.found).toBe(false);
  if (lookup.found) return;
  for (const path of CHROMIUM_CANDIDATES) expect(lookup.reason).toContain(path);
  expect(lookup.reason).toContain('CHROMIUM_PATH');
});
