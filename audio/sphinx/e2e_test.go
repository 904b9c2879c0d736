//go:build sphinx

package sphinx

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/openjibo/jibod/audio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var jibod struct {
	once sync.Once
	dir  string
	err  error
}

// buildJibod builds the sphinx build of jibod (host, cgo, dynamically
// linked) once for the package's tests.
func buildJibod(t *testing.T) string {
	t.Helper()
	jibod.once.Do(func() {
		if jibod.dir, jibod.err = os.MkdirTemp("", "jibod-sphinx"); jibod.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-tags", "sphinx", "-o", filepath.Join(jibod.dir, "jibod"),
			"github.com/openjibo/jibod/cmd/jibod").CombinedOutput()
		if err != nil {
			jibod.err = fmt.Errorf("building jibod -tags sphinx: %w\n%s", err, out)
		}
	})
	require.NoError(t, jibod.err)
	return filepath.Join(jibod.dir, "jibod")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if jibod.dir != "" {
		os.RemoveAll(jibod.dir)
	}
	os.Exit(code)
}

func writeWAV(t *testing.T, pcm []int16) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, audio.EncodeWAV(&b, audio.SampleRate, 1, pcm))
	path := filepath.Join(t.TempDir(), "in.wav")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

// hear runs `jibod run --audio file:WAV` and returns its output and the
// types of the bus messages it traced.
func hear(t *testing.T, bin, wav string) (stdout string, types []string) {
	t.Helper()
	return hearWith(t, bin, wav, nil)
}

func hearWith(t *testing.T, bin, wav string, env []string, args ...string) (stdout string, types []string) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	cmd := exec.Command(bin, append([]string{"run", "--board", "sim", "--audio", "file:" + wav, "--input", "none",
		"--state", "none", "--speak-wpm", "0", "--trace", trace}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "jibod run: %s", errb.String())
	f, err := os.Open(trace)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		types = append(types, m.Type)
	}
	require.NoError(t, sc.Err())
	return out.String(), types
}

func count(types []string, want string) int {
	n := 0
	for _, t := range types {
		if t == want {
			n++
		}
	}
	return n
}

// TestSpokenCommandEndToEnd is the first "done when": a
// synthesised "hey jibo, what time is it" through `jibod run --audio
// file:…` gets the clock skill's answer, and an out-of-grammar sentence
// said in the command window causes no command.
func TestSpokenCommandEndToEnd(t *testing.T) {
	bin := buildJibod(t)

	t.Run("the clock answers", func(t *testing.T) {
		out, types := hear(t, bin, writeWAV(t, speak(t, "hey jibo, what time is it")))
		assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
		assert.Equal(t, 1, count(types, "ovos.utterance.handle"))
		assert.Equal(t, 1, count(types, "jibo.clock:time_now"), "dispatched to the clock")
		assert.Regexp(t, regexp.MustCompile(`jibo: (It's|The time is|Right now it's) (\d{1,2}:\d\d [AP]M|noon|midnight)\.`), out)
	})

	t.Run("in one breath, the timer is set", func(t *testing.T) {
		// No comma, so espeak-ng leaves no pause between the phrase and
		// the command: the command's audio starts where the wake word
		// detector says the phrase ended, with no silence to settle in.
		out, types := hear(t, bin, writeWAV(t, speak(t, "hey jibo set a timer for five minutes")))
		assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
		assert.Equal(t, []string{"jibo.timer:set_timer"}, intents(types), out)
		assert.Regexp(t, regexp.MustCompile(`jibo: .*five minutes`), out, "the timer runs for five minutes")
	})

	t.Run("in one breath, the clock answers", func(t *testing.T) {
		// "jibo what" runs on without a pause, and the closure of "what
		// time"'s stop is the first quiet after the phrase: cut there,
		// the command would lose its first word.
		out, types := hear(t, bin, writeWAV(t, speak(t, "hey jibo what time is it")))
		assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
		assert.Equal(t, []string{"jibo.clock:time_now"}, intents(types), out)
		assert.Regexp(t, regexp.MustCompile(`jibo: (It's|The time is|Right now it's) (\d{1,2}:\d\d [AP]M|noon|midnight)\.`), out)
	})

	t.Run("out of grammar: no command", func(t *testing.T) {
		// A command, then everyday speech after the wake phrase: the
		// robot answers the first and takes nothing from the second.
		pause := make([]int16, audio.SampleRate)
		var pcm []int16
		pcm = append(pcm, speak(t, "hey jibo, what time is it")...)
		pcm = append(pcm, pause...)
		pcm = append(pcm, speak(t, "hey jibo, she told me a story about her grandmother who lived on a farm")...)
		out, types := hear(t, bin, writeWAV(t, pcm))
		assert.Equal(t, 2, count(types, "jibo.audio.speech.end"), "two utterances heard")
		assert.Equal(t, 1, count(types, "ovos.utterance.handle"), "one command: %s", out)
		assert.Equal(t, 1, count(types, "jibo.clock:time_now"))
	})
}

