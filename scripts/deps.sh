#!/usr/bin/env bash
# Installs what building and testing jibod needs on a Debian 12 machine that
# has Go. Idempotent: a tool already present is not installed again.
#
#   scripts/deps.sh          tools for `make test` (qemu-user, file, chromium)
#   scripts/deps.sh --run    nothing beyond Go is needed to run the sim board
#   scripts/deps.sh --full   + cross compilers and tools for the full static
#                            ARM builds (scripts/sysroot.sh), ALSA's config,
#                            the pocketsphinx model and espeak-ng/sox (test
#                            speech) for their qemu runs
#   scripts/deps.sh --train  what retraining the wake word network needs
#                            (scripts/wake/train.py: Debian's python3-torch
#                            and python3-numpy, espeak-ng, sox, cmudict);
#                            never needed to build, test or run: the weights
#                            are committed
set -euo pipefail

need_go() {
	if ! command -v go >/dev/null 2>&1; then
		for d in /usr/local/go/bin "$HOME/go/bin"; do
			[ -x "$d/go" ] && export PATH="$d:$PATH"
		done
	fi
	command -v go >/dev/null 2>&1 || { echo "deps: Go is required (https://go.dev/dl); none found on PATH" >&2; exit 1; }
}

apt_install() {
	# Install the Debian packages named, skipping ones already installed.
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	local sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 || { echo "deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
		sudo="sudo"
	fi
	echo "deps: installing ${missing[*]}" >&2
	# A stale or missing package list is the usual cause of "unable to locate".
	$sudo apt-get update -qq || echo "deps: apt-get update reported errors; trying the install anyway" >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

need_go
case "${1:-}" in
--run) ;;
--train)
	apt_install python3-torch python3-numpy espeak-ng sox pocketsphinx-en-us
	;;
--full)
	apt_install qemu-user-static file make pkg-config patch bzip2 xz-utils debian-archive-keyring \
		gcc-aarch64-linux-gnu libc6-dev-arm64-cross libgfortran-12-dev-arm64-cross \
		gcc-arm-linux-gnueabihf libc6-dev-armhf-cross libgfortran-12-dev-armhf-cross \
		libasound2-data pocketsphinx-en-us espeak-ng sox
	;;
*)
	apt_install qemu-user-static file gcc libc6-dev espeak-ng # gcc: go test -race needs cgo; espeak-ng: audio/tts tests the real program
	# make test-sphinx: the pocketsphinx binding's tests and the spoken
	# end-to-end test (cgo, pkg-config), and the speech test set's sox.
	apt_install pkg-config libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us sox
	# audio/sphinx/history.go reads one release's internals.
	"$(dirname "$0")/pocketsphinx-version.sh"
	# jibod audio adapt (acoustic model adaptation) runs sphinxbase's
	# feature extractor, pocketsphinx's mdef converter and sphinxtrain.
	apt_install sphinxbase-utils pocketsphinx sphinxtrain
	# The web page's test loads it in a real headless browser (core/web,
	# cmd/jibod's TestWebPageInBrowser).
	apt_install chromium
	for q in qemu-aarch64-static qemu-arm-static; do
		command -v "$q" >/dev/null 2>&1 || { echo "deps: $q missing after install" >&2; exit 1; }
	done
	;;
esac
