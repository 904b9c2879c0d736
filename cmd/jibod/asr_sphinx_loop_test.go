//go:build sphinx

package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/sphinx"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/runtime/hearing"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// needSphinxFiles skips a test when the pronouncing dictionary or the
// acoustic model is not installed.
func needSphinxFiles(t *testing.T) {
	t.Helper()
	for _, p := range []string{sphinx.DefaultDict, sphinx.DefaultModelDir} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("no %s (apt install pocketsphinx-en-us)", p)
		}
	}
}

// A loop member's names are in the answer grammar: alone ("Ann", "Ann
// Lee") and in the who rule's open slot ("this is Ann"). A name the
// dictionary lacks is pronounced by espeak-ng when it is installed, as any
// unknown word is, and left out otherwise.
func TestAnswerGrammarHasTheLoopsNames(t *testing.T) {
	needSphinxFiles(t)
	dir := t.TempDir()
	for _, args := range [][]string{{"--first", "Ann", "--last", "Lee"}, {"--first", "Zyxquorra"}} {
		code, _, stderr := peopleCmd(t, dir, append([]string{"add"}, args...)...)
		require.Equal(t, 0, code, stderr)
	}
	r, err := newTestRobot(context.Background(), runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: dir, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })

	opts := sphinx.LexiconOptions{}
	_, lookErr := exec.LookPath("espeak-ng")
	espeak := lookErr == nil
	if espeak {
		opts.Guesser = sphinx.EspeakGuesser{}
	}
	lex, err := sphinx.NewLexicon(sphinx.DefaultDict, opts)
	require.NoError(t, err)
	gb := hearing.NewGrammarBuilder(r.HearingParts(), lex, "en-US", "", nil, slog.New(slog.DiscardHandler))
	a, err := hearing.AnswerGrammar(context.Background(), gb)
	require.NoError(t, err)
	g := a.(*grammar.Grammar)
	for _, s := range []string{"ann", "ann lee", "this is ann", "its me ann", "ann here", "my name is ann lee"} {
		assert.True(t, g.Accepts(s), s)
	}
	assert.False(t, g.Accepts("bob"), "only the loop's names")
	assert.False(t, g.Accepts("im it its"), "the referent takes names, not any words of the grammar")
	assert.Equal(t, espeak, g.Accepts("zyxquorra"), "a name the dictionary lacks, through espeak-ng when installed")

	main, err := gb.Build(context.Background())
	require.NoError(t, err)
	assert.Contains(t, main.Words(), "hey")
}

