// cdk.json adopts every feature flag `cdk init` writes for the installed aws-cdk-lib, at its
// recommended value (README's "CDK feature flags" section says what they change here). A newer
// aws-cdk-lib with new recommendations fails this test until each is reviewed and adopted.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');
const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

const recommended = readJson(path.join(root, 'node_modules', 'aws-cdk-lib', 'recommended-feature-flags.json'));
const context = (readJson(path.join(root, 'cdk.json')) as { context?: Record<string, unknown> }).context ?? {};

test('the installed aws-cdk-lib recommends flags (the list this test compares against is not empty)', () => {
  expect(Object.keys(recommended).length).toBeGreaterThan(50);
});

test.each(Object.keys(recommended))('cdk.json sets %s to its recommended value', (flag) => {
  expect(context[flag]).toEqual(recommended[flag]);
});

test('the flag that redeploys the stage when the authorizer changes is on', () => {
  expect(context['@aws-cdk/aws-apigateway:authorizerChangeDeploymentLogicalId']).toBe(true);
});
