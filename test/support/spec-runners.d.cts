// Types for spec-runners.cjs (CommonJS, so that jest.config.cjs and the sequencer can require it).
export declare const TEST_ROOT: string;
export declare function specsNamedBy(file: string, source?: string): string[];
export declare function filesEndingWith(suffix: string, dir?: string): string[];
export declare function specRunners(): { runner: string; specs: string[] }[];
