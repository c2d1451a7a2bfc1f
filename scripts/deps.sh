#!/usr/bin/env bash
# Install everything fibtrace needs on a Debian 12 (bookworm) x86_64 machine:
# toolchain, BPF tooling, QEMU, GMP, a 6.1 and a 6.12 kernel (image and
# headers) for the test VM, and virtme-ng. Idempotent: when everything is
# present it only checks and returns.
set -euo pipefail

VIRTME_NG_VERSION=1.42
PACKAGES=(
	build-essential clang llvm lld libbpf-dev bpftool dwarves libelf-dev
	zlib1g-dev pkg-config qemu-system-x86 linux-perf gnuplot-nox libgmp-dev
	busybox-static python3 python3-pip xz-utils zstd kmod cpio
	libclang-rt-14-dev clang-format jq bpftrace bpfcc-tools procps libjansson-dev
	chromium python3-pil python3-jsonschema valgrind
)
# The flame graph renderer (--flamegraph): inferno, from crates.io.
INFERNO_VERSION=0.12.8
BACKPORTS_SOURCE=/etc/apt/sources.list.d/fibtrace-bookworm-backports.sources

log() { printf 'deps: %s\n' "$*" >&2; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (try: sudo make deps)"
. /etc/os-release 2>/dev/null || die "cannot read /etc/os-release"
[ "${ID:-}" = debian ] && [ "${VERSION_CODENAME:-}" = bookworm ] ||
	die "needs Debian 12 (bookworm); this is ${PRETTY_NAME:-unknown}"
[ "$(uname -m)" = x86_64 ] || die "needs x86_64"

# The backports suite reuses the mirror the machine already uses for
# bookworm, so no host name is baked into the repository.
debian_uri() {
	local uri
	uri=$(awk '/^URIs:/ { u = $2 } /^Suites:/ && / bookworm( |$)/ { print u; exit }' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list)
	fi
	[ -n "$uri" ] || die "no bookworm apt source found to derive bookworm-backports from"
	echo "$uri"
}

have_all_packages() {
	local installed
	installed=$(dpkg-query -W -f='${Status}\n' "${PACKAGES[@]}" 2>/dev/null |
		grep -c '^install ok installed$' || true)
	[ "$installed" = "${#PACKAGES[@]}" ]
}

newest_612() {
	apt-cache pkgnames linux-image-6.12 2>/dev/null |
		sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12\)-amd64-unsigned$/\1/p' |
		sort -V | tail -n 1
}

updated=0
apt_update() {
	[ $updated = 1 ] && return
	log "apt-get update"
	apt-get update -qq
	updated=1
}

if [ ! -f "$BACKPORTS_SOURCE" ]; then
	uri=$(debian_uri)
	log "adding bookworm-backports from $uri"
	cat >"$BACKPORTS_SOURCE" <<SRC
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	updated=0
	apt_update
fi

export DEBIAN_FRONTEND=noninteractive
if ! have_all_packages; then
	apt_update
	log "installing packages"
	apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
fi

# Kernel lines: the newest 6.1 from bookworm, the newest 6.12 from backports.
if ! ls /boot/vmlinuz-6.1.* >/dev/null 2>&1 || ! ls -d /lib/modules/6.1.*/build >/dev/null 2>&1; then
	apt_update
	log "installing the 6.1 kernel and headers"
	apt-get install -y -qq linux-image-amd64 linux-headers-amd64 >/dev/null
fi
if ! ls /boot/vmlinuz-6.12.* >/dev/null 2>&1 || ! ls -d /lib/modules/6.12.*/build >/dev/null 2>&1; then
	apt_update
	v=$(newest_612)
	[ -n "$v" ] || die "no 6.12 kernel found in bookworm-backports"
	log "installing the 6.12 kernel $v-amd64 and headers"
	apt-get install -y -qq "linux-image-$v-amd64-unsigned" "linux-headers-$v-amd64" >/dev/null
fi

# Kernel images are root-only by default; vng reads them as whoever runs it.
chmod a+r /boot/vmlinuz-* 2>/dev/null || true

if ! command -v vng >/dev/null 2>&1 ||
	[ "$(vng --version 2>/dev/null | awk '{print $NF}')" != "$VIRTME_NG_VERSION" ]; then
	log "installing virtme-ng $VIRTME_NG_VERSION from PyPI"
	python3 -m pip install -q --disable-pip-version-check \
		--break-system-packages "virtme-ng==$VIRTME_NG_VERSION" 2>/dev/null ||
		python3 -m pip install -q --disable-pip-version-check "virtme-ng==$VIRTME_NG_VERSION"
fi
command -v vng >/dev/null || die "vng not on PATH after install"

# inferno-flamegraph into /usr/local/bin, where sudo and the guests find it.
# (inferno-flamegraph has no --version: cargo's install record says which.)
if [ ! -x /usr/local/bin/inferno-flamegraph ] ||
	! grep -q "^\"inferno $INFERNO_VERSION " /usr/local/.crates.toml 2>/dev/null; then
	cargo=$(command -v cargo || echo "${HOME:-/root}/.cargo/bin/cargo")
	if [ ! -x "$cargo" ]; then
		apt_update
		log "installing cargo (Debian) for inferno"
		apt-get install -y -qq --no-install-recommends cargo >/dev/null
		cargo=$(command -v cargo)
	fi
	log "installing inferno $INFERNO_VERSION from crates.io (a few minutes)"
	"$cargo" install -q --locked --root /usr/local inferno --version "$INFERNO_VERSION" ||
		die "cargo install inferno $INFERNO_VERSION failed"
fi

log "ok: $(ls /boot/vmlinuz-* | sed 's|/boot/vmlinuz-||' | tr '\n' ' ')"
