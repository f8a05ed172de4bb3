// The bench's peak memory of a child process: its own, not the bench's that started it.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { vmHwmMB } from '../../bench/support/peak-rss';

test('VmHWM is read from a status text, in MB; a text without it gives nothing', () => {
  const status = 'Name:\tnode\nVmPeak:\t 1234560 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n';
  expect(vmHwmMB(status)).toBe(200);
  expect(vmHwmMB('Name:\tnode\nVmRSS:\t 102400 kB\n')).toBeUndefined();
});

const linux = process.platform === 'linux';
(linux ? test : test.skip)(
  "a child started by a process holding 300 MB reports its own peak, where ru_maxrss carries its parent's",
  () => {
    const held = Buffer.alloc(300 * 1024 * 1024, 1); // touched, so resident
    const script = `import { peakRssMB } from ${JSON.stringify(path.resolve('bench/support/peak-rss.ts'))};
      console.log(JSON.stringify({ own: peakRssMB(), maxRss: process.resourceUsage().maxRSS / 1024 }));`;
    const out = execFileSync(process.execPath, [
      '--experimental-strip-types',
      '--no-warnings',
      '--input-type=module',
      '-e',
      script,
    ]);
    const { own, maxRss } = JSON.parse(out.toString()) as { own: number; maxRss: number };
    expect(held.length).toBeGreaterThan(0);
    expect(maxRss).toBeGreaterThan(300);
    expect(own).toBeLessThan(150);
  },
);
