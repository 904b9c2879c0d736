//go:build sphinx

package sphinx

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/fe.h>
#include <sphinxbase/ckd_alloc.h>
#include <string.h>
#include "spares.h"

// newConfig parses argv against pocketsphinx's argument definitions
// (cmd_ln_init is variadic, which cgo cannot call).
static cmd_ln_t *newConfig(int argc, char **argv) {
	return cmd_ln_parse_r(NULL, ps_args(), argc, argv, TRUE);
}

// addJSGFWithWordBeam compiles jsgf as the search name with the word
// exit beam given, or the decoder's own when that is wider or wbeam is 0,
// and the word insertion penalty wip (pocketsphinx reads both from the
// configuration when a search is made), and puts the decoder's own back.
static int addJSGFWithWordBeam(ps_decoder_t *ps, const char *name, const char *jsgf, double wbeam, double wip) {
	cmd_ln_t *c = ps_get_config(ps);
	double old = cmd_ln_float_r(c, "-wbeam");
	double oldWip = cmd_ln_float_r(c, "-wip");
	if (wbeam > 0 && wbeam < old)
		cmd_ln_set_float_r(c, "-wbeam", wbeam);
	cmd_ln_set_float_r(c, "-wip", wip);
	int rv = ps_set_jsgf_string(ps, name, jsgf);
	cmd_ln_set_float_r(c, "-wbeam", old);
	cmd_ln_set_float_r(c, "-wip", oldWip);
	return rv;
}

// addAllphoneCI adds a phone loop search with context-independent phones
// (cheaper than triphones), putting the decoder's setting back.
static int addAllphoneCI(ps_decoder_t *ps, const char *name, const char *path) {
	cmd_ln_t *c = ps_get_config(ps);
	int old = cmd_ln_boolean_r(c, "-allphone_ci");
	cmd_ln_set_boolean_r(c, "-allphone_ci", 1);
	int rv = ps_set_allphone_file(ps, name, path);
	cmd_ln_set_boolean_r(c, "-allphone_ci", old);
	return rv;
}

// addLMFile adds an n-gram search over the model at path without the
// lattice's best path search: the alignment's acoustic scores are then
// relative to each frame's best, as the grammar's are, which the
// confidence is computed from (the lattice's are not). Without fwdflat
// it also skips the flat second pass, for a cheaper search. The
// decoder's settings are put back.
static int addLMFile(ps_decoder_t *ps, const char *name, const char *path, int fwdflat) {
	cmd_ln_t *c = ps_get_config(ps);
	int oldBest = cmd_ln_boolean_r(c, "-bestpath");
	int oldFlat = cmd_ln_boolean_r(c, "-fwdflat");
	cmd_ln_set_boolean_r(c, "-bestpath", 0);
	if (!fwdflat) {
		cmd_ln_set_boolean_r(c, "-fwdflat", 0);
	}
	int rv = ps_set_lm_file(ps, name, path);
	cmd_ln_set_boolean_r(c, "-bestpath", oldBest);
	cmd_ln_set_boolean_r(c, "-fwdflat", oldFlat);
	return rv;
}

