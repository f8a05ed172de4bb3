import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../lib/contract/auth';
import { MAX_CUSTOM_LIMITS, PLAN_LIMITS, PLAN_NAMES } from '../../lib/limits/plans';

const fixedPlans = Object.entries(PLAN_LIMITS)
  .map(([plan, { perMinute, perDay }]) => `        ${plan.padEnd(10)} ${perMinute}/min, ${perDay}/day`)
  .join('\n');

export const USAGE = `Usage: store-orders-admin [--stage staging|prod] <command> [options]
       npm run admin -- [--stage staging|prod] <command> [options]

Manages API keys and orders of the Store Orders API. Works on the local stack (\`npm start\`) by
default; --stage works on a deployed stage instead.

Commands:
  keys create --plan ${PLAN_NAMES.join('|')} [--name NAME] [--rpm N --rpd N] [--json]
      Creates a key and prints it once; only its hash is stored, so it cannot be shown again.
      The fixed plans:
${fixedPlans}
      enterprise needs its own --rpm (requests per minute, 1-${MAX_CUSTOM_LIMITS.perMinute}) and --rpd
      (per day, 1-${MAX_CUSTOM_LIMITS.perDay}); the other plans refuse them.
      --json prints one JSON object: key, id, plan, name (when given), limits, createdAt.
  keys list [--json]
      Every key: id, plan, name, limits, created, revoked. Never a key or its hash.
  keys revoke <key-id>
      Revokes a key by its id (key_..., as \`keys list\` shows). It stops working within the
      authorizer cache time (${AUTHORIZER_CACHE_TTL_SECONDS} s).
  orders import <file.json>
      Creates the orders of a JSON array, e.g. [{"id": 1, "petId": 7, "quantity": 2,
      "shipDate": "2026-11-20T10:00:00Z", "complete": false, "status": "pending"}].
      id (int64) and status (pending|shipped|cancelled) are required. Every element is checked
      first; if any is invalid, every problem is listed and nothing is written. Orders whose id
      exists already are skipped, never overwritten.
  orders ship <order-id>
      Moves a pending order to shipped. A cancelled order cannot ship. (A negative id goes
      after \`--\`: orders ship -- -5.)

Options:
  --stage staging|prod   Work on the deployed stage: table names and usage plans come from the
                         outputs of the CloudFormation stack StoreOrders-<stage>, with the usual
                         AWS credentials and region (AWS_PROFILE, AWS_REGION, ...). Created keys
                         also get their API Gateway API key in the tier's usage plan; revoking
                         disables it.
  -h, --help             This text.

Environment (local stack only):
  DYNAMODB_ENDPOINT      DynamoDB endpoint (default http://127.0.0.1:8000, the local stack's).
  ORDERS_TABLE, API_KEYS_TABLE
                         Table names (default: the local stack's).

Exit status: 0 done, 1 failed (nothing found, DynamoDB unreachable, invalid file), 2 bad usage.`;
