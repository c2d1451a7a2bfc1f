# Sourced by scripts/build-test-builds.sh and tests/gate/test_planted.sh: a
# copy of fibdrv's sources with a slowdown planted in it, for tests that
# must find a change they know.
#
#   plant_copy SRC DEST MARK SED_EXPR
#     copies SRC (a fibdrv/ directory) to DEST, includes <linux/delay.h> in
#     DEST/fibdrv_main.c and applies SED_EXPR there (which must write MARK
#     into the line it plants); returns 1 when either did not take (the
#     sources changed under the expression).
plant_copy() {
	local src=$1 dest=$2 mark=$3 expr=$4
	rm -rf "$dest"
	mkdir -p "$(dirname "$dest")"
	cp -r "$src" "$dest"
	sed -i -e 's|^#include <linux/device.h>$|&\n#include <linux/delay.h>|' -e "$expr" \
		"$dest/fibdrv_main.c"
	grep -q "$mark" "$dest/fibdrv_main.c" &&
		grep -q '^#include <linux/delay.h>' "$dest/fibdrv_main.c"
}
