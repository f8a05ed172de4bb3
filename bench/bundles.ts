import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Metafile } from 'esbuild';
import { bundleLikeLambda, REQUIRE_SHIM } from './lambda-bundle';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, '..');

export const FUNCTION_ENTRIES = ['authorizer', 'list-orders', 'cancel-order'] as const;
export type BundleName = (typeof FUNCTION_ENTRIES)[number] | 'bare';

export interface BundleFigures {
  name: BundleName;
  file: string;
  bytes: number;
  gzipBytes: number;
  /** Output bytes by package (`service code` for lib/ and functions/). */
  bytesBySource: Record<string, number>;
}

/** The package (or `service code`) an esbuild input path belongs to. */
function sourceOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  return match?.[1] ?? 'service code';
}

function bytesBySource(metafile: Metafile, file: string): Record<string, number> {
  const output = Object.entries(metafile.outputs).find(([out]) => path.resolve(out) === path.resolve(file))?.[1];
  const bySource = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    bySource.set(sourceOf(input), (bySource.get(sourceOf(input)) ?? 0) + bytesInOutput);
  }
  return Object.fromEntries([...bySource.entries()].sort((a, b) => b[1] - a[1]));
}

/** What a bundle carries beyond the bare one, by package, largest first: where extra init time comes from. */
export function extraOverBare(bundle: Pick<BundleFigures, 'bytesBySource'>, bare: Pick<BundleFigures, 'bytesBySource'>): { source: string; bytes: number }[] {
  return Object.entries(bundle.bytesBySource)
    .map(([source, bytes]) => ({ source, bytes: bytes - (bare.bytesBySource[source] ?? 0) }))
    .filter((e) => e.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
}

/** The sizes would silently describe another build if the construct's banner changed. */
function assertBannerMatchesConstruct(): void {
  const construct = readFileSync(path.join(REPO_ROOT, 'infra/constructs/service-function.ts'), 'utf8');
  const [importPart, requirePart] = REQUIRE_SHIM.split(/(?<=;)/);
  if (!importPart || !requirePart || !construct.includes(importPart) || !construct.includes(requirePart)) {
    throw new Error('bench/lambda-bundle.ts REQUIRE_SHIM no longer matches infra/constructs/service-function.ts');
  }
}

/** Every function bundle and the bare baseline, built into `outDir`. */
export async function buildBundles(outDir: string): Promise<BundleFigures[]> {
  assertBannerMatchesConstruct();
  const entries: [BundleName, string][] = [
    ...FUNCTION_ENTRIES.map((name): [BundleName, string] => [name, path.join(REPO_ROOT, 'functions', `${name}.ts`)]),
    ['bare', path.join(HERE, 'bare-entry.ts')],
  ];
  const figures: BundleFigures[] = [];
  for (const [name, entry] of entries) {
    const { file, metafile } = await bundleLikeLambda(entry, outDir, name);
    figures.push({
      name,
      file,
      bytes: statSync(file).size,
      gzipBytes: gzipSync(readFileSync(file), { level: 9 }).length,
      bytesBySource: bytesBySource(metafile, file),
    });
  }
  return figures;
}