// With nobody in the loop the answer grammar has no sentence naming
// someone: its referent slot took any words of the grammar, and "five
// minutes" said to the timer was heard as "im it its".
func TestAnswerGrammarWithoutTheLoopsNames(t *testing.T) {
	needSphinxFiles(t)
	r, err := newTestRobot(context.Background(), runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: t.TempDir(), Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	lex, err := sphinx.NewLexicon(sphinx.DefaultDict, sphinx.LexiconOptions{})
	require.NoError(t, err)
	gb := hearing.NewGrammarBuilder(r.HearingParts(), lex, "en-US", "", nil, slog.New(slog.DiscardHandler))
	a, err := hearing.AnswerGrammar(context.Background(), gb)
	require.NoError(t, err)
	g := a.(*grammar.Grammar)
	for s, want := range map[string]bool{"five minutes": true, "yes": true, "cancel": true, "im it its": false, "its me the time": false} {
		assert.Equal(t, want, g.Accepts(s), s)
	}
}

// The grammar builder gives the lexicon the loop's phonetic names when it
// builds: a first name is also heard as its phonetic name is said, word
// by word when both have as many words; one that cannot be pronounced or
// matched is left out with a warning, and a loop change is taken at the
// next build.
func TestGrammarBuilderSetsPhoneticNames(t *testing.T) {
	needSphinxFiles(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--first", "Zoe", "--phonetic", "Zoey"}, // not in cmudict, and no guesser here
		{"--first", "Mary Ann", "--phonetic", "Marie On"},
		{"--first", "Siobhan", "--phonetic", "Shi Vaughn"},
		{"--first", "Jo Ellen", "--phonetic", "Joellen"},
		{"--first", "Bo", "--phonetic", "bo"},
	} {
		code, _, stderr := peopleCmd(t, dir, append([]string{"add"}, args...)...)
		require.Equal(t, 0, code, stderr)
	}
	r, err := newTestRobot(context.Background(), runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: dir, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	lex, err := sphinx.NewLexicon(sphinx.DefaultDict, sphinx.LexiconOptions{})
	require.NoError(t, err)
	var logs syncBuffer
	gb := hearing.NewGrammarBuilder(r.HearingParts(), lex, "en-US", "", nil, slog.New(slog.NewTextHandler(&logs, nil)))
	_, err = gb.Build(context.Background())
	require.NoError(t, err)
	words := []string{"mary", "ann", "siobhan", "jo", "ellen", "bo"}
	got, err := lex.Lookup(context.Background(), words)
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{
		"mary":    {"M EH R IY", "M ER IY"}, // cmudict's own first
		"ann":     {"AE N", "AA N"},
		"siobhan": {"SH AW B AA N", "SH IY V AO N"},
		"jo":      {"JH OW"},
		"ellen":   {"EH L AH N"},
		"bo":      {"B OW"},
	}, got)
	assert.Contains(t, logs.String(), `phonetic=zoey`)
	assert.Contains(t, logs.String(), `first="Jo Ellen" phonetic=Joellen`)

	code, _, stderr := peopleCmd(t, dir, "remove", "Siobhan")
	require.Equal(t, 0, code, stderr)
	_, err = gb.Build(context.Background())
	require.NoError(t, err)
	got, err = lex.Lookup(context.Background(), []string{"siobhan"})
	require.NoError(t, err)
	assert.Equal(t, []string{"SH AW B AA N"}, got["siobhan"], "gone with her")
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Someone added with `jibod loop add` while the robot listens is in the
// recogniser's grammars after the rebuild the loop change causes.
func TestRecognizerRebuildsOnALoopChange(t *testing.T) {
	needSphinxFiles(t)
	dir := t.TempDir()
	r, err := newTestRobot(context.Background(), runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: dir,
		Log: slog.New(slog.DiscardHandler), LoopWatch: 20 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	var logs syncBuffer
	_, free, err := hearing.NewRecognizer(context.Background(), r.HearingParts(), hearing.Options{Lang: "en-US", Log: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { _ = free() })
	require.NotContains(t, logs.String(), "grammar rebuilt")

	code, _, stderr := peopleCmd(t, dir, "add", "--first", "Ann")
	require.Equal(t, 0, code, stderr)
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "grammar rebuilt") }, 30*time.Second, 20*time.Millisecond)
}

// askWhoUtterance starts askWhoSkill.
const askWhoUtterance = "guess who i am"

// askWhoSkill asks "Who am I talking to?" with the opt-in's rule
// (optin/who) and greets the looper SetLooperIDNode settles on.
type askWhoSkill struct {
	manifest *skill.Manifest
	g        *graph.Skill
}

func (s *askWhoSkill) Manifest() *skill.Manifest { return s.manifest }

func (s *askWhoSkill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return s.g.Handle(ctx, req)
}

func newAskWhoSkill(t *testing.T) *askWhoSkill {
	t.Helper()
	m, err := registry.ParseManifest([]byte(`{"id": "test/askwho", "version": "1.0.0", "name": "Ask who",
		"description": "Asks who it is talking to.", "permissions": ["speech", "listen", "person"], "safety_level": "low"}`))
	require.NoError(t, err)
	say := func(name string, text func(d *graph.Data) string) *graph.JCPNode {
		return graph.JCP(name, func(_ context.Context, d *graph.Data) (*jcp.Action, error) {
			return jcp.NewAction(jcp.Say(text(d))), nil
		}, nil, graph.TransitionDone).Final()
	}
	ask := graph.JCP("ask", func(context.Context, *graph.Data) (*jcp.Action, error) {
		return jcp.NewAction(jcp.Question("Who am I talking to?", "optin/who")), nil
	}, nil, graph.TransitionDone)
	hello := say("hello", func(d *graph.Data) string {
		for _, u := range d.Runtime.Loop.Users {
			if s := d.Runtime.Perception.Speaker; s != nil && *s == u.ID {
				return "Hello, " + u.FirstName + "."
			}
		}
		return "Hello, whoever you are."
	})
	stranger := say("stranger", func(*graph.Data) string { return "I don't know you yet." })
	okay := say("okay", func(*graph.Data) string { return "Okay." })
	looper := graph.SetLooperID("who")
	g := graph.New("askwho", "Done")
	require.NoError(t, g.AddNode(ask, graph.To(graph.TransitionDone, looper)))
	require.NoError(t, g.AddNode(looper, graph.To(graph.TransitionSuccess, hello),
		graph.To(graph.TransitionNotInLoop, stranger), graph.To(graph.TransitionCancel, okay)))
	for _, n := range []*graph.JCPNode{hello, stranger, okay} {
		require.NoError(t, g.AddNode(n, graph.ToExit(graph.TransitionDone, "Done")))
	}
	gs, err := graph.NewSkill("test.askwho", g, graph.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return &askWhoSkill{manifest: m, g: gs}
}

func (s *askWhoSkill) Locale() fs.FS {
	return fstest.MapFS{"en-us/askwho.intent": {Data: []byte(askWhoUtterance + "\n")}}
}

// synthesize says each text with espeak-ng (16 kHz by sox, as the sphinx
// package's tests make theirs), with 2 s of silence after each, in which
// the robot answers, and writes the whole as a WAV file.
func synthesize(t *testing.T, texts ...string) string {
	t.Helper()
	for _, p := range []string{"espeak-ng", "sox"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is needed to synthesise test speech (scripts/deps.sh installs it)", p)
		}
	}
	dir := t.TempDir()
	var pcm []int16
	for i, text := range texts {
		raw, wav := filepath.Join(dir, fmt.Sprintf("raw%d.wav", i)), filepath.Join(dir, fmt.Sprintf("s%d.wav", i))
		out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", raw, text).CombinedOutput()
		require.NoError(t, err, string(out))
		out, err = exec.Command("sox", "-V1", "-D", raw, "-r", "16000", "-c", "1", "-b", "16", wav).CombinedOutput()
		require.NoError(t, err, string(out))
		f, err := os.Open(wav)
		require.NoError(t, err)
		clip, err := audio.DecodeWAV(f)
		f.Close()
		require.NoError(t, err)
		pcm = append(append(pcm, audio.ToRecognition(clip)...), make([]int16, 2*audio.SampleRate)...)
	}
	var b bytes.Buffer
	require.NoError(t, audio.EncodeWAV(&b, audio.SampleRate, 1, pcm))
	path := filepath.Join(dir, "said.wav")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

// TestHearingAPhoneticName: Siobhan, whose phonetic name is Shivawn,
// answers "who am I talking to?" aloud, through the whole wiring (file
// source, listener, pocketsphinx, pipeline, skill, body). The answers are
// synthesised from the phonetic spelling, which is how she says her name:
// espeak-ng's "shivawn" is /SH IH V AO N/, cmudict's siobhan /SH AW B AA
// N/. With the phonetic name the robot hears "siobhan" and greets her;
// without it, it hears something else from the same audio. The answers
// are her name alone and "this is, shivawn": said without the pause,
// "this is shivawn" is heard as "this is three a one" (the who rule's
// open slot takes up to three of any answer word) with or without the
// phonetic name.
func TestHearingAPhoneticName(t *testing.T) {
	needSphinxFiles(t)
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng is needed: it pronounces the phonetic name")
	}
	ask := "hey jibo, " + askWhoUtterance
	wav := synthesize(t, ask, "shivawn", ask, "this is, shivawn")
	hear := func(t *testing.T, loopArgs ...string) (id string, heard, said []string, person string) {
		t.Helper()
		dir := t.TempDir()
		code, out, stderr := peopleCmd(t, dir, append([]string{"add", "--first", "Siobhan"}, loopArgs...)...)
		require.Equal(t, 0, code, stderr)
		rec := &recorder{}
		f := parseAudioFlags(t, "--audio", "file:"+wav)
		r, err := newTestRobot(context.Background(), runtime.Config{Board: "sim", SpeakWPM: 0, StateDir: dir, Tap: rec.tap,
			Log: slog.New(slog.DiscardHandler), Skills: []skill.Skill{newAskWhoSkill(t)}, Hearing: *f})
		require.NoError(t, err)
		t.Cleanup(func() { _ = r.Close(context.Background()) })
		require.NoError(t, r.Hearing().Wait(context.Background()))
		if p := r.Body().State.Snapshot().Person; p != nil {
			person = p.LooperID
		}
		require.NoError(t, r.Close(context.Background())) // the recorder has seen everything
		for _, m := range rec.of(listen.TopicRecognized) {
			text := ""
			if hyps, _ := m.Data["hypotheses"].([]any); len(hyps) > 0 {
				text, _ = hyps[0].(map[string]any)["text"].(string)
			}
			heard = append(heard, text)
		}
		for _, m := range rec.of(pipeline.TopicSpeak) {
			said = append(said, m.DataString("utterance"))
		}
		return looperID.FindString(out), heard, said, person
	}
	// The wake word detector hears "hey jibo"; the recogniser, what follows.
	asked := askWhoUtterance

	t.Run("with the phonetic name", func(t *testing.T) {
		id, heard, said, person := hear(t, "--phonetic", "Shivawn")
		require.Len(t, heard, 4)
		assert.Equal(t, []string{asked, "siobhan", asked}, heard[:3])
		// "this is, shivawn": the answer grammar's "it is" is as near.
		assert.Regexp(t, `^(this|it) is siobhan$`, heard[3])
		assert.Equal(t, []string{"Who am I talking to?", "Hello, Siobhan.", "Who am I talking to?", "Hello, Siobhan."}, said)
		assert.Equal(t, id, person, "SET_PRESENT_PERSON named her")
	})
	t.Run("without it", func(t *testing.T) {
		_, heard, said, person := hear(t)
		require.NotEmpty(t, heard)
		assert.Equal(t, asked, heard[0])
		for _, h := range heard {
			assert.NotContains(t, strings.Fields(h), "siobhan")
		}
		assert.NotContains(t, said, "Hello, Siobhan.")
		assert.Empty(t, person)
	})
}