// intents counts the skill intents dispatched ("jibo.clock:time_now"):
// the commands run.
func intents(types []string) []string {
	var out []string
	for _, t := range types {
		if strings.Contains(t, ":") {
			out = append(out, t)
		}
	}
	return out
}

// TestWakeWithoutACommandEndToEnd is issue 24's first "done when":
// "hey jibo" followed by a sentence no skill knows wakes the robot (the
// wake word detector does not depend on the command), and the robot
// says it did not catch that, aloud; decoys do not wake it.
func TestWakeWithoutACommandEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	out, types := hear(t, bin, writeWAV(t, speak(t, "hey jibo, how far away is the moon")))
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
	assert.Contains(t, out, "jibo: Sorry, what was that?")
	assert.Equal(t, 1, count(types, "ovos.utterance.speak"), "said aloud")
	assert.Empty(t, intents(types), "no command run")
	for _, decoy := range []string{"hey jimbo, how far away is the moon", "hey joe, how far away is the moon", "gee bo, what time is it"} {
		out, types = hear(t, bin, writeWAV(t, speak(t, decoy)))
		assert.Zero(t, count(types, "jibo.audio.wake"), "a decoy: %q", decoy)
		assert.Zero(t, count(types, "ovos.utterance.handle"), decoy)
		assert.NotContains(t, out, "jibo:", "nothing said: %q", decoy)
	}
}

// TestOutOfGrammarRequestEndToEnd is issue 24's "an out-of-grammar
// request and no command is run": requests after the wake phrase that no
// skill takes, some near a command's words, run nothing; the robot asks.
func TestOutOfGrammarRequestEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	for _, req := range []string{
		"hey jibo, can you order me a large pizza with mushrooms",
		"hey jibo, what is the capital of france",
	} {
		out, types := hear(t, bin, writeWAV(t, speak(t, req)))
		assert.Equal(t, 1, count(types, "jibo.audio.wake"), req)
		assert.Empty(t, intents(types), "no command run: %q: %s", req, out)
		assert.Contains(t, out, "jibo: Sorry, what was that?", req)
	}
}

// TestSpokenAnswerEndToEnd: "set a timer" said aloud gets the timer's
// question, and the answer said aloud without the wake phrase ("five
// minutes", only in the answer grammar) sets the timer.
func TestSpokenAnswerEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	var pcm []int16
	pcm = append(pcm, speak(t, "hey jibo, set a timer")...)
	pcm = append(pcm, make([]int16, 2*audio.SampleRate)...) // the robot asks meanwhile
	pcm = append(pcm, speak(t, "five minutes")...)
	out, types := hear(t, bin, writeWAV(t, pcm))
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken once, by voice")
	assert.Equal(t, 2, count(types, "ovos.utterance.handle"), "the command and the answer: %s", out)
	assert.Equal(t, 1, count(types, "jibo.timer:set_timer"))
	assert.Contains(t, out, "jibo: For how long?")
	assert.Regexp(t, regexp.MustCompile(`jibo: .*five minutes`), out, "the timer runs for five minutes")
}

