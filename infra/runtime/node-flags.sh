#!/bin/bash
# Lambda starts a function's runtime through this script when AWS_LAMBDA_EXEC_WRAPPER names it,
# passing the runtime's own command as the arguments. Lambda's contract promises only that: the
# node executable first, then whatever the runtime passes (today its flags, its heap sizes among
# them, one flag's value as a separate argument, and its entry script). The script runs that
# command with the flags in EXTRA_NODE_FLAGS placed right after the node executable, where they
# are node options whatever follows, and the runtime's arguments keep their order. Where the runtime
# sets a flag these set too (by name: --name, --name=value, or --name followed by its value), the
# runtime's is left out, so these win as if they came last. NODE_OPTIONS cannot do this: node
# reads it before the command line, and it refuses most V8 flags. The flags are declared in
# infra/functions.ts (nodeFlags).
set -euo pipefail

: "${EXTRA_NODE_FLAGS:?must list the node flags this wrapper adds (infra/functions.ts nodeFlags)}"
if [ "$#" -lt 2 ]; then
  echo "node-flags.sh: expected the runtime's command (node, then its arguments); got $# argument(s)" >&2
  exit 64
fi

# V8 reads --max_old_space_size as --max-old-space-size, and --no-x as the negation of --x.
flag_name() {
  local name=${1%%=*}
  name=${name#--}
  name=${name#no-}
  name=${name#no_}
  flag=${name//_/-}
}

# The flags are separated by spaces; no flag contains one (infra/runtime/lambda-node.ts checks).
read -r -a extra <<<"$EXTRA_NODE_FLAGS"
declare -A ours=()
for arg in "${extra[@]}"; do
  flag_name "$arg"
  if [[ $arg == *=* ]]; then ours[$flag]=value; else ours[$flag]=switch; fi
done

node=$1
shift
kept=()
while [ "$#" -gt 0 ]; do
  arg=$1
  shift
  if [[ $arg == --?* ]]; then
    flag_name "$arg"
    if [ -n "${ours[$flag]:-}" ]; then
      # The runtime's `--name value`, for a flag that takes one here: its value goes too.
      if [[ $arg != *=* && ${ours[$flag]} == value && $# -gt 0 ]]; then shift; fi
      continue
    fi
  fi
  kept+=("$arg")
done

exec "$node" "${extra[@]}" "${kept[@]}"