// addFSG makes a grammar search named name from an automaton: nstate
// states, word and null transitions (word[i] < 0) with probabilities, as
// pocketsphinx's JSGF compiler would (a word's weight is its log
// probability, without the language weight), and compiles it with the
// word exit beam wbeam, or the decoder's own when that is narrower or
// wbeam is 0, and the word insertion penalty wip, putting the decoder's
// own back.
static int addFSG(ps_decoder_t *ps, const char *name, int nstate, int start, int final,
                  int nword, char **words, int narc, const int *from, const int *to,
                  const int *word, const double *prob, double wbeam, double wip) {
	cmd_ln_t *c = ps_get_config(ps);
	logmath_t *lmath = ps_get_logmath(ps);
	fsg_model_t *fsg = fsg_model_init(name, lmath, cmd_ln_float32_r(c, "-lw"), nstate);
	if (fsg == NULL)
		return -1;
	fsg->start_state = start;
	fsg->final_state = final;
	int *wid = malloc(sizeof(int) * (nword > 0 ? nword : 1));
	if (wid == NULL) {
		fsg_model_free(fsg);
		return -1;
	}
	for (int i = 0; i < nword; i++)
		wid[i] = fsg_model_word_add(fsg, words[i]);
	for (int i = 0; i < narc; i++) {
		int32 logp = prob[i] == 1.0 ? 0 : logmath_log(lmath, prob[i]);
		if (word[i] < 0)
			fsg_model_null_trans_add(fsg, from[i], to[i], logp);
		else
			fsg_model_trans_add(fsg, from[i], to[i], logp, wid[word[i]]);
	}
	free(wid);
	glist_free(fsg_model_null_trans_closure(fsg, NULL));
	double old = cmd_ln_float_r(c, "-wbeam");
	double oldWip = cmd_ln_float_r(c, "-wip");
	if (wbeam > 0 && wbeam < old)
		cmd_ln_set_float_r(c, "-wbeam", wbeam);
	cmd_ln_set_float_r(c, "-wip", wip);
	int rv = ps_set_fsg(ps, name, fsg);
	cmd_ln_set_float_r(c, "-wbeam", old);
	cmd_ln_set_float_r(c, "-wip", oldWip);
	fsg_model_free(fsg);
	return rv;
}

// addLMFileBeams is addLMFile with the search's own beams, language
// weight, word insertion penalty, word and HMM limits (0 keeps the
// decoder's), put back afterwards: pocketsphinx reads them from the
// configuration when the search is made.
static int addLMFileBeams(ps_decoder_t *ps, const char *name, const char *path,
                          double beam, double wbeam, double pbeam, double lpbeam, double lponlybeam,
                          double lw, double wip, int maxwpf, int maxhmmpf) {
	cmd_ln_t *c = ps_get_config(ps);
	const char *fl[] = {"-beam", "-wbeam", "-pbeam", "-lpbeam", "-lponlybeam", "-lw", "-wip"};
	double want[] = {beam, wbeam, pbeam, lpbeam, lponlybeam, lw, wip};
	double old[7];
	for (int i = 0; i < 7; i++) {
		old[i] = cmd_ln_float_r(c, fl[i]);
		if (want[i] > 0)
			cmd_ln_set_float_r(c, fl[i], want[i]);
	}
	long oldWpf = cmd_ln_int_r(c, "-maxwpf"), oldHmm = cmd_ln_int_r(c, "-maxhmmpf");
	if (maxwpf != 0)
		cmd_ln_set_int_r(c, "-maxwpf", maxwpf);
	if (maxhmmpf != 0)
		cmd_ln_set_int_r(c, "-maxhmmpf", maxhmmpf);
	int rv = addLMFile(ps, name, path, 0);
	for (int i = 0; i < 7; i++)
		cmd_ln_set_float_r(c, fl[i], old[i]);
	cmd_ln_set_int_r(c, "-maxwpf", oldWpf);
	cmd_ln_set_int_r(c, "-maxhmmpf", oldHmm);
	return rv;
}

// features computes the cepstra of a whole utterance with the decoder's
// front end, exactly as ps_process_raw does for a full utterance (its
// noise estimate goes on from the utterance before, as there), into a
// buffer the caller frees with ckd_free_2d; NULL on failure.
static mfcc_t **features(ps_decoder_t *ps, const int16 *pcm, size_t n, int32 *nfr) {
	fe_t *fe = ps_get_fe(ps);
	size_t left = n;
	int32 count = 0, tail = 0;
	if (fe_process_frames(fe, NULL, &left, NULL, &count, NULL) < 0)
		return NULL;
	mfcc_t **cep = (mfcc_t **)ckd_calloc_2d(count + 1, fe_get_output_size(fe), sizeof(mfcc_t));
	fe_start_utt(fe);
	left = n;
	if (fe_process_frames(fe, &pcm, &left, cep, &count, NULL) < 0) {
		ckd_free_2d(cep);
		return NULL;
	}
	fe_end_utt(fe, cep[count], &tail);
	*nfr = count + tail;
	return cep;
}

