// The listing's Scan replies turned into its JSON, in a fresh process started as Lambda starts
// list-orders (bundled and started by bench/suites/listing.ts): the same replies through the path
// before the transcoder (the SDK's parse, orderFromAttributes, orderJson) and through the
// transcoder (lib/stores/scan-json.ts), rounds interleaved in rotating order, both with the SDK
// client answered from memory (test/support/answering-client.ts: no socket). `<orders> <pages>`;
// prints one JSON line.

import { childArgs } from './env';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { orderJson } from '../../lib/contract/order';
import { orderFromAttributes } from '../../lib/stores/orders';
import { scanOrdersJson } from '../../lib/stores/scan-json';
import { answeringClient } from '../../test/support/answering-client';
import { scanReplies } from './scan-server';
import { median, rotations } from './stats';

export const TRANSCODER_PAGE = 1_000;
const ROUNDS = 7;

export interface TranscoderSide {
  /** CPU time of one round over every reply, median of the rounds. */
  cpuMs: number;
  /** JSON bytes written in a round. */
  outBytes: number;
}
export interface TranscoderRun {
  orders: number;
  pages: number;
  /** Reply bytes read in a round. */
  inBytes: number;
  rounds: number;
  before: TranscoderSide;
  transcoder: TranscoderSide;
}

const [total = '1000000', pageCount = '100'] = childArgs();
const replies = scanReplies(Number(total), TRANSCODER_PAGE, Number(pageCount));
let next = 0;
const client = answeringClient(() => replies[next++ % replies.length] as Buffer);
const input = { TableName: 'orders' };

/** One reply as the listing wrote it before: the SDK's items, an Order each, orderJson, UTF-8. */
async function before(): Promise<number> {
  const page = await client.send(new ScanCommand(input));
  return Buffer.from((page.Items ?? []).map((item) => `,${orderJson(orderFromAttributes(item))}`).join('')).length;
}

/** One reply as the listing writes it now. */
async function transcoded(): Promise<number> {
  const { page } = await scanOrdersJson(client, input);
  if (!page) throw new Error('the transcoder declined a reply of the bench');
  return page.json.length;
}

async function round(write: () => Promise<number>): Promise<{ cpuMs: number; outBytes: number }> {
  next = 0;
  let outBytes = 0;
  const cpu = process.cpuUsage();
  for (let i = 0; i < replies.length; i++) outBytes += await write();
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, outBytes };
}

async function main(): Promise<void> {
  const sides = { before, transcoder: transcoded };
  const samples: Record<keyof typeof sides, { cpuMs: number; outBytes: number }[]> = { before: [], transcoder: [] };
  // One warm-up round each (the JIT), then the measured rounds.
  for (const write of Object.values(sides)) await round(write);
  for (let r = 0; r < ROUNDS; r++)
    for (const name of rotations(Object.keys(sides) as (keyof typeof sides)[], r))
      samples[name].push(await round(sides[name]));
  const side = (name: keyof typeof sides): TranscoderSide => ({
    cpuMs: median(samples[name].map((s) => s.cpuMs)),
    outBytes: samples[name][0]?.outBytes ?? 0,
  });
  const run: TranscoderRun = {
    orders: replies.length * TRANSCODER_PAGE,
    pages: replies.length,
    inBytes: replies.reduce((sum, reply) => sum + reply.length, 0),
    rounds: ROUNDS,
    before: side('before'),
    transcoder: side('transcoder'),
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
