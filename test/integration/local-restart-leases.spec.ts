// A local stack stopped without freeing its listing slots (kill -9 mid-listing) and started again on
// the same --data-dir: no listing can still hold them, so the key lists again at once instead of
// waiting out the leases (issue: "a key waits ~470 s for a lease that no listing can still hold").
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { LISTINGS_IN_FLIGHT } from '../../lib/contract/plans';
import { startLocalStack } from '../../tools/local/serve';
import { LOCAL_TABLES } from '../../tools/shared/local-config';
import { storesOn } from '../support/stores';

const cap = LISTINGS_IN_FLIGHT.free;
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'restart-leases-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const options = () => ({ host: '127.0.0.1', port: 0, dynamodbPort: 0, dataDir, demo: false, quiet: true });

async function leasesOn(endpoint: string) {
  const made = storesOn({ endpoint, names: LOCAL_TABLES });
  return { listings: made.stores().listings, close: made.close };
}

test('a restarted stack frees the slots its killed predecessor left taken', async () => {
  const first = await startLocalStack(options());
  const before = await leasesOn(first.dynamoEndpoint);
  // Taken and never released, as by a listing whose process died.
  for (let n = 0; n < cap; n++) await before.listings.acquire('key_killed_listing', cap);
  await expect(before.listings.acquire('key_killed_listing', cap)).rejects.toThrow(/slots of the key are taken/);
  before.close();
  await first.close();

  const second = await startLocalStack(options());
  const after = await leasesOn(second.dynamoEndpoint);
  try {
    expect(await after.listings.held('key_killed_listing', cap)).toBe(0);
    await (await after.listings.acquire('key_killed_listing', cap)).release();
  } finally {
    after.close();
    await second.close();
  }
});