// TestAudioEvalOnGeneratedSet runs scripts/gen-audio-testset.sh --quick
// and `jibod audio eval` on it: the tool works end to end (the figures
// themselves are in docs/hearing.md, from the full set).
func TestAudioEvalOnGeneratedSet(t *testing.T) {
	bin := buildJibod(t)
	dir := t.TempDir()
	out, err := exec.Command("../../scripts/gen-audio-testset.sh", "--quick", dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "audio", "eval", "--dir", dir, "--json", "--quiet")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	var rep struct {
		Overall struct {
			Files      int     `json:"files"`
			Errors     int     `json:"errors"`
			Utterances int     `json:"utterances"`
			WakeFiles  int     `json:"wake_files"`
			Commands   int     `json:"commands"`
			Correct    int     `json:"commands_correct"`
			CPURTF     float64 `json:"cpu_rtf"`
		} `json:"overall"`
		Files []struct {
			File string `json:"file"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep))
	o := rep.Overall
	assert.Equal(t, 12, o.Files)
	assert.Zero(t, o.Errors)
	assert.Equal(t, 12, o.Utterances, "one utterance a file")
	assert.Equal(t, 6, o.WakeFiles)
	assert.Equal(t, 8, o.Commands)
	assert.Positive(t, o.Correct, "some commands are understood")
	assert.Positive(t, o.CPURTF)
	assert.Len(t, rep.Files, 12)
}

// babble is two espeak-ng talkers reading at once, as a television: d
// seconds of it at RMS level rms (linear, of full scale).
func babble(t testing.TB, d int) []int16 {
	t.Helper()
	text := "And then she said that the whole thing had been arranged weeks ago, which nobody had told me about. " +
		"In the second half the visitors pressed forward, but the keeper made two remarkable saves in a row. " +
		"Prices in the market have risen sharply this spring, and farmers say the weather is to blame."
	a := speak(t, text, "-v", "en-gb-x-gbclan", "-s", "150")
	b := speak(t, text, "-v", "en-us+m4", "-s", "162", "-p", "40")
	out := make([]int16, d*audio.SampleRate)
	for i := range out {
		out[i] = int16((int32(a[(i+3000)%len(a)]) + int32(b[i%len(b)])) / 2)
	}
	return out
}

// rms is the RMS of pcm.
func rms(pcm []int16) float64 {
	var s float64
	for _, v := range pcm {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(len(pcm)))
}

// TestSpokenCommandOverBabbleEnds is issue 24's "a command over
// two-talker babble at 10 dB and the right skill answers", and its item 2
// end to end: "hey jibo, what time is it" said 10 dB over two other
// talkers, who talked for 8 s before and go on for 3 s after, through
// `jibod run --audio file:…`: the wake word detector wakes the robot, the
// utterance ends on the speaker, by silence, not at the cap nor with the
// stream, and the clock answers.
func TestSpokenCommandOverBabbleEnds(t *testing.T) {
	bin := buildJibod(t)
	cmd := speak(t, "hey jibo, what time is it")
	bed := babble(t, 8+len(cmd)/audio.SampleRate+4)
	scale := rms(cmd) / math.Pow(10, 10.0/20) / rms(bed)
	mix := make([]int16, len(bed))
	for i := range bed {
		v := float64(bed[i]) * scale
		if j := i - 8*audio.SampleRate; j >= 0 && j < len(cmd) {
			v += float64(cmd[j])
		}
		mix[i] = int16(max(-32768, min(32767, v)))
	}
	trace := traceData(t, bin, writeWAV(t, mix))
	ends := 0
	for _, m := range trace {
		if m.Type == "jibo.audio.speech.end" {
			// Neither max_speech nor end_of_stream; a peak of the babble
			// may be too short to be speech, and the babble heard while
			// the detector learnt it is the background alone.
			assert.Contains(t, []any{"silence", "too_short", "background"}, m.Data["reason"], "every utterance ends on silence: %v", m.Data)
			if m.Data["reason"] == "silence" {
				ends++
			}
		}
		assert.NotEqual(t, "jibo.audio.error", m.Type, "no utterance cut off: %v", m.Data)
	}
	assert.Positive(t, ends, "speech heard")
	types, heard := typesAndHeard(trace)
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice over the babble")
	assert.Equal(t, []string{"jibo.clock:time_now"}, intents(types), "the clock answers (heard %v)", heard)
}

// TestSpokenCommandAsTalkersStartEndToEnd is issue 24's item 2 where
// the talkers start with the person: "hey jibo, what time is it" said 10
// dB over two other talkers who began only 0.4 s before (too little for
// the detector to know the room) and go on for 8 s after. The
// utterance runs on into the talk after the person; the recogniser gets
// the command up to the person's last syllable, and the clock answers.
func TestSpokenCommandAsTalkersStartEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	cmd := speak(t, "hey jibo, what time is it")
	lead := 2 * audio.SampleRate / 5
	bed := babble(t, len(cmd)/audio.SampleRate+9)
	scale := rms(cmd) / math.Pow(10, 10.0/20) / rms(bed)
	mix := make([]int16, len(bed))
	for i := range bed {
		v := float64(bed[i]) * scale
		if j := i - lead; j >= 0 && j < len(cmd) {
			v += float64(cmd[j])
		}
		mix[i] = int16(max(-32768, min(32767, v)))
	}
	trace := traceData(t, bin, writeWAV(t, mix))
	types, heard := typesAndHeard(trace)
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice over the talkers")
	assert.Equal(t, []string{"jibo.clock:time_now"}, intents(types), "the clock answers (heard %v)", heard)
}

// typesAndHeard lists a trace's message types, and the hypotheses of
// each recognised utterance (for failure messages).
func typesAndHeard(trace []traced) (types []string, heard []any) {
	for _, m := range trace {
		types = append(types, m.Type)
		if m.Type == "jibo.audio.recognized" {
			heard = append(heard, m.Data["hypotheses"])
		}
	}
	return types, heard
}

type traced struct {
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

// traceData runs `jibod run --audio file:WAV` and returns its trace.
func traceData(t *testing.T, bin, wav string) []traced {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	cmd := exec.Command(bin, "run", "--board", "sim", "--audio", "file:"+wav, "--input", "none",
		"--state", "none", "--speak-wpm", "0", "--trace", trace)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "jibod run: %s", out)
	f, err := os.Open(trace)
	require.NoError(t, err)
	defer f.Close()
	var msgs []traced
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m traced
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		msgs = append(msgs, m)
	}
	require.NoError(t, sc.Err())
	return msgs
}

// TestDomainLanguageModelEndToEnd runs the real binary with the domain
// language model (sphinx.search ngram and verify, docs/hearing.md): a
// command is answered, and a request no skill takes runs no command.
// With ngram its transcript goes to the pipeline and the fallback says it
// is not understood; with verify, which drops what the grammar forced,
// the robot asks.
func TestDomainLanguageModelEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	for _, search := range []string{"ngram", "verify"} {
		t.Run(search, func(t *testing.T) {
			env := []string{"JIBOD_SPHINX_SEARCH=" + search}
			out, types := hearWith(t, bin, writeWAV(t, speak(t, "hey jibo, what time is it")), env)
			assert.Equal(t, []string{"jibo.clock:time_now"}, intents(types), out)
			out, types = hearWith(t, bin, writeWAV(t, speak(t, "hey jibo, can you order me a large pizza with mushrooms")), env)
			assert.Equal(t, 1, count(types, "jibo.audio.wake"))
			if search == "verify" {
				assert.Empty(t, intents(types), "no command run: %s", out)
				assert.Contains(t, out, "jibo: Sorry, what was that?")
				return
			}
			// The transcript reaches the pipeline, where no skill takes
			// it: the fallback says so.
			assert.Equal(t, []string{"jibo.fallback:fallback"}, intents(types), "no command run: %s", out)
		})
	}
}

// TestParaphraseEndToEnd is issue 24's "paraphrases heard", through the
// real binary as it runs by default: a wording the command grammar does
// not hold, which the grammar alone (sphinx.search grammar) refuses, so
// the robot asks, is transcribed where the grammar refused it and
// answered by the right skill. (A request no skill takes still runs
// nothing: TestOutOfGrammarRequestEndToEnd, by default too.)
func TestParaphraseEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	wav := writeWAV(t, speak(t, "hey jibo, what is today's date please"))
	// Without the words put around a request (the default), which would
	// hold this "please" in the grammar (TestWrappedRequestEndToEnd).
	noWrappers := "JIBOD_SPHINX_WRAPPERS=off"
	out, types := hearWith(t, bin, wav, []string{"JIBOD_SPHINX_SEARCH=grammar", noWrappers})
	assert.Empty(t, intents(types), "the grammar alone: no command: %s", out)
	assert.Contains(t, out, "jibo: Sorry, what was that?", "the grammar alone refuses it")
	out, types = hearWith(t, bin, wav, []string{noWrappers})
	assert.Equal(t, []string{"jibo.clock:date_today"}, intents(types), out)
	assert.Regexp(t, regexp.MustCompile(`jibo: .*(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)`), out, "the date said")
	assert.NotContains(t, out, "Sorry, what was that?")
}

// TestTwoChangeWordingEndToEnd is issue 24's "paraphrases heard" for a
// wording people commonly use that changes two groups or more of the
// volume's templates ("put the volume at …": "set volume to …" with the
// verb, the article and the preposition changed), which the bounded
// grammar held only as a template of its own: without it, the grammar
// forced "put the volume on six" onto "what volume are you set to" and
// refused "… three". By default the level said is set.
func TestTwoChangeWordingEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	for _, tt := range []struct{ say, level string }{
		{"put the volume at three", "3"},
		{"put the volume at six", "6"},
	} {
		t.Run(tt.say, func(t *testing.T) {
			out, types := hear(t, bin, writeWAV(t, speak(t, "hey jibo, "+tt.say)))
			assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
			assert.Equal(t, []string{"jibo.volume:volume_set"}, intents(types), out)
			assert.Regexp(t, regexp.MustCompile(`jibo: (OK, )?[Vv]olume `+tt.level+`\.`), out, "the level said is set")
			assert.NotContains(t, out, "Sorry, what was that?")
		})
	}
}

// TestVolumeOnIsNoLevelEndToEnd: "turn the volume on please" is
// unmuting; with a level template "turn the volume on N" in the grammar
// its trailing word was heard as a number and the volume set. In every
// voice the robot unmutes or asks, and never sets a level.
func TestVolumeOnIsNoLevelEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	for _, say := range []string{"turn the volume on please", "put the volume on please", "turn the volume on now"} {
		for _, voice := range []string{"en-us", "en-us+m3", "en-us+f3"} {
			t.Run(say+"/"+voice, func(t *testing.T) {
				// A second's pause after: the utterance ends before the
				// stream does.
				pcm := append(speak(t, "hey jibo, "+say, "-v", voice), make([]int16, audio.SampleRate)...)
				out, types := hear(t, bin, writeWAV(t, pcm))
				assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
				assert.Zero(t, count(types, "jibo.volume:volume_set"), "no level set: %s", out)
				got := intents(types)
				if len(got) > 0 {
					assert.Equal(t, []string{"jibo.volume:unmute"}, got, out)
				} else {
					assert.Contains(t, out, "jibo: Sorry, what was that?")
				}
			})
		}
	}
}

// TestOneChangeWordingEndToEnd is issue 24's "paraphrases heard" for a
// wording the templates hold but a grammar of 60 sentences per intent
// left out: "i need a timer for …", a verb well down the timer's
// alternatives, cut when the templates take turns up to the cap. With
// 60 the grammar alone does not start the timer the length said; by
// default (every template's one-change sentences, up to 120 per intent)
// it does.
func TestOneChangeWordingEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	wav := writeWAV(t, speak(t, "hey jibo, i need a timer for five minutes"))
	grammarAlone := "JIBOD_SPHINX_SEARCH=grammar"
	out, types := hearWith(t, bin, wav, []string{grammarAlone, "JIBOD_SPHINX_SENTENCES=60"})
	assert.NotRegexp(t, regexp.MustCompile(`jibo: .*five minutes`), out, "with 60 sentences, no five-minute timer: %v", intents(types))
	out, types = hearWith(t, bin, wav, []string{grammarAlone})
	assert.Equal(t, []string{"jibo.timer:set_timer"}, intents(types), out)
	assert.Regexp(t, regexp.MustCompile(`jibo: .*five minutes`), out, "the timer runs for five minutes")
	out, types = hear(t, bin, wav)
	assert.Equal(t, []string{"jibo.timer:set_timer"}, intents(types), "by default too: %s", out)
}

// TestRivalRefusesForcedCommandEndToEnd is issue 24's "rejection instead
// of forcing" with the rival check on (JIBOD_SPHINX_RIVAL_MARGIN): "what's
// the time", a wording the grammar does not hold, is forced onto "what
// is the volume" with a confidence the floors pass, and the volume is
// read out; with the check, "what is the time", of another meaning, fits
// within the margin, so the robot asks instead. The grammar is searched
// alone, so the fallback does not hear it again.
func TestRivalRefusesForcedCommandEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	wav := writeWAV(t, speak(t, "hey jibo, what's the time", "-v", "en-us+m3"))
	// Without the garbage path, which refuses it on its own.
	out, types := hearWith(t, bin, wav, []string{"JIBOD_SPHINX_SEARCH=grammar", "JIBOD_SPHINX_GARBAGE=off", "JIBOD_SPHINX_RIVAL_MARGIN=off"})
	assert.Equal(t, []string{"jibo.volume:volume_get"}, intents(types), "without the check, forced onto the volume: %s", out)
	out, types = hearWith(t, bin, wav, []string{"JIBOD_SPHINX_SEARCH=grammar", "JIBOD_SPHINX_GARBAGE=off", "JIBOD_SPHINX_RIVAL_MARGIN=3"})
	assert.Empty(t, intents(types), "with the check, no command: %s", out)
	assert.Contains(t, out, "jibo: Sorry, what was that?")
}

// TestWrappedRequestEndToEnd is issue 24's "paraphrases heard" for a
// request said inside the words people put around one ("could you …",
// "… please"). With the wrappers in the grammar (JIBOD_SPHINX_WRAPPERS=on)
// the timer starts for the length said; by default, where neither the
// grammar nor the domain language model holds them, the robot starts no
// timer of another length.
func TestWrappedRequestEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	wav := writeWAV(t, speak(t, "hey jibo, could you set a timer for seven minutes please"))
	out, types := hearWith(t, bin, wav, []string{"JIBOD_SPHINX_WRAPPERS=on"})
	assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice")
	assert.Equal(t, []string{"jibo.timer:set_timer"}, intents(types), out)
	assert.Regexp(t, regexp.MustCompile(`jibo: .*seven minutes`), out, "the timer runs for seven minutes")

	out, types = hear(t, bin, wav)
	if len(intents(types)) > 0 {
		assert.Equal(t, []string{"jibo.timer:set_timer"}, intents(types), out)
		assert.Regexp(t, regexp.MustCompile(`jibo: .*seven minutes`), out, "no timer of another length")
	} else {
		assert.Contains(t, out, "jibo: Sorry, what was that?")
	}
}

// TestWordPosteriorRefusesConfusedCommandEndToEnd is issue 24's "asking
// instead of acting" with the word posterior check on
// (JIBOD_SPHINX_WORD_POSTERIOR): "set a timer for an hour and a half",
// said by one of the tuning set's voices, is heard as "… a minute and a
// half" with a confidence the floors pass, and a timer of the wrong
// length starts; in the search's lattice other words fit "minute" about
// as well, so with the check the robot asks instead. The grammar is
// searched alone, so the fallback does not hear it again.
func TestWordPosteriorRefusesConfusedCommandEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	wav := writeWAV(t, speak(t, "hey jibo, set a timer for an hour and a half", "-v", "en-us+f5", "-s", "165", "-p", "45"))
	out, types := hearWith(t, bin, wav, []string{"JIBOD_SPHINX_SEARCH=grammar", "JIBOD_SPHINX_WORD_POSTERIOR=off"})
	assert.Equal(t, []string{"jibo.timer:set_timer"}, intents(types), "without the check, a timer: %s", out)
	assert.Contains(t, out, "minute", "of a minute and a half, not the hour said: %s", out)
	out, types = hearWith(t, bin, wav, []string{"JIBOD_SPHINX_SEARCH=grammar", "JIBOD_SPHINX_WORD_POSTERIOR=0.4"})
	assert.Empty(t, intents(types), "with the check, no command: %s", out)
	assert.Contains(t, out, "jibo: Sorry, what was that?")
}

// beatMusic is d seconds of music with a beat at 120 beats a minute that
// falls silent between beats: on every beat a plucked chord (three
// decaying notes, the chord changing every bar) and a kick (a sine
// falling from 120 to 50 Hz).
func beatMusic(d int) []int16 {
	chords := [][3]float64{{261.6, 329.6, 392.0}, {220.0, 261.6, 329.6}, {174.6, 220.0, 261.6}, {196.0, 246.9, 293.7}}
	beat := audio.SampleRate / 2
	out := make([]int16, d*audio.SampleRate)
	for i := range out {
		k, n := i/beat, float64(i%beat)/audio.SampleRate
		v := 0.0
		for _, f := range chords[(k/4)%len(chords)] {
			v += 2500 * math.Exp(-n/0.06) * math.Sin(2*math.Pi*f*n)
		}
		sweep := 50 + 70*math.Exp(-n/0.03)
		v += 6000 * math.Exp(-n/0.05) * math.Sin(2*math.Pi*sweep*n)
		out[i] = int16(max(-32768, min(32767, v)))
	}
	return out
}

// TestSpokenCommandOverMusicWithABeatEndToEnd is issue 24's item 2 over
// music with a beat (most music), whose notes and drums fall silent
// between beats: "hey jibo, what time is it" said 10 dB over it through
// `jibod run`, with the music playing 8 s before the person (the room
// known) or only 0.4 s before (learnt while they speak), and 8 s after.
// The utterance ends by silence near where the person stopped (where the
// music began with them, once it is learnt), not at the cap, and the
// clock answers.
func TestSpokenCommandOverMusicWithABeatEndToEnd(t *testing.T) {
	bin := buildJibod(t)
	cmd := speak(t, "hey jibo, what time is it")
	for _, tc := range []struct {
		name string
		lead int // samples of music before the person
		// late is how long after the person stopped the utterance may
		// end: where the music began with them, it is learnt once the
		// detector's 6 s window has heard it whole.
		late float64
	}{
		{name: "music known", lead: 8 * audio.SampleRate, late: 1},
		{name: "music began with the person", lead: 2 * audio.SampleRate / 5, late: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bed := beatMusic(tc.lead/audio.SampleRate + len(cmd)/audio.SampleRate + 9)
			scale := rms(cmd) / math.Pow(10, 10.0/20) / rms(bed)
			mix := make([]int16, len(bed))
			for i := range bed {
				v := float64(bed[i]) * scale
				if j := i - tc.lead; j >= 0 && j < len(cmd) {
					v += float64(cmd[j])
				}
				mix[i] = int16(max(-32768, min(32767, v)))
			}
			from := float64(tc.lead) / audio.SampleRate
			to := from + float64(len(cmd))/audio.SampleRate
			trace := traceData(t, bin, writeWAV(t, mix))
			var ends []float64
			for _, m := range trace {
				if m.Type != "jibo.audio.speech.end" {
					continue
				}
				assert.Contains(t, []any{"silence", "too_short", "background"}, m.Data["reason"], "no utterance runs to the cap: %v", m.Data)
				if m.Data["reason"] == "silence" && m.Data["start_ms"].(float64)/1000 < to && m.Data["end_ms"].(float64)/1000 > from {
					ends = append(ends, m.Data["end_ms"].(float64)/1000)
				}
			}
			require.Len(t, ends, 1, "the person is one utterance")
			assert.Greater(t, ends[0], to-1, "the utterance holds the command (said %.2f–%.2f s)", from, to)
			assert.Less(t, ends[0], to+tc.late, "the utterance ends when the person stops (said %.2f–%.2f s)", from, to)
			types, heard := typesAndHeard(trace)
			assert.Equal(t, 1, count(types, "jibo.audio.wake"), "woken by voice over the music")
			assert.Equal(t, []string{"jibo.clock:time_now"}, intents(types), "the clock answers (heard %v)", heard)
		})
	}
}