// processFeatures searches a full utterance of cepstra, from a copy:
// the batch cepstral mean normalisation works in place.
static int processFeatures(jibod_pool *spares, ps_decoder_t *ps, mfcc_t **cep, int32 nfr) {
	if (nfr <= 0)
		return 0;
	int ncep = fe_get_output_size(ps_get_fe(ps));
	mfcc_t **copy = (mfcc_t **)ckd_calloc_2d(nfr, ncep, sizeof(mfcc_t));
	memcpy(copy[0], cep[0], sizeof(mfcc_t) * nfr * ncep);
	int rv = jibod_process_cep(spares, ps, copy, nfr, 0, 1);
	ckd_free_2d(copy);
	return rv;
}

static void freeFeatures(mfcc_t **cep) {
	ckd_free_2d(cep);
}

static double toLinear(ps_decoder_t *ps, int32 logv) {
	return logmath_exp(ps_get_logmath(ps), logv);
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// quiet turns sphinxbase's logging (a process-wide setting in the C
// library) off once: pocketsphinx prints hundreds of lines per decoder.
var quiet sync.Once

// decoder is one pocketsphinx decoder. It is not safe for concurrent use;
// the Recognizer hands each to one goroutine at a time.
type decoder struct {
	ps   *C.ps_decoder_t
	argv []*C.char // kept alive as long as the decoder's configuration
	// prons are the pronunciations in the decoder's dictionary, in the
	// order they were added (word, word(2)…): all it has, since it is
	// built from a file of them and only addWord adds more.
	prons map[string][]string
	// phoneLoop is the phonetic language model of its phone loop search,
	// "" for none (Config.PhoneLoop).
	phoneLoop string
	// fallbackBeams are the fallback search's beams (Config.Fallback).
	fallbackBeams lmBeams
	// grammar is the generation of the grammars the decoder searches with.
	grammar uint64
	// resetNoise starts the noise subtraction afresh on every search
	// (Config.ResetNoise).
	resetNoise bool
	// searched names the searches run since the recogniser last cleared
	// it, in order (audio.Verdict.Searches).
	searched []string
	// gauss is what installing the vector scoring into the decoder came
	// to (gauss.h's JIBOD_GAUSS_*).
	gauss int32
	// spares are the list nodes its searches keep (spares.c).
	spares *C.jibod_pool
}

// newDecoder starts a decoder with the acoustic model in hmm, the
// dictionary file dict and extra "-flag value" arguments.
func newDecoder(hmm, dict string, extra []string) (*decoder, error) {
	quiet.Do(func() { C.err_set_logfp(nil) })
	if err := historyReady(); err != nil {
		return nil, fmt.Errorf("starting pocketsphinx: %w", err)
	}
	// -remove_silence no: the front end's own voice activity detection
	// would drop frames, and the alignment's frame numbers would no longer
	// be the utterance's, which coverage needs; our VAD has already cut
	// the utterance. With it on, clean speech lost most wake phrases to
	// the coverage floor (docs/hearing.md).
	extra, params, err := withFeatParams(hmm, extra)
	if err != nil {
		return nil, fmt.Errorf("starting pocketsphinx: %w", err)
	}
	if params != "" {
		// Read once, as the decoder starts.
		defer os.Remove(params)
	}
	args := append([]string{"pocketsphinx", "-hmm", hmm, "-dict", dict, "-logfn", "/dev/null", "-remove_silence", "no"}, extra...)
	d := &decoder{prons: map[string][]string{}}
	if err := d.newSpares(); err != nil {
		return nil, fmt.Errorf("starting pocketsphinx: %w", err)
	}
	for _, a := range args {
		d.argv = append(d.argv, C.CString(a))
	}
	cfg := C.newConfig(C.int(len(d.argv)), &d.argv[0])
	if cfg == nil {
		d.freeArgs()
		d.freeSpares()
		return nil, fmt.Errorf("starting pocketsphinx: arguments refused: %s", strings.Join(extra, " "))
	}
	d.ps = C.ps_init(cfg)
	C.cmd_ln_free_r(cfg) // ps_init keeps its own reference
	if d.ps == nil {
		d.freeArgs()
		d.freeSpares()
		return nil, fmt.Errorf("starting pocketsphinx with model %s and dictionary %s failed (missing or unreadable files?)", hmm, dict)
	}
	installGauss(d)
	return d, nil
}

func (d *decoder) freeArgs() {
	for _, a := range d.argv {
		C.free(unsafe.Pointer(a))
	}
	d.argv = nil
}

func (d *decoder) close() {
	if d.ps != nil {
		C.ps_free(d.ps)
		d.ps = nil
	}
	d.freeArgs()
	d.freeSpares()
}

// addWord adds the pronunciations of word the decoder lacks, after those
// it has: the first under the word itself, later ones under cmudict's
// variant names word(2), word(3)…, which the decoder reports as the word
// and a grammar search (-fsgusealtpron) hears as its alternatives.
func (d *decoder) addWord(word string, prons []string) error {
	for _, p := range prons {
		have := d.prons[word]
		if slices.Contains(have, p) {
			continue
		}
		name := word
		if len(have) > 0 {
			name = fmt.Sprintf("%s(%d)", word, len(have)+1)
		}
		cw, cp := C.CString(name), C.CString(p)
		id := C.ps_add_word(d.ps, cw, cp, 0)
		C.free(unsafe.Pointer(cw))
		C.free(unsafe.Pointer(cp))
		if id < 0 {
			return fmt.Errorf("adding %q /%s/ to the decoder's dictionary failed", name, p)
		}
		// Recorded one at a time: after a failure the record is still
		// what the dictionary holds, and the next name is still free.
		d.prons[word] = append(slices.Clip(have), p)
	}
	return nil
}

// setGrammar compiles a grammar as the search named name and makes it
// current.
func (d *decoder) setGrammar(name string, g searchGrammar) error {
	if err := d.addGrammar(name, g, 0); err != nil {
		return err
	}
	return d.useSearch(name)
}

// grammarInsertionPenalty is the grammar searches' word insertion
// penalty (pocketsphinx's -wip, a probability): none. A grammar's
// sentences are equally likely (every transition has probability 1), so
// a penalty on each word is a prior for the sentences with fewer words,
// which drew speech onto two-word sentences ("how are you" as "volume
// up"). The language-model searches keep the decoder's (-wip 0.65).
const grammarInsertionPenalty = 1.0

// wideWordBeam is the word exit beam of the wider search (see
// addWideGrammar), against pocketsphinx's 7e-29: a word may end this far
// below the best path and still lead on. The narrowest that finds the
// sentences the word beam had pruned: wider found no more, nor did
// widening the other beams (-beam, -pbeam; docs/hearing.md).
const wideWordBeam = 1e-35

// addWideGrammar compiles a grammar as the search named name with a wider
// word exit beam than the decoder's own, without making it current.
func (d *decoder) addWideGrammar(name string, g searchGrammar) error {
	return d.addGrammar(name, g, wideWordBeam)
}

// searchGrammar is a grammar as the decoder takes it: its JSGF, and the
// automaton compiled from it (nil: pocketsphinx compiles the JSGF).
type searchGrammar struct {
	jsgf string
	fsg  *automaton
}

// addGrammar compiles g as the search named name with the word exit beam
// wbeam when it is wider than the decoder's own (0: the decoder's).
func (d *decoder) addGrammar(name string, g searchGrammar, wbeam float64) error {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	if a := g.fsg; a != nil {
		words := a.words()
		index := make(map[string]int, len(words))
		cwords := make([]*C.char, len(words)+1)
		for i, w := range words {
			index[w] = i
			cwords[i] = C.CString(w)
		}
		defer func() {
			for _, p := range cwords[:len(words)] {
				C.free(unsafe.Pointer(p))
			}
		}()
		n := len(a.arcs) + 1
		from, to, word := make([]C.int, n), make([]C.int, n), make([]C.int, n)
		prob := make([]C.double, n)
		for i, arc := range a.arcs {
			from[i], to[i], prob[i] = C.int(arc.from), C.int(arc.to), C.double(arc.prob)
			word[i] = -1
			if arc.word != "" {
				word[i] = C.int(index[arc.word])
			}
		}
		if C.addFSG(d.ps, cn, C.int(a.states), C.int(a.start), C.int(a.final), C.int(len(words)), &cwords[0],
			C.int(len(a.arcs)), &from[0], &to[0], &word[0], &prob[0], C.double(wbeam), C.double(grammarInsertionPenalty)) < 0 {
			return errors.New("pocketsphinx refused the grammar (a word missing from the dictionary?)")
		}
		return nil
	}
	cg := C.CString(g.jsgf)
	defer C.free(unsafe.Pointer(cg))
	if C.addJSGFWithWordBeam(d.ps, cn, cg, C.double(wbeam), C.double(grammarInsertionPenalty)) < 0 {
		return errors.New("pocketsphinx refused the grammar (JSGF syntax, or a word missing from the dictionary)")
	}
	return nil
}

// addAllphone adds a phone loop search named name over the phonetic
// language model at path (pocketsphinx's allphone search), without
// making it current.
func (d *decoder) addAllphone(name, path string) error {
	cn, cp := C.CString(name), C.CString(path)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cp))
	if C.addAllphoneCI(d.ps, cn, cp) < 0 {
		return fmt.Errorf("pocketsphinx refused the phone language model %s", path)
	}
	return nil
}

