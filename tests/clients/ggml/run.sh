#!/bin/sh
# Client harness: builds ggml's CANN backend against an installed cannon and runs ggml's backend test program.
# The work is done by harness.py (Debian's /usr/bin/python3, standard library only); see docs/clients.md.
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$here/harness.py" "$@"
