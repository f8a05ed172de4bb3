import { synopsis } from './args';
import { COMMANDS } from './commands';
import { STAGE_NAMES } from '../../lib/contract/deployment';
import { TABLE_ENV_VARS } from '../../lib/contract/tables';

const stages = STAGE_NAMES.join('|');

const commands = COMMANDS.map((command) =>
  [`  ${synopsis(command)}`, ...command.help.map((line) => `      ${line}`)].join('\n'),
).join('\n');

export const USAGE = `Usage: store-orders-admin [--stage ${stages}] <command> [options]
       npm run --silent admin -- [--stage ${stages}] <command> [options]   (--silent: no npm header on stdout)

Manages API keys and orders of the Store Orders API. Works on the local stack (\`npm start\`) by
default; --stage works on a deployed stage instead.

Commands:
${commands}

Options:
  --stage ${stages}   Work on the deployed stage: table names and usage plans come from the
                         outputs of the CloudFormation stack StoreOrders-<stage>, with the usual
                         AWS credentials and region (AWS_PROFILE, AWS_REGION, ...). Created keys
                         also get their API Gateway API key in the tier's usage plan; revoking
                         deletes it.
  -h, --help             This text.

Environment (local stack only):
  DYNAMODB_PORT          The local stack's DynamoDB port, as given to npm start (default 8000).
  DYNAMODB_ENDPOINT      A DynamoDB endpoint URL instead (http://host:port).
  ${TABLE_ENV_VARS.join(', ')}
                         Table names (default: the local stack's).

Exit status: 0 done, 1 failed (nothing found, DynamoDB unreachable, invalid file), 2 bad usage.`;