// useSearch makes the search named name current.
func (d *decoder) useSearch(name string) error {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	if C.ps_set_search(d.ps, cn) < 0 {
		return fmt.Errorf("pocketsphinx: selecting search %q failed", name)
	}
	return nil
}

// addLM adds an n-gram search named name over the ARPA model arpa,
// without making it current; without fwdflat, a cheaper one (see
// addLMFile).
func (d *decoder) addLM(name, arpa string, fwdflat bool) error {
	path, err := writeLM(arpa)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	cn, cp := C.CString(name), C.CString(path)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cp))
	flat := C.int(0)
	if fwdflat {
		flat = 1
	}
	if C.addLMFile(d.ps, cn, cp, flat) < 0 {
		return errors.New("pocketsphinx refused the language model")
	}
	return nil
}

// writeLM writes the ARPA model arpa to a temporary file, which
// pocketsphinx reads by name; the caller removes it.
func writeLM(arpa string) (string, error) {
	f, err := os.CreateTemp("", "jibod-lm-*.arpa")
	if err != nil {
		return "", fmt.Errorf("writing the language model: %w", err)
	}
	_, werr := f.WriteString(arpa)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing the language model: %w", errors.Join(werr, cerr))
	}
	return f.Name(), nil
}

// lmBeams are an n-gram search's own beams and limits (0: the
// decoder's): see addLMBeams.
type lmBeams struct {
	beam, wbeam, pbeam, lpbeam, lponlybeam float64
	// lw and wip are the search's language weight and word insertion
	// penalty.
	lw, wip          float64
	maxwpf, maxhmmpf int
}

