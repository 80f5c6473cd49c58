#!/usr/bin/env bash
# The browser tests drive Debian's Chromium at /usr/bin/chromium (Playwright's
# own browser download does not work everywhere). Install it when it is
# missing and this user may (root, with apt-get); otherwise stop and say the
# one command to run.
set -euo pipefail
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}  # another path only for its test
[ -x "$CHROMIUM" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium
    exit 0
fi
echo "The browser tests need Debian's Chromium at /usr/bin/chromium." >&2
echo "Install it, then run make test again:" >&2
echo "    sudo apt-get install -y chromium" >&2
exit 1
