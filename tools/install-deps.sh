#!/bin/sh
# install-deps.sh GROUP...: make sure the Debian packages of the given groups of
# tools/debian-packages.txt are installed, and install the missing ones with apt-get (as root, or
# through sudo when it needs no password), saying what it installs. When it cannot, it stops with
# one line naming the packages and the command that installs them.
#
# Installed packages cost one dpkg-query call (a few tens of milliseconds), so `make run` runs it
# every time. Not on Debian (no dpkg-query): it says which packages the build expects and goes on.
set -eu

list="$(dirname "$0")/debian-packages.txt"
[ $# -gt 0 ] || set -- build
want=$(awk -v groups=" $* " '!/^#/ && NF >= 2 && index(groups, " " $2 " ") { printf "%s ", $1 }' "$list")
want=${want% }
[ -n "$want" ] || exit 0

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: no dpkg-query (not Debian): the build expects these packages or their equivalents: $want"
    exit 0
fi

# shellcheck disable=SC2086 # the list is meant to split
installed=" $(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $want 2>/dev/null |
    awk '$2 == "installed" { printf "%s ", $1 }')"
missing=""
for p in $want; do
    case "$installed" in
    *" $p "*) ;;
    *) missing="$missing $p" ;;
    esac
done
missing=${missing# }
[ -n "$missing" ] || exit 0

cmd="apt-get install -y --no-install-recommends $missing"
if [ "$(id -u)" = 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo -n"
else
    echo "install-deps: missing Debian packages: $missing; install them with: sudo $cmd" >&2
    exit 1
fi

echo "install-deps: installing $missing"
# shellcheck disable=SC2086
if ! { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing; }; then
    echo "install-deps: could not install: $missing; install them with: sudo $cmd" >&2
    exit 1
fi