// addLMBeams adds a cheap n-gram search named name over the ARPA model
// arpa, without making it current: its one-pass tree search alone (no
// flat second pass, no lattice), with beams b.
func (d *decoder) addLMBeams(name, arpa string, b lmBeams) error {
	path, err := writeLM(arpa)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	cn, cp := C.CString(name), C.CString(path)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cp))
	if C.addLMFileBeams(d.ps, cn, cp, C.double(b.beam), C.double(b.wbeam), C.double(b.pbeam), C.double(b.lpbeam),
		C.double(b.lponlybeam), C.double(b.lw), C.double(b.wip), C.int(b.maxwpf), C.int(b.maxhmmpf)) < 0 {
		return errors.New("pocketsphinx refused the language model")
	}
	return nil
}

// features are an utterance's cepstra as the decoder's front end
// computed them once (see searchKeeping), for a second search of the
// same audio that leaves the front end as it was.
type features struct {
	cep **C.mfcc_t
	n   C.int32
}

func (f *features) free() {
	if f != nil && f.cep != nil {
		C.freeFeatures(f.cep)
		f.cep = nil
	}
}

// searchKeeping is search, computing the utterance's features first and
// keeping them for searchFeatures. The decoder ends in the same state as
// after search: the features are computed as ps_process_raw computes
// them for a whole utterance.
func (d *decoder) searchKeeping(ctx context.Context, name string, pcm []int16) (result, *features, error) {
	if err := ctx.Err(); err != nil {
		return result{}, nil, err
	}
	if err := d.useSearch(name); err != nil {
		return result{}, nil, err
	}
	d.searched = append(d.searched, name)
	if d.resetNoise {
		if err := d.startStream(); err != nil {
			return result{}, nil, err
		}
	}
	if err := d.start(); err != nil {
		return result{}, nil, err
	}
	f := &features{}
	if len(pcm) > 0 {
		f.cep = C.features(d.ps, (*C.int16)(unsafe.Pointer(&pcm[0])), C.size_t(len(pcm)), &f.n)
		if f.cep == nil {
			_ = d.end()
			return result{}, nil, errors.New("pocketsphinx: computing features failed")
		}
	}
	if C.processFeatures(d.spares, d.ps, f.cep, f.n) < 0 {
		_ = d.end()
		f.free()
		return result{}, nil, errors.New("pocketsphinx: processing features failed")
	}
	if err := d.end(); err != nil {
		f.free()
		return result{}, nil, err
	}
	return d.hyp(), f, nil
}

// searchFeatures decodes features an earlier search computed with the
// search named name. The front end is not run, so its noise estimate,
// which goes on from one utterance to the next, stays as it was.
func (d *decoder) searchFeatures(ctx context.Context, name string, f *features) (result, error) {
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	if err := d.useSearch(name); err != nil {
		return result{}, err
	}
	d.searched = append(d.searched, name)
	if err := d.start(); err != nil {
		return result{}, err
	}
	if C.processFeatures(d.spares, d.ps, f.cep, f.n) < 0 {
		_ = d.end()
		return result{}, errors.New("pocketsphinx: processing features failed")
	}
	if err := d.end(); err != nil {
		return result{}, err
	}
	return d.hyp(), nil
}

// setKeyphrase makes keyphrase spotting of phrase the current search.
func (d *decoder) setKeyphrase(name, phrase string) error {
	cn, cp := C.CString(name), C.CString(phrase)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cp))
	if C.ps_set_keyphrase(d.ps, cn, cp) < 0 {
		return fmt.Errorf("pocketsphinx refused keyphrase %q", phrase)
	}
	if C.ps_set_search(d.ps, cn) < 0 {
		return fmt.Errorf("selecting search %q failed", name)
	}
	return nil
}

// startStream resets what the front end carries from one utterance to
// the next: its noise subtraction's estimate.
func (d *decoder) startStream() error {
	if C.ps_start_stream(d.ps) < 0 {
		return errors.New("pocketsphinx: starting a stream failed")
	}
	return nil
}

func (d *decoder) start() error {
	if C.jibod_start_utt(d.spares, d.ps) < 0 {
		return errors.New("pocketsphinx: starting the utterance failed")
	}
	return nil
}

// process feeds a whole utterance in one call (full_utt), so cepstral
// mean normalisation uses this utterance's own mean, as the model was
// trained (batch CMN). Fed in pieces, pocketsphinx normalises with a mean
// carried over from earlier utterances, which is wrong wherever the noise
// level changes from one utterance to the next. The noise subtraction's
// estimate does carry over from the decoder's utterance before (only
// ps_start_stream resets it): a reset before every utterance lost
// commands on the tuning sets (docs/hearing.md).
func (d *decoder) process(pcm []int16) error {
	if len(pcm) == 0 {
		return nil
	}
	if C.jibod_process_raw(d.spares, d.ps, (*C.int16)(unsafe.Pointer(&pcm[0])), C.size_t(len(pcm)), 0, 1) < 0 {
		return errors.New("pocketsphinx: processing audio failed")
	}
	return nil
}

func (d *decoder) end() error {
	if C.jibod_end_utt(d.spares, d.ps) < 0 {
		return errors.New("pocketsphinx: ending the utterance failed")
	}
	return nil
}

// result is one entry of the n-best list.
type result struct {
	text  string
	score int32 // path score, log base of the decoder's logmath
}

