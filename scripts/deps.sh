#!/usr/bin/env bash
# What fibtrace needs, checked first and installed only when missing.
#
#   deps.sh [--for all|gate]
#
# On Debian 12 (bookworm) x86_64: toolchain, BPF tooling, QEMU, GMP, a 6.1
# and a 6.12 kernel (image and headers) for the test guests, virtme-ng, and
# for `all` (make demo, make test; the default) the test tools and inferno;
# `gate` is what make perf-gate needs alone (CI's gate job). When everything
# is there it returns 0 at once, as any user; only installing needs root,
# and then it says so (sudo make deps).
#
# Anywhere else it installs nothing: it checks what the native path (make,
# then fibdrv.ko for the running kernel) needs and names the packages to
# install on Debian, Ubuntu or Fedora; 0 when they are all there.
# FIBTRACE_OS_RELEASE names another os-release file (the tests use it).
set -euo pipefail
# Root's PATH may lead to a Python or a vng of root's own (pyenv, ~/.local):
# what is installed here must be found by every user.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

profile=all
case "${1:-}" in
"") ;;
--for)
	profile=${2:-}
	[ "$profile" = all ] || [ "$profile" = gate ] || {
		echo "deps: error: --for all or --for gate, not '$profile'" >&2
		exit 2
	}
	;;
*)
	echo "usage: deps.sh [--for all|gate]" >&2
	exit 2
	;;
esac

VIRTME_NG_VERSION=1.42
# make perf-gate: build, boot a guest, compare, plot (gnuplot).
GATE_PACKAGES=(
	build-essential clang llvm lld libbpf-dev bpftool dwarves libelf-dev
	zlib1g-dev pkg-config qemu-system-x86 gnuplot-nox libgmp-dev
	busybox-static python3 python3-pip python3-argcomplete python3-requests xz-utils zstd kmod cpio procps git
)
# make test and make demo besides: fuzzers, counters, other tracers for the
# benchmarks, Chromium for the flame graphs, Valgrind for --cachesim, man and
# YAML for the host tests of make install and of the CI workflows.
TEST_PACKAGES=(
	linux-perf libclang-rt-14-dev clang-format jq bpftrace bpfcc-tools
	libjansson-dev chromium python3-pil python3-jsonschema python3-yaml valgrind man-db
)
PACKAGES=("${GATE_PACKAGES[@]}")
[ "$profile" = gate ] || PACKAGES+=("${TEST_PACKAGES[@]}")
# The flame graph renderer (--flamegraph): inferno, from crates.io.
INFERNO_VERSION=0.12.8
# The workflows' linter (tests/host/test_ci.py), a Go module: installed only
# where Go is (test_ci.py says SKIP without it).
ACTIONLINT_VERSION=1.7.12
BACKPORTS_SOURCE=/etc/apt/sources.list.d/fibtrace-bookworm-backports.sources
OS_RELEASE=${FIBTRACE_OS_RELEASE:-/etc/os-release}

