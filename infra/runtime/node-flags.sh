#!/bin/bash
# Lambda starts a function's runtime through this script when AWS_LAMBDA_EXEC_WRAPPER names it,
# passing the runtime's own command as the arguments: node, the runtime's flags (its heap sizes
# among them), and the runtime's entry script last. The script runs that command with the flags in
# EXTRA_NODE_FLAGS placed just before the entry script, after the runtime's flags, so that where
# both set a flag these win. NODE_OPTIONS cannot do this: node reads it before the command line,
# and it refuses most V8 flags. The flags are declared in infra/functions.ts (nodeFlags).
set -euo pipefail

: "${EXTRA_NODE_FLAGS:?must list the node flags this wrapper adds (infra/functions.ts nodeFlags)}"
if [ "$#" -lt 2 ]; then
  echo "node-flags.sh: expected the runtime's command (node, its flags, its entry script); got $# argument(s)" >&2
  exit 64
fi

# The flags are separated by spaces; no flag contains one (infra/runtime/lambda-node.ts checks).
read -r -a extra <<<"$EXTRA_NODE_FLAGS"
command=("$@")
last=$(($# - 1))
exec "${command[@]:0:last}" "${extra[@]}" "${command[last]}"
