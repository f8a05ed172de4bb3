// How the Lambda Node.js runtime starts node, so a bench child's heap is sized as the deployed
// function's is. The runtime's bootstrap (/var/runtime/bootstrap in the public Lambda base images)
// gives V8 a tenth of the function's memory as new space (half of it a semi-space) and the rest as
// old space, and exposes gc. It passes these on the command line, after NODE_OPTIONS, so they win
// over any heap flag a function sets in NODE_OPTIONS (node applies NODE_OPTIONS first).

export function lambdaRuntimeHeapFlags(memoryMb: number): readonly string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}
