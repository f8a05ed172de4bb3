// The import rules of eslint.config.js that hold the layering fire: each refuses an offending import
// in a file of the folder it guards, and lets the allowed import through. The project's own config
// runs through ESLint's Linter, in process (ESLint's class loads the config by a dynamic import,
// which jest's CommonJS runtime refuses).
/* eslint-disable @typescript-eslint/no-require-imports -- jest's transform makes the ESM config CommonJS */
import path from 'node:path';
import { Linter } from 'eslint';

const ROOT = path.resolve(__dirname, '../..');
const config = (require('../../eslint.config.js') as { default: Linter.Config[] }).default;
const linter = new Linter({ cwd: ROOT });

/** The import restrictions `source` breaks as a file at `file` (relative to the repo). */
function refusals(file: string, source: string): string[] {
  return linter
    .verify(source, config, { filename: path.join(ROOT, file) })
    .map((message) => {
      if (message.fatal) throw new Error(`${file} did not parse: ${message.message}`);
      return message;
    })
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

const importing = (specifier: string) => `import { x } from '${specifier}';\nexport const y = x;\n`;

describe('lib/contract and lib/core import no AWS SDK, Smithy, middy or Powertools', () => {
  const libraries = [
    '@aws-sdk/client-dynamodb',
    '@aws-sdk/lib-dynamodb',
    '@smithy/core',
    '@middy/core',
    '@aws-lambda-powertools/logger',
  ];
  test.each(['lib/contract/plans.ts', 'lib/core/limiter/rules.ts', 'lib/core/sync/cursor.ts'])('%s', (file) => {
    for (const library of libraries) {
      expect(refusals(file, importing(library))).toEqual([
        expect.stringContaining('lib/contract and lib/core import no AWS SDK'),
      ]);
    }
    // A type import is an import all the same: the rule is about what the layer depends on.
    expect(refusals(file, "import type { Context } from '@middy/core';\nexport type C = Context;\n")).toHaveLength(1);
    // Node's own modules and the layers below stay allowed.
    expect(refusals(file, importing('node:crypto'))).toEqual([]);
    // ...and the one-way rule still holds beside it (a later entry replaces the rule's options).
    expect(refusals(file, importing('../../stores/rate-limiter'))).toEqual([
      expect.stringContaining('lib/ imports run one way'),
    ]);
  });

  test('the layers above may import them', () => {
    for (const file of ['lib/stores/rate-limiter.ts', 'lib/edge/api-handler.ts', 'lib/root/wiring.ts']) {
      expect(refusals(file, importing('@aws-sdk/client-dynamodb'))).toEqual([]);
      expect(refusals(file, importing('@middy/core'))).toEqual([]);
    }
  });
});

describe('functions/ imports lib/root only', () => {
  const entry = 'functions/cancel-order.ts';

  test('the composition root is allowed', () => {
    expect(refusals(entry, importing('../lib/root/handlers'))).toEqual([]);
  });

  test.each([
    '../lib/edge/orders-handlers',
    '../lib/stores/orders',
    '../lib/core/limiter/limiter',
    '../lib/contract/routes',
    '../lib/commons/logger',
    '../lib/rootless',
    '@aws-sdk/client-dynamodb',
    '@middy/core',
    'node:fs',
    '../tools/local/app',
  ])('%s is refused', (specifier) => {
    expect(refusals(entry, importing(specifier))).toEqual([
      expect.stringContaining('functions/ imports lib/root only'),
    ]);
  });
});