log() { printf 'deps: %s\n' "$*" >&2; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

[ -r "$OS_RELEASE" ] || die "cannot read $OS_RELEASE"
os_id=$(. "$OS_RELEASE" && echo "${ID:-}")
os_like=$(. "$OS_RELEASE" && echo "${ID_LIKE:-}")
os_codename=$(. "$OS_RELEASE" && echo "${VERSION_CODENAME:-}")
os_name=$(. "$OS_RELEASE" && echo "${PRETTY_NAME:-unknown}")

# Off Debian 12: what the native path needs, checked, and the packages to
# install named per distribution.
native() {
	local kver missing=() h family cmd ver
	kver=$(uname -r)
	for cmd in cc make clang llvm-strip bpftool pahole python3 pkg-config; do
		command -v "$cmd" >/dev/null || missing+=("$cmd")
	done
	for h in bpf/libbpf.h gelf.h zlib.h gmp.h; do
		echo "#include <$h>" | cc -E -x c - >/dev/null 2>&1 || missing+=("<$h>")
	done
	[ -d "/lib/modules/$kver/build" ] || missing+=("the running kernel's headers")
	ver=$(pkg-config --modversion libbpf 2>/dev/null || true)
	if [ -n "$ver" ] && [ "$(printf '1.0\n%s\n' "$ver" | sort -V | head -n 1)" != 1.0 ]; then
		missing+=("libbpf >= 1.0 (found $ver)")
	fi
	if [ ${#missing[@]} = 0 ]; then
		log "ok: $os_name: what make and the native module need is installed" \
			"(the test guests need Debian 12: make test and make demo run there)"
		return 0
	fi
	log "$os_name is not Debian 12: nothing installed here; the guests (make test," \
		"make demo) need Debian 12, the native path needs what is missing:"
	log "  missing: ${missing[*]}"
	family=other
	case " $os_id $os_like " in
	*" ubuntu "*) family=ubuntu ;;
	*" debian "*) family=debian ;;
	*" fedora "* | *" rhel "* | *" centos "*) family=fedora ;;
	esac
	case $family in
	debian)
		log "  install: sudo apt-get install build-essential clang llvm libbpf-dev bpftool" \
			"dwarves libelf-dev zlib1g-dev pkg-config libgmp-dev python3 linux-headers-$kver"
		;;
	ubuntu)
		log "  install: sudo apt-get install build-essential clang llvm libbpf-dev" \
			"linux-tools-common linux-tools-$kver dwarves libelf-dev zlib1g-dev pkg-config" \
			"libgmp-dev python3 linux-headers-$kver  (bpftool is in linux-tools-$kver;" \
			"libbpf 1.x: Ubuntu 23.04 or later)"
		;;
	fedora)
		log "  install: sudo dnf install gcc make clang llvm libbpf-devel bpftool dwarves" \
			"elfutils-libelf-devel zlib-devel pkgconf-pkg-config gmp-devel python3" \
			"kernel-devel-$kver"
		;;
	*)
		log "  install your distribution's packages of: a C compiler and make, clang and llvm," \
			"libbpf (1.0 or later, headers), bpftool, pahole (dwarves), libelf, zlib and GMP" \
			"headers, python3, pkg-config, and the headers of kernel $kver"
		log "  (Debian: build-essential clang llvm libbpf-dev bpftool dwarves libelf-dev" \
			"zlib1g-dev libgmp-dev linux-headers-$kver; Fedora: gcc clang llvm libbpf-devel" \
			"bpftool dwarves elfutils-libelf-devel zlib-devel gmp-devel kernel-devel-$kver)"
		;;
	esac
	return 1
}

if [ "$os_id" != debian ] || [ "$os_codename" != bookworm ] || [ "$(uname -m)" != x86_64 ]; then
	[ "$(uname -m)" = x86_64 ] || log "note: fibtrace's BPF programs are built for x86_64; this is $(uname -m)"
	native
	exit
fi

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

missing_packages() {
	local p
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -qx 'install ok installed' ||
			echo "$p"
	done
}

# Both kernel lines, image and headers (what scripts/kernels.sh lists).
have_kernel() { # LINE
	ls /boot/vmlinuz-"$1".* >/dev/null 2>&1 && ls -d /lib/modules/"$1".*/build >/dev/null 2>&1
}
have_vng() {
	command -v vng >/dev/null 2>&1 &&
		[ "$(vng --version 2>/dev/null | awk '{print $NF}')" = "$VIRTME_NG_VERSION" ]
}
# (inferno-flamegraph has no --version: cargo's install record says which.)
have_inferno() {
	[ -x /usr/local/bin/inferno-flamegraph ] &&
		grep -q "^\"inferno $INFERNO_VERSION " /usr/local/.crates.toml 2>/dev/null
}
have_actionlint() {
	[ -x /usr/local/bin/actionlint ] &&
		/usr/local/bin/actionlint -version 2>/dev/null | grep -qx "v$ACTIONLINT_VERSION"
}
go_cmd() { command -v go || { [ -x /usr/local/go/bin/go ] && echo /usr/local/go/bin/go; }; }

