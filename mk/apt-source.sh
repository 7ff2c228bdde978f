#!/bin/sh
# SPDX-License-Identifier: MIT
#
# mk/apt-source.sh PACKAGE DEST: unpack Debian's source package PACKAGE into
# DEST (made anew) through a private deb-src list, without changing the
# machine's apt set-up: the list, its index and apt's state live under
# DEST.apt/, and the deb-src lines are the machine's own deb lines (same
# URIs, suites, components and keyring) with the type changed.  Prints the
# unpacked source directory on its last line.  Needs dpkg-dev (dpkg-source).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 PACKAGE DEST" >&2; exit 2; }
# apt reads a relative Dir:: path under /etc/apt: make DEST absolute
pkg=$1 dest=$(realpath -m "$2")
state=$dest.apt
rm -rf "$dest" "$state"
mkdir -p "$dest" "$state/lists/partial" "$state/sources.list.d"
for f in /etc/apt/sources.list.d/*.sources; do
	[ -e "$f" ] || continue
	sed 's/^Types:.*/Types: deb-src/' "$f" >"$state/sources.list.d/$(basename "$f")"
done
if [ -s /etc/apt/sources.list ]; then
	sed -n 's/^deb[[:space:]]/deb-src /p' /etc/apt/sources.list >"$state/sources.list"
else
	: >"$state/sources.list"
fi
opts="-o Dir::Etc::SourceList=$state/sources.list -o Dir::Etc::SourceParts=$state/sources.list.d -o Dir::State::Lists=$state/lists -o Dir::Cache=$state/cache"
mkdir -p "$state/cache/archives/partial"
# shellcheck disable=SC2086
apt-get $opts update >"$state/update.log" 2>&1 || { cat "$state/update.log" >&2; echo "$0: apt-get update (deb-src) failed" >&2; exit 1; }
# shellcheck disable=SC2086
(cd "$dest" && apt-get $opts source --download-only "$pkg") >"$state/source.log" 2>&1 || { cat "$state/source.log" >&2; echo "$0: apt-get source $pkg failed" >&2; exit 1; }
dsc=$(ls "$dest"/*.dsc | head -n 1)
(cd "$dest" && dpkg-source --no-check -x "$(basename "$dsc")") >>"$state/source.log" 2>&1 || { cat "$state/source.log" >&2; echo "$0: dpkg-source -x failed" >&2; exit 1; }
find "$dest" -mindepth 1 -maxdepth 1 -type d | head -n 1
