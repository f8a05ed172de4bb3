import { listOrdersV2Handler } from '../lib/root/handlers';
import { cursorKeyFromEnv } from '../lib/root/cursor-key';
import { cachedSecrets, secretsManagerReader } from '../lib/root/secrets';
import { wiringFromEnv } from '../lib/root/wiring';

// The cursor key is read while the container initialises (top-level await), once: the handler is
// made with the key in hand, and a failed read fails the init, which Lambda retries on the next call.
const cursorKey = await cursorKeyFromEnv(cachedSecrets(secretsManagerReader()));

export const handler = listOrdersV2Handler({ ...wiringFromEnv(), ...(cursorKey ? { cursorKey } : {}) });
