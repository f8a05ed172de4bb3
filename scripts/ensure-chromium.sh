#!/usr/bin/env bash
# The API reference page test drives Debian's Chromium (playwright-core downloads no browser).
# CI runs on a fresh machine as root with apt reachable, so the project installs it itself.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-chromium: /usr/bin/chromium is missing; install Debian's chromium package (apt-get install chromium)" >&2
  exit 1
fi
echo "ensure-chromium: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends chromium