# Everything checked first, as whoever runs this.
missing=()
[ -f "$BACKPORTS_SOURCE" ] || missing+=("the bookworm-backports source")
mapfile -t pkgs < <(missing_packages)
[ ${#pkgs[@]} = 0 ] || missing+=("packages: ${pkgs[*]}")
have_kernel 6.1 || missing+=("the 6.1 kernel")
have_kernel 6.12 || missing+=("the 6.12 kernel")
have_vng || missing+=("virtme-ng $VIRTME_NG_VERSION")
[ "$profile" = gate ] || have_inferno || missing+=("inferno $INFERNO_VERSION")

ok() {
	local k unreadable=()
	for k in /boot/vmlinuz-*; do
		[ -r "$k" ] || unreadable+=("$k")
	done
	# Debian installs its kernel images readable by all (vng reads them as
	# whoever runs the guests); an image a local policy made root-only is
	# named, not changed.
	[ ${#unreadable[@]} = 0 ] ||
		log "note: not readable by $(id -un): ${unreadable[*]}: the guests of those kernels" \
			"need it readable by whoever runs make test"
	log "ok: $(scripts_kernels | tr '\n' ' ')"
}
scripts_kernels() { "$(dirname "$0")/kernels.sh"; }

# actionlint into /usr/local/bin, with the Go that is there, when root runs
# this. Only the workflows' lint needs it (host/ci.actionlint says SKIP
# without it): it is never missing, and a failed install is only said.
if [ "$(id -u)" = 0 ] && [ "$profile" != gate ] && ! have_actionlint && [ -n "$(go_cmd)" ]; then
	log "installing actionlint $ACTIONLINT_VERSION with $(go_cmd)"
	GOBIN=/usr/local/bin "$(go_cmd)" install \
		"github.com/rhysd/actionlint/cmd/actionlint@v$ACTIONLINT_VERSION" ||
		log "warning: go install actionlint $ACTIONLINT_VERSION failed"
fi

if [ ${#missing[@]} = 0 ]; then
	ok
	exit 0
fi
[ "$(id -u)" = 0 ] || die "missing: $(IFS=';'; echo "${missing[*]}"); installing needs root: sudo make deps"

updated=0
apt_update() {
	[ $updated = 1 ] && return
	log "apt-get update"
	apt-get update -qq
	updated=1
}

newest_612() {
	apt-cache pkgnames linux-image-6.12 2>/dev/null |
		sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12\)-amd64-unsigned$/\1/p' |
		sort -V | tail -n 1
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
	apt_update
fi

export DEBIAN_FRONTEND=noninteractive
if [ ${#pkgs[@]} != 0 ]; then
	apt_update
	log "installing packages: ${pkgs[*]}"
	apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

# Kernel lines: the newest 6.1 from bookworm, the newest 6.12 from backports.
if ! have_kernel 6.1; then
	apt_update
	log "installing the 6.1 kernel and headers"
	apt-get install -y -qq linux-image-amd64 linux-headers-amd64 >/dev/null
fi
if ! have_kernel 6.12; then
	apt_update
	v=$(newest_612)
	[ -n "$v" ] || die "no 6.12 kernel found in bookworm-backports"
	log "installing the 6.12 kernel $v-amd64 and headers"
	apt-get install -y -qq "linux-image-$v-amd64-unsigned" "linux-headers-$v-amd64" >/dev/null
fi

# virtme-ng into /usr/local, with Debian's own Python, where every user finds
# it: the one wheel whose SHA-256 scripts/virtme-ng.requirements pins, so
# root runs no code from PyPI while installing (its dependencies are Debian's).
if ! have_vng; then
	log "installing virtme-ng $VIRTME_NG_VERSION from PyPI (pinned by hash)"
	/usr/bin/python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore \
		--break-system-packages --no-deps --only-binary=:all: --require-hashes \
		-r "$(dirname "$0")/virtme-ng.requirements"
fi
have_vng || die "virtme-ng $VIRTME_NG_VERSION not on PATH after installing it"

# inferno-flamegraph into /usr/local/bin, where sudo and the guests find it.
if [ "$profile" != gate ] && ! have_inferno; then
	cargo=$(command -v cargo || echo "${HOME:-/root}/.cargo/bin/cargo")
	if [ ! -x "$cargo" ]; then
		apt_update
		# cargo-web: bookworm's newer Rust (1.9x, kept current for its
		# browsers); its cargo 0.66 is too old for inferno 0.12.
		log "installing cargo-web (Debian) for inferno"
		apt-get install -y -qq --no-install-recommends cargo-web >/dev/null
		cargo=$(command -v cargo)
	fi
	log "installing inferno $INFERNO_VERSION from crates.io (a few minutes)"
	"$cargo" install -q --locked --root /usr/local inferno --version "$INFERNO_VERSION" ||
		die "cargo install inferno $INFERNO_VERSION failed"
fi

ok
