#!/usr/bin/env bash
# Install Graphviz's `dot` (Debian's package), which the site's pictures are drawn with
# (site/figures.py; the Python package `graphviz` comes from requirements/lock.txt).
# Does nothing, and says why, when dot is already there, when we are not root, or when there is no
# apt-get; it always exits 0, and the site's build then says what is missing.
set -u

if command -v dot >/dev/null 2>&1; then
    echo "install_graphviz: $(command -v dot) is already installed"
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "install_graphviz: not root, so graphviz is not installed (the site cannot draw its pictures)"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_graphviz: no apt-get here, so graphviz is not installed (the site cannot draw its pictures)"
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
echo "install_graphviz: installing graphviz with apt-get (at most 10 minutes)"
if ! timeout 600 sh -c 'apt-get install -y --no-install-recommends graphviz \
        || { apt-get update && apt-get install -y --no-install-recommends graphviz; }'; then
    echo "install_graphviz: apt-get could not install graphviz"
fi
if command -v dot >/dev/null 2>&1; then
    echo "install_graphviz: installed $(dot -V 2>&1)"
fi
exit 0
