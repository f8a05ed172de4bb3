import { readFileSync } from 'node:fs';
import * as os from 'node:os';

export interface Machine {
  nproc: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  kernel: string;
  /** 1-minute load average when the run started: other work on the machine skews every timing. */
  loadAverageAtStart: number;
}

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  } catch {
    return os.cpus()[0]?.model ?? 'unknown';
  }
}

export function describeMachine(): Machine {
  return {
    nproc: os.availableParallelism(),
    cpuModel: cpuModel(),
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    kernel: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: os.loadavg()[0] ?? Number.NaN,
  };
}
