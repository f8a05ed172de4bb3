import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from './service';

/**
 * One structured JSON logger for the whole service. Events are never logged (they carry the
 * Authorization header); only the key id, never the key, is added to log lines.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME });
