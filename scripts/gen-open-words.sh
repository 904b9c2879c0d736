#!/usr/bin/env bash
# Writes the open words of the domain language model (audio/ngram,
# sphinx.search "ngram"): the N most frequent words of Debian's US English
# language model (pocketsphinx-en-us's en-us.lm.bin, conversational
# English), with their unigram log10 probability, one "word logprob" a
# line, to OUT (default audio/sphinx/lm/open-words.txt). Only words of
# letters and apostrophes that cmudict pronounces are kept.
#
#   scripts/gen-open-words.sh [N] [OUT]
#
# sphinx_lm_convert cannot write that model as ARPA (an assertion fails
# after the unigrams), so a few lines of C read the unigrams through
# sphinxbase (libsphinxbase-dev).
set -euo pipefail
n=${1:-1500}
out=${2:-audio/sphinx/lm/open-words.txt}
lm=/usr/share/pocketsphinx/model/en-us/en-us.lm.bin
dict=/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/uni.c" <<'C'
#include <stdio.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/err.h>
int main(int argc, char **argv) {
	err_set_logfp(NULL);
	logmath_t *lm = logmath_init(1.0001, 0, 0);
	ngram_model_t *m = ngram_model_read(NULL, argv[1], NGRAM_AUTO, lm);
	if (!m) return 1;
	int n = ngram_model_get_counts(m)[0];
	for (int i = 0; i < n; i++) {
		int32 used;
		int32 s = ngram_ng_score(m, i, NULL, 0, &used);
		printf("%s %.4f\n", ngram_word(m, i), logmath_log_to_log10(lm, s));
	}
	return 0;
}
C
cc -o "$tmp/uni" "$tmp/uni.c" $(pkg-config --cflags --libs sphinxbase) -lm
"$tmp/uni" "$lm" >"$tmp/all"
awk '{print $1}' "$dict" | LC_ALL=C sort -u >"$tmp/dict"
LC_ALL=C grep -E "^[a-z']+ " "$tmp/all" | LC_ALL=C sort -k1,1 | LC_ALL=C join - "$tmp/dict" |
	sort -k2,2gr -k1,1 | awk -v n="$n" 'NR <= n' >"$out"
echo "wrote $(wc -l <"$out") words to $out"
