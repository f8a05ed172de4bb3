/**
 * The one IAM action a function that reads a secret at run time (lib/root/secrets.ts) is granted, on
 * that secret alone.
 */
export const SECRET_READ_ACTION = 'secretsmanager:GetSecretValue';

/**
 * How long a function waits for one read of a secret (both of a key's stages together) before it
 * gives up: a Secrets Manager that does not answer becomes a clear 503 within the request's time,
 * not a hang (the v2 function has 10 s; Lambda's init phase, 10 s too).
 */
export const SECRET_READ_TIMEOUT_MS = 2_000;

/**
 * The staging labels Secrets Manager keeps on a secret's versions. PutSecretValue: "If you don't
 * include VersionStages, then Secrets Manager automatically moves the staging label AWSCURRENT to
 * this version", and "also moves the staging label AWSPREVIOUS to the version that AWSCURRENT was
 * removed from" (the Secrets Manager API reference, PutSecretValue's VersionStages).
 */
export const SECRET_STAGES = { current: 'AWSCURRENT', previous: 'AWSPREVIOUS' } as const;
