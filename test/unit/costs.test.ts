// What a listing may cost and carry: content coding, the encoded stream and body, the listing budget and the cost model.
// One runner, one load of the modules they share: see test/support/specs.ts.
import { runSpecs } from '../support/specs';

runSpecs(__dirname, [
  'content-coding',
  'encoded-stream',
  'encoded-body',
  'list-budget',
  'listing-cost',
  'monthly-cost',
]);
