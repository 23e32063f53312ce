#!/usr/bin/env bash
# Install Debian's chromium for the site's browser test (site/tests/test_site_browser.py).
# Does nothing, and says why, when chromium is already there, when we are not root, or when
# there is no apt-get; it always exits 0 so the test command goes on (the test then skips).
set -u

if [ -x /usr/bin/chromium ]; then
    echo "install_browser: /usr/bin/chromium is already installed"
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "install_browser: not root, so chromium is not installed (the browser test will be skipped)"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_browser: no apt-get here, so chromium is not installed (the browser test will be skipped)"
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
echo "install_browser: installing chromium with apt-get (at most 10 minutes)"
# One bound for everything: install, and if the package lists are stale, update them and retry.
if ! timeout 600 sh -c 'apt-get install -y --no-install-recommends chromium \
        || { apt-get update && apt-get install -y --no-install-recommends chromium; }'; then
    echo "install_browser: apt-get could not install chromium (the browser test will be skipped)"
fi
if [ -x /usr/bin/chromium ]; then
    echo "install_browser: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
fi
exit 0
