/** The one way to read configuration from the environment: a missing variable fails loudly. */
export function requireEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new Error(`Missing required environment variable ${name}`);
  }
  return value;
}

export function optionalEnv(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Whether the variable is set at all, even to the empty string (npm sets `npm_config_demo=` for `--no-demo`). */
export function isEnvSet(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return env[name] !== undefined;
}
