// A process's own peak resident set. getrusage's ru_maxrss is not it on Linux: fork copies the
// parent's memory counters, high-water mark included, and exec records the replaced image's mark
// in ru_maxrss, so a child started by the bench (fork and exec) reports at least the bench's own
// peak at the moment it was started. The kernel's VmHWM in /proc/self/status is the peak of this
// image alone (proc(5): "VmHWM: Peak resident set size"). Elsewhere ru_maxrss is all there is.

import { readFileSync } from 'node:fs';

/** The VmHWM line of a /proc/<pid>/status text, in MB; undefined when there is none. */
export function vmHwmMB(status: string): number | undefined {
  const kB = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  return kB === undefined ? undefined : Number(kB) / 1024;
}

/** This process's peak resident set, in MB. */
export function peakRssMB(): number {
  let status = '';
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    // Not Linux: no /proc.
  }
  return vmHwmMB(status) ?? process.resourceUsage().maxRSS / 1024;
}
