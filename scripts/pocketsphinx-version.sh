#!/usr/bin/env bash
# Checks that the pocketsphinx that pkg-config ($PKG_CONFIG, else
# pkg-config) finds is the release whose internals audio/sphinx reads,
# none of them in an installed header: history.go, the head of the grammar
# search's fsg_history_t and the arguments of fsg_history_entry_add;
# gauss.c, the decoder's and acoustic model's heads and the
# phonetically-tied model (ptm_mgau_t, gauden_t) it scores. Another
# release may lay them out otherwise; the build stops here rather than
# build a recogniser that reads the wrong fields.
#
#   scripts/pocketsphinx-version.sh    exit 0 when it is the one, 1 otherwise
set -euo pipefail
want=5prealpha # Debian 12's libpocketsphinx-dev, 0.8+5prealpha
got=$(${PKG_CONFIG:-pkg-config} --modversion pocketsphinx 2>/dev/null) || {
	echo "pocketsphinx-version: pkg-config finds no pocketsphinx (scripts/deps.sh installs it)" >&2
	exit 1
}
if [ "$got" != "$want" ]; then
	echo "pocketsphinx-version: pocketsphinx $got, but audio/sphinx/history.go and gauss.c read the internal layout of pocketsphinx $want;" \
		"check fsg_history_t and fsg_history_entry_add against history.go, and ps_decoder_t, acmod_t, ptm_mgau_t and gauden_t against gauss.c, in its sources; then change want in $0" >&2
	exit 1
fi
