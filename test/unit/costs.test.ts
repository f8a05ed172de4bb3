// What a listing may cost and carry: content coding, the encoded stream and body, the listing budget and the cost model (and event delivery's).
// One runner, one load of the modules they share: see test/support/specs.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- a spec's tests register inside its describe */
import { runSpec } from '../support/specs';

runSpec('content-coding', () => require('./content-coding.spec'));
runSpec('encoded-stream', () => require('./encoded-stream.spec'));
runSpec('encoded-body', () => require('./encoded-body.spec'));
runSpec('list-budget', () => require('./list-budget.spec'));
runSpec('listing-cost', () => require('./listing-cost.spec'));
runSpec('monthly-cost', () => require('./monthly-cost.spec'));
runSpec('webhook-cost', () => require('./webhook-cost.spec'));
