//go:build sphinx && linux

package sphinx

import (
	"context"
	"flag"
	"math/rand/v2"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/grammar"
	"github.com/stretchr/testify/require"
)

// benchArgs are pocketsphinx arguments for BenchmarkRecognizeRobotGrammar
// (go test -bench … -args -sphinx-args "-maxhmmpf 3000"), for measuring
// a decoder setting's cost.
var benchRivals = flag.Int("rivals", DefaultRivals, "n-best depth for BenchmarkRivals")

var benchArgs = flag.String("sphinx-args", "", "pocketsphinx arguments for BenchmarkRecognizeRobotGrammar")

// threadCPU returns the CPU time the calling OS thread has used
// (RUSAGE_THREAD).
func threadCPU(t testing.TB) time.Duration {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(1, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchUtterances are commands as the listener hands them over: half a
// second of faint noise (the pre-roll) before the words, a little after.
func benchUtterances(b *testing.B) [][]int16 {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func(n int) []int16 {
		out := make([]int16, n)
		for i := range out {
			out[i] = int16(rng.NormFloat64() * 30)
		}
		return out
	}
	var out [][]int16
	for _, s := range []struct{ text, voice string }{
		{"what time is it", "en-us"},
		{"set a timer for five minutes", "en-gb"},
		{"turn the volume down", "en-us+f2"},
		{"how are you", "en-us+m3"},
	} {
		words := speak(b, s.text, "-v", s.voice)
		pcm := append(noise(audio.SampleRate/2), words...)
		for i := range words {
			pcm[audio.SampleRate/2+i] += noise(1)[0]
		}
		out = append(out, append(pcm, noise(audio.SampleRate/4)...))
	}
	return out
}

// BenchmarkRecognizeRobotGrammar measures the recogniser with the built-in skills'
// grammar on a few spoken commands: cpu-rtf is the CPU time of the thread
// that recognised them over their length, whatever else the machine runs
// meanwhile. "automaton" is the grammar as the decoder searches it
// (compileGrammar), "jsgf" the same grammar compiled by pocketsphinx.
func BenchmarkRecognizeRobotGrammar(b *testing.B) {
	utts := benchUtterances(b)
	var seconds float64
	for _, u := range utts {
		seconds += float64(len(u)) / audio.SampleRate
	}
	g := builtinGrammar(b, grammar.Options{})
	// Words cmudict lacks get espeak-ng's letter-to-sound rules, as the
	// robot's do.
	lex, err := NewLexicon(DefaultDict, LexiconOptions{Guesser: EspeakGuesser{}})
	require.NoError(b, err)
	for _, compiled := range []bool{true, false} {
		name := "automaton"
		if !compiled {
			name = "jsgf"
		}
		b.Run(name, func(b *testing.B) {
			r, err := New(context.Background(), Config{Grammar: g, Lexicon: lex, Args: strings.Fields(*benchArgs)})
			require.NoError(b, err)
			defer r.Close()
			if !compiled {
				// The pool's decoder again, with pocketsphinx compiling the
				// JSGF.
				d := <-r.pool
				d.close()
				st := r.grammar
				st.main.fsg = nil
				d, err = r.build(st)
				require.NoError(b, err)
				r.pool <- d
			}
			recognizeAll(b, r, utts, seconds)
		})
	}
}

// BenchmarkRivals measures the rival check's cost (Config.RivalMargin):
// the recogniser on the same commands with and without it. The meaning
// here is a sentence's first word, so the n-best walk goes on past the
// sentences that share it, as real meanings make it.
func BenchmarkRivals(b *testing.B) {
	utts := benchUtterances(b)
	var seconds float64
	for _, u := range utts {
		seconds += float64(len(u)) / audio.SampleRate
	}
	g := builtinGrammar(b, grammar.Options{})
	lex, err := NewLexicon(DefaultDict, LexiconOptions{Guesser: EspeakGuesser{}})
	require.NoError(b, err)
	firstWord := func(_ context.Context, text string) (Meaning, error) {
		w, _, _ := strings.Cut(text, " ")
		return Meaning{Intent: w}, nil
	}
	for _, margin := range []float64{0, -1} {
		name := "off"
		if margin != 0 {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			r, err := New(context.Background(), Config{Grammar: g, Lexicon: lex, Understand: firstWord, RivalMargin: margin, Rivals: *benchRivals})
			require.NoError(b, err)
			defer r.Close()
			recognizeAll(b, r, utts, seconds)
		})
	}
}

// recognizeAll times r recognising utts, seconds of audio in all, on one
// locked thread, and reports the thread's CPU time over the audio as
// cpu-rtf.
func recognizeAll(b *testing.B, r *Recognizer, utts [][]int16, seconds float64) {
	ctx := context.Background()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU(b)
	b.ResetTimer()
	for b.Loop() {
		for _, u := range utts {
			_, err := r.Recognize(ctx, u)
			require.NoError(b, err)
		}
	}
	b.StopTimer()
	b.ReportMetric((threadCPU(b)-cpu0).Seconds()/float64(b.N)/seconds, "cpu-rtf")
}

// BenchmarkGaussScoring measures the vector scoring of the Gaussian
// densities (gauss.c) against pocketsphinx's own, the recogniser with the
// built-in skills' grammar on the same commands, the two in turn,
// utterance by utterance, in one process: so that both see the same load.
// lib-cpu-rtf and vec-cpu-rtf are the thread's CPU time over the audio's
// length with pocketsphinx's scoring and with ours; vec/lib their ratio.
func BenchmarkGaussScoring(b *testing.B) {
	utts := benchUtterances(b)
	var seconds float64
	for _, u := range utts {
		seconds += float64(len(u)) / audio.SampleRate
	}
	lex, err := NewLexicon(DefaultDict, LexiconOptions{Guesser: EspeakGuesser{}})
	require.NoError(b, err)
	r, err := New(context.Background(), Config{Grammar: builtinGrammar(b, grammar.Options{}), Lexicon: lex})
	require.NoError(b, err)
	defer r.Close()
	defer setGaussOff(false)
	ctx := context.Background()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cpu [2]time.Duration // pocketsphinx's, ours
	for b.Loop() {
		for _, u := range utts {
			for i, off := range []bool{true, false} {
				setGaussOff(off)
				c0 := threadCPU(b)
				_, err := r.Recognize(ctx, u)
				cpu[i] += threadCPU(b) - c0
				require.NoError(b, err)
			}
		}
	}
	lib := cpu[0].Seconds() / float64(b.N) / seconds
	vec := cpu[1].Seconds() / float64(b.N) / seconds
	b.ReportMetric(lib, "lib-cpu-rtf")
	b.ReportMetric(vec, "vec-cpu-rtf")
	b.ReportMetric(vec/lib, "vec/lib")
}

// babbleUtterances are benchUtterances' commands 10 and 5 dB over two
// other talkers (a television), who talk for a second before each, cut
// where the listener ends them: as the talker stops.
func babbleUtterances(b *testing.B) [][]int16 {
	var out [][]int16
	for _, u := range benchUtterances(b) {
		for _, snr := range []float64{10, 5} {
			mix := overBabble(b, u, snr, 1)
			out = append(out, mix[:len(mix)-3*audio.SampleRate])
		}
	}
	return out
}

// BenchmarkSpareListNodes measures the grammar search with its list
// nodes from the decoder's spares (spares.c) against sphinxbase's malloc
// and free: the built-in skills' grammar with the garbage path on
// commands in faint noise and over babble, the two ways in turn,
// utterance by utterance, in one process. malloc-cpu-rtf and
// spare-cpu-rtf are the thread's CPU time over the audio's length;
// spare/malloc their ratio.
func BenchmarkSpareListNodes(b *testing.B) {
	lex, err := NewLexicon(DefaultDict, LexiconOptions{Guesser: EspeakGuesser{}})
	require.NoError(b, err)
	r, err := New(context.Background(), Config{Grammar: builtinGrammar(b, grammar.Options{}), Lexicon: lex, Garbage: testGarbage(b, 0)})
	require.NoError(b, err)
	defer r.Close()
	defer setSpareNodesOff(false)
	for _, bb := range []struct {
		name string
		utts func(*testing.B) [][]int16
	}{
		{"faint noise", benchUtterances},
		{"babble", babbleUtterances},
	} {
		b.Run(bb.name, func(b *testing.B) {
			utts := bb.utts(b)
			var seconds float64
			for _, u := range utts {
				seconds += float64(len(u)) / audio.SampleRate
			}
			ctx := context.Background()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu [2]time.Duration // malloc's, the spares'
			for b.Loop() {
				for _, u := range utts {
					for i, off := range []bool{true, false} {
						setSpareNodesOff(off)
						c0 := threadCPU(b)
						_, err := r.Recognize(ctx, u)
						cpu[i] += threadCPU(b) - c0
						require.NoError(b, err)
					}
				}
			}
			lib := cpu[0].Seconds() / float64(b.N) / seconds
			spare := cpu[1].Seconds() / float64(b.N) / seconds
			b.ReportMetric(lib, "malloc-cpu-rtf")
			b.ReportMetric(spare, "spare-cpu-rtf")
			b.ReportMetric(spare/lib, "spare/malloc")
		})
	}
}
