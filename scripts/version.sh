#!/bin/sh
# fibtrace's version: `git describe` of a tagged tree (v1.2-3-gabc -> 1.2-3-gabc),
# else VERSION with the commit (0.2+gabc1234, -dirty when changed), else
# VERSION alone (a tree without git, e.g. a release tarball).
top=$(cd "$(dirname "$0")/.." && pwd)
base=$(cat "$top/VERSION" 2>/dev/null || echo unknown)
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	if v=$(git -C "$top" describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
		echo "${v#v}"
		exit 0
	fi
	rev=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null) || { echo "$base"; exit 0; }
	dirty=
	git -C "$top" diff --quiet HEAD -- 2>/dev/null || dirty=-dirty
	echo "$base+g$rev$dirty"
else
	echo "$base"
fi
