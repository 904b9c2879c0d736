#!/usr/bin/env bash
# Builds the full robot binaries: static ARM builds with portaudio and
# pocketsphinx linked in (cgo, tags portaudio,sphinx), against the sysroots
# of scripts/sysroot.sh, and checks that `file` calls them statically linked.
#
#   scripts/cross-full.sh                 both: bin/linux-arm64-full/jibod, bin/linux-armv7-full/jibod
#   scripts/cross-full.sh arm64           one
#   scripts/cross-full.sh --test arm64 PKG...
#                                         instead, `go test -c` those packages
#                                         into bin/armtest-full/ (for qemu)
#
# VERSION (from the Makefile) is stamped into the binary; JIBOD_FULL_TAGS
# replaces "portaudio,sphinx" (e.g. to build one of the two alone).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

# netgo, osusergo: Go's own resolver and user lookup, not static glibc's
# (which would need the shared NSS libraries at run time).
# nethttpomithttp2 as in the pure builds (Makefile, docs/size.md).
tags=${JIBOD_FULL_TAGS:-portaudio,sphinx},netgo,osusergo,nethttpomithttp2
version=${VERSION:-dev}
test_pkgs=()
if [ "${1:-}" = "--test" ]; then
	shift
	[ $# -ge 2 ] || { echo "usage: $0 --test arm64|armv7 PKG..." >&2; exit 2; }
	arches=("$1")
	shift
	test_pkgs=("$@")
else
	arches=("$@")
	[ ${#arches[@]} -gt 0 ] || arches=(arm64 armv7)
fi

# gobuild runs go with its output shown, except the static linker's three
# expected warnings about libasound (dlopen: plugins shipped as shared
# libraries cannot load into a static binary; getpwuid_r: "~" in ALSA
# configuration paths when $HOME is unset; getgrnam_r: dmix's ipc_group by
# name). Anything else is shown as is.
gobuild() {
	local log rc=0
	log=$(mktemp)
	go "$@" 2>"$log" || rc=$?
	grep -v -E "warning: Using '(dlopen|getpwuid_r|getgrnam_r)' in statically linked applications|in function .(__snd_dlopen|snd_user_file|snd1_pcm_direct_parse_open_conf)':$|^# github.com/openjibo/" "$log" >&2 || true
	rm -f "$log"
	return $rc
}

for a in "${arches[@]}"; do
	case "$a" in
	arm64) sys=arm64 ;;
	armv7) sys=armhf ;;
	*) echo "cross-full: unknown architecture $a (arm64, armv7)" >&2; exit 2 ;;
	esac
	envfile=$(scripts/sysroot.sh "$sys")
	(
		# shellcheck disable=SC1090
		. "$envfile"
		case ",$tags," in
		*,sphinx,*) scripts/pocketsphinx-version.sh ;; # the sysroot's, through its $PKG_CONFIG
		esac
		# Go's build cache does not notice a rebuilt sysroot (the pkg-config
		# flags stay the same); the sysroot's stamp in the C flags does, and
		# costs only the cgo packages' rebuild, not `go build -a`'s.
		export CGO_CFLAGS="-O2 -g -DJIBOD_SYSROOT_STAMP=$JIBOD_SYSROOT_STAMP"
		# --wrap: the grammar search's history bookkeeping goes to
		# audio/sphinx's (history.go), and sphinxbase's list nodes to the
		# decoders' spares (spares.c), as the shared libraries'
		# interposition does on the host. Only with -static: linked
		# dynamically, __real_fsg_history_entry_add would be our own
		# definition (history.go refuses it and looks the library's up).
		ldflags="-s -w -X main.version=$version -linkmode external -extldflags '-static -Wl,--wrap=fsg_history_end_frame -Wl,--wrap=fsg_history_entry_add -Wl,--wrap=glist_add_ptr -Wl,--wrap=glist_insert_ptr -Wl,--wrap=glist_free -Wl,--wrap=gnode_free'"
		start=$(date +%s)
		if [ ${#test_pkgs[@]} -gt 0 ]; then
			mkdir -p bin/armtest-full
			for p in "${test_pkgs[@]}"; do
				out=bin/armtest-full/$a-$(echo "${p#./}" | tr / -).test
				gobuild test -c -trimpath -tags "$tags" -ldflags "$ldflags" -o "$out" "$p"
				echo "$out"
			done
			exit 0
		fi
		out=bin/linux-$a-full/jibod
		gobuild build -trimpath -tags "$tags" -ldflags "$ldflags" -o "$out" ./cmd/jibod
		desc=$(file -b "$out")
		case "$desc" in
		*"statically linked"*) ;;
		*) echo "cross-full: $out is not statically linked: $desc" >&2; exit 1 ;;
		esac
		echo "cross-full: $out: $(du -h "$out" | cut -f1), built in $(($(date +%s) - start)) s: $desc" >&2
		if [ "$a" = arm64 ]; then
			# The cgo files behind the tags are vetted nowhere else.
			go vet -tags "$tags" ./audio/portaudio/... ./audio/sphinx/... ./cmd/jibod
		fi
	)
done
