// Package sphinx recognises speech offline with CMU pocketsphinx
// (0.8+5prealpha, Debian's libpocketsphinx) against a JSGF grammar.
//
// The cgo binding and the Recognizer are behind the build tag "sphinx";
// without it the package holds only its pure-Go parts, which every build
// compiles and tests: the pronouncing lexicon ([Lexicon]: cmudict plus
// rules for the words an ASR-normalised template writes, such as "whats"
// or "dont", plus an optional guesser for the rest) and the reading of a
// JSGF grammar's words ([GrammarWords]).
//
// The binding is thin on purpose: ps_init with the acoustic model and a
// small dictionary holding only the grammar's words (not the full
// cmudict's 134,000), ps_add_word for the words and variants a new
// grammar brings, ps_set_jsgf_string and ps_set_search to swap grammars,
// ps_start_utt / ps_process_raw / ps_end_utt per utterance, ps_seg_* for
// the alignment the confidence is computed from, ps_nbest for the n-best
// list and ps_set_keyphrase for the keyphrase Spotter. Build flags come from
// pkg-config (pocketsphinx, sphinxbase) and can be overridden with
// CGO_CFLAGS / CGO_LDFLAGS for static cross builds.
package sphinx
