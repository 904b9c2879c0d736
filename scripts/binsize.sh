#!/usr/bin/env bash
# Where the bytes of the pure static jibod go, per package (or module):
# builds it as `make cross` does for one architecture, prints the stripped
# file's size, then the breakdown of the same build with its symbol table
# kept (the stripped file's sections are the same size).
#
#   scripts/binsize.sh                 arm64, 40 largest packages
#   scripts/binsize.sh armv7 -by module -top 0
#
# JIBOD_TAGS are the build tags (the Makefile passes its own).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH

arch=arm64
case "${1:-}" in
arm64 | armv7 | amd64) arch=$1; shift ;;
esac
tags=${JIBOD_TAGS-nethttpomithttp2}
case $arch in
arm64) env=(GOARCH=arm64) ;;
armv7) env=(GOARCH=arm GOARM=7) ;;
amd64) env=(GOARCH=amd64) ;;
esac

out=bin/size/$arch
mkdir -p "$out"
# As the Makefile does: scripts/cold-packages are built without inlining.
gcflags=()
while read -r p; do
	case $p in '' | '#'*) continue ;; esac
	gcflags+=("-gcflags=$p=-l")
done <scripts/cold-packages
build() {
	env CGO_ENABLED=0 GOOS=linux "${env[@]}" go build -trimpath -tags "$tags" "${gcflags[@]}" -ldflags "$1" -o "$2" ./cmd/jibod
}
build '-s -w' "$out/jibod"
build '-w' "$out/jibod.sym"
echo "linux/$arch jibod (CGO_ENABLED=0 -trimpath -tags '$tags' -ldflags '-s -w', scripts/cold-packages without inlining): $(stat -c %s "$out/jibod") bytes"
echo
go run ./scripts/binsize "$@" "$out/jibod.sym"
