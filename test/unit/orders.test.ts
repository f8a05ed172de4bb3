// Orders as the core and the stores see them: ids, attributes, JSON, v2 cursors, keys and queries, errors,
// and the imports' rules (records, the file's reader, bounded writes).
// One runner, one load of the modules they share: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('order-id', () => require('./order-id.spec'));
runSpec('order-attributes', () => require('./order-attributes.spec'));
runSpec('orders-json', () => require('./orders-json.spec'));
runSpec('scan-transcoder', () => require('./scan-transcoder.spec'));
runSpec('sync-cursor', () => require('./sync-cursor.spec'));
runSpec('cursor-keyring', () => require('./cursor-keyring.spec'));
runSpec('sync-keys', () => require('./sync-keys.spec'));
runSpec('sync-query', () => require('./sync-query.spec'));
runSpec('sync-stamps', () => require('./sync-stamps.spec'));
runSpec('sync-lateness', () => require('./sync-lateness.spec'));
runSpec('index-lag-rules', () => require('./index-lag-rules.spec'));
runSpec('index-lag-argument', () => require('./index-lag-argument.spec'));
runSpec('stamp-rules', () => require('./stamp-rules.spec'));
runSpec('call-deadlines', () => require('./call-deadlines.spec'));
runSpec('error-mapping', () => require('./error-mapping.spec'));
runSpec('dependency-failure', () => require('./dependency-failure.spec'));
runSpec('dynamo-client', () => require('./dynamo-client.spec'));
runSpec('import-records', () => require('./import-records.spec'));
runSpec('json-array-elements', () => require('./json-array-elements.spec'));
runSpec('map-bounded', () => require('./map-bounded.spec'));
