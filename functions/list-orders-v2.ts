import { logger } from '../lib/commons/logger';
import { listOrdersV2Handler } from '../lib/root/handlers';
import { cursorKeysFromEnv } from '../lib/root/cursor-key';
import { secretsManagerReader } from '../lib/root/secrets';
import { wiringFromEnv } from '../lib/root/wiring';

// The cursor keys are read while the container initialises (top-level await, bounded by the read's
// timeout), so the first page does not wait for them. A failed read is logged, not thrown: the init
// succeeds, and each request reads again until a read succeeds, answering 503 while none does.
const cursorKeys = cursorKeysFromEnv(secretsManagerReader());
await cursorKeys?.held().catch((error: unknown) => logger.error('v2 cursor key unread at init', error as Error));

export const handler = listOrdersV2Handler({ ...wiringFromEnv(), ...(cursorKeys ? { cursorKey: cursorKeys } : {}) });
