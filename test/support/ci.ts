/** True in CI (CI set, and not to '' or 'false'), where a missing tool fails its tests instead of being reported. */
export const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
