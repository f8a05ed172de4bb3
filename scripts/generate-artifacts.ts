// Every file, or block of a file, derived from the declarations in lib/ and infra/ (and the docs'
// bench blocks, from bench/results.json): `npm run generate` writes them all, and
// test/unit/generated.spec.ts fails when one differs from what this list renders.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DOC_BLOCKS, type BenchResults } from '../bench/report';
import { REPO_ROOT } from '../infra/functions';
import {
  dailyCostTable,
  monthlyCostAssumptions,
  monthlyCostTable,
  scanCapacityTable,
  STAGE_STANDING,
  orderStorageSentence,
} from '../infra/listing-cost';
import { LIST_ORDERS_RESERVED_CONCURRENCY } from '../lib/contract/deployment';
import { openApiJson } from '../lib/contract/openapi/document';
import { buildV2OpenApiDocument } from '../lib/contract/openapi/v2';
import { withBlocks } from './generate-blocks';
import { webhookCostTable } from '../infra/webhook-cost';
import { dailyCostArithmetic } from './generate-cost-arithmetic';
import {
  addressLimitRule,
  banRule,
  errorCodesList,
  errorExample,
  listingsInFlightTable,
  planLimitsTable,
  retryScheduleTable,
  syncRepairTable,
  indexLagRepairTable,
  syncTimingTable,
} from './generate-docs';

export const GENERATE_COMMAND = 'npm run generate';

export interface GeneratedFile {
  /** Relative to the repository root. */
  file: string;
  /** What the file should hold, given what it holds now (a page keeps its hand-written text). */
  render(current: string): string;
}

const block = (content: string) => `${content}\n`;

/** The bench's blocks, from the stored run: `npm run bench -- --docs` writes the same, without a new run. */
function benchBlocks(file: string): GeneratedFile {
  return {
    file,
    render: (text) => {
      const results = JSON.parse(readFileSync(path.join(REPO_ROOT, 'bench', 'results.json'), 'utf8')) as BenchResults;
      const blocks = DOC_BLOCKS.filter((b) => b.file === file).map((b) => [
        `bench:${b.name}`,
        block(b.render(results)),
      ]);
      return withBlocks(text, Object.fromEntries(blocks));
    },
  };
}

export const GENERATED: readonly GeneratedFile[] = [
  { file: 'openapi.json', render: () => openApiJson() },
  { file: 'openapi-v2.json', render: () => openApiJson(buildV2OpenApiDocument()) },
  // The typed client's package carries the project's licence: `npm pack` of client/ includes it.
  { file: 'client/LICENSE', render: () => readFileSync(path.join(REPO_ROOT, 'LICENSE'), 'utf8') },
  {
    file: 'docs/rate-limits.md',
    render: (text) =>
      withBlocks(text, {
        'generated:plans': block(planLimitsTable()),
        'generated:ban': block(banRule()),
        'generated:address-limit': block(addressLimitRule()),
        'generated:address-limit-example': block(errorExample('ADDRESS_RATE_LIMITED', true)),
      }),
  },
  {
    file: 'docs/api.md',
    render: (text) =>
      withBlocks(text, {
        'generated:error-example': block(errorExample('ORDER_ALREADY_SHIPPED', false)),
        'generated:error-codes': block(errorCodesList()),
        'generated:sync-timing': block(syncTimingTable()),
        'generated:sync-repair': block(syncRepairTable()),
        'generated:webhook-retries': block(retryScheduleTable()),
        'generated:index-lag-repair': block(indexLagRepairTable()),
      }),
  },
  {
    file: 'docs/listing-limits.md',
    render: (text) =>
      withBlocks(text, {
        'generated:refusal-example': block(errorExample('LISTING_TOO_LARGE_UNCOMPRESSED', true)),
        'generated:listings-in-flight': block(listingsInFlightTable()),
        'generated:daily-cost': block(dailyCostTable()),
        'generated:daily-cost-arithmetic': block(dailyCostArithmetic()),
      }),
  },
  {
    file: 'docs/deployment.md',
    render: (text) =>
      withBlocks(text, {
        'generated:monthly-cost': block(monthlyCostTable(STAGE_STANDING)),
        'generated:monthly-cost-assumptions': block(monthlyCostAssumptions()),
        'generated:scan-capacity': block(scanCapacityTable(LIST_ORDERS_RESERVED_CONCURRENCY.prod)),
        'generated:webhook-cost': block(webhookCostTable()),
      }),
  },
  {
    file: 'docs/design.md',
    render: (text) =>
      withBlocks(text, {
        'generated:sync-timing': block(syncTimingTable()),
        'generated:sync-repair': block(syncRepairTable()),
        'generated:index-lag-repair': block(indexLagRepairTable()),
        'generated:order-storage': block(orderStorageSentence()),
      }),
  },
  ...[...new Set(DOC_BLOCKS.map((b) => b.file))].map(benchBlocks),
];

/** The file's text now, and what it should be. */
export function generatedText(artifact: GeneratedFile): { current: string; wanted: string } {
  const current = readFileSync(path.join(REPO_ROOT, artifact.file), 'utf8');
  return { current, wanted: artifact.render(current) };
}
