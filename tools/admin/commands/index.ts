import type { AdminCommand } from '../command';
import { canaryKeyCreate } from './canary-key';
import { keysCreate, keysList, keysPruneGateway, keysRebind, keysRevoke, keysUsage } from './keys';
import { ordersBackfillUpdatedAt, ordersImport, ordersShip } from './orders';
import { petsImport } from './pets';
import {
  webhooksCreate,
  webhooksDeliveries,
  webhooksDelete,
  webhooksList,
  webhooksReplay,
  webhooksRotateSecret,
  webhooksTest,
} from './webhooks';

/** Every admin command, in the order the usage text lists them. */
export const COMMANDS: readonly AdminCommand[] = [
  keysCreate,
  keysList,
  keysRevoke,
  keysPruneGateway,
  keysRebind,
  keysUsage,
  canaryKeyCreate,
  ordersImport,
  ordersShip,
  petsImport,
  ordersBackfillUpdatedAt,
  webhooksCreate,
  webhooksList,
  webhooksDelete,
  webhooksRotateSecret,
  webhooksDeliveries,
  webhooksTest,
  webhooksReplay,
];