// hyp returns the best hypothesis ("" for none) and its score.
func (d *decoder) hyp() result {
	var score C.int32
	h := C.ps_get_hyp(d.ps, &score)
	if h == nil {
		return result{}
	}
	return result{text: C.GoString(h), score: int32(score)}
}

// ratio converts a log score difference to a linear ratio.
func (d *decoder) ratio(logDiff int32) float64 {
	return float64(C.toLinear(d.ps, C.int32(logDiff)))
}

// nbest returns up to n distinct hypotheses, best first, leaving out
// those skip reports (nil: none), which do not count towards n.
func (d *decoder) nbest(n int, skip func(string) bool) []result {
	var out []result
	seen := map[string]bool{}
	it := C.ps_nbest(d.ps)
	// A lattice yields the same words along many paths: bound the walk,
	// not just the distinct results. Skipped paths have a bound of their
	// own, so that a lattice full of them still yields the others.
	for steps, skipped := 0, 0; it != nil && len(out) < n && steps < 4*n && skipped < 16*n; {
		var score C.int32
		h := C.ps_nbest_hyp(it, &score)
		t := ""
		if h != nil {
			t = C.GoString(h)
		}
		if skip != nil && t != "" && skip(t) {
			skipped++
		} else if steps++; t != "" && !seen[t] {
			seen[t] = true
			out = append(out, result{text: t, score: int32(score)})
		}
		it = C.ps_nbest_next(it) // frees the iterator when it returns nil
	}
	if it != nil {
		C.ps_nbest_free(it)
	}
	return out
}

// segment is one word of the best path: frames [start, end] counted from
// the utterance's first frame, and its acoustic score, which pocketsphinx
// keeps relative to the best-scoring senone of each frame.
type segment struct {
	word       string
	start, end int
	ascr       int32
}

// align returns the best path's words, silences and fillers.
func (d *decoder) align() []segment {
	var out []segment
	for seg := C.ps_seg_iter(d.ps); seg != nil; seg = C.ps_seg_next(seg) {
		var ascr, lscr, lback C.int32
		C.ps_seg_prob(seg, &ascr, &lscr, &lback)
		var sf, ef C.int
		C.ps_seg_frames(seg, &sf, &ef)
		out = append(out, segment{word: C.GoString(C.ps_seg_word(seg)), start: int(sf), end: int(ef), ascr: int32(ascr)})
	}
	if len(out) > 0 {
		base := out[0].start
		for i := range out {
			out[i].start -= base
			out[i].end -= base
		}
	}
	return out
}

// words returns the automaton's distinct words, sorted.
func (a *automaton) words() []string {
	seen := map[string]bool{}
	var out []string
	for _, arc := range a.arcs {
		if arc.word != "" && !seen[arc.word] {
			seen[arc.word] = true
			out = append(out, arc.word)
		}
	}
	slices.Sort(out)
	return out
}

// wordSpans returns an alignment as the acceptance model reads it, each
// word with the number of phones of the pronunciation the decoder chose.
func (d *decoder) wordSpans(segs []segment) []WordSpan {
	out := make([]WordSpan, 0, len(segs))
	for _, s := range segs {
		if isFiller(s.word) {
			out = append(out, WordSpan{Word: s.word, Start: s.start, End: s.end, Acoustic: s.ascr, Filler: true})
			continue
		}
		out = append(out, WordSpan{Word: s.word, Start: s.start, End: s.end, Acoustic: s.ascr, Phones: d.phones(s.word)})
	}
	return out
}

// phones counts the phones of a dictionary word as the decoder names it
// ("word" or its variant "word(2)"); 0 when it is unknown.
func (d *decoder) phones(name string) int {
	word, variant := name, 1
	if i := strings.LastIndexByte(name, '('); i > 0 && strings.HasSuffix(name, ")") {
		if n, err := strconv.Atoi(name[i+1 : len(name)-1]); err == nil && n > 0 {
			word, variant = name[:i], n
		}
	}
	p := d.prons[word]
	if variant > len(p) {
		return 0
	}
	return len(strings.Fields(p[variant-1]))
}
