package builtin_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/intent/paraphrase"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/clock"
	"github.com/openjibo/jibod/core/skill/builtin/timer"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
)

// The built-in skills, by folder; each one's bus id is "jibo.<folder>".
var skillDirs = []string{"basics", "capabilities", "chitchat", "clock", "timer", "volume"}

// builtinIntents reads every built-in skill's English template intents.
func builtinIntents(t testing.TB) []intent.TemplateIntent {
	t.Helper()
	var out []intent.TemplateIntent
	for _, d := range skillDirs {
		loc, err := intent.LoadLocale(os.DirFS(filepath.Join(d, "locale")), ".")
		require.NoError(t, err, d)
		out = append(out, loc.TemplateIntents("", "jibo."+d)...)
	}
	return out
}

// paraphraseCase is one line of a paraphrase set.
type paraphraseCase struct {
	utterance string
	want      []string          // accepted "skill:intent"
	slots     map[string]string // expected slot values
}

func readParaphrases(t testing.TB, path string) []paraphraseCase {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []paraphraseCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		require.GreaterOrEqual(t, len(cols), 2, "%s:%d: want utterance<TAB>intent[<TAB>slots]", path, n)
		c := paraphraseCase{utterance: cols[0], want: strings.Split(cols[1], "|"), slots: map[string]string{}}
		if len(cols) > 2 {
			for _, kv := range strings.Split(cols[2], ";") {
				k, v, ok := strings.Cut(kv, "=")
				require.True(t, ok, "%s:%d: slot %q: want k=v", path, n, kv)
				c.slots[k] = v
			}
		}
		out = append(out, c)
	}
	require.NoError(t, sc.Err())
	return out
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// understood is what one understanding stage made of an utterance.
type understood struct {
	intent string // "skill:intent", "" for nothing
	slots  map[string]string
}

// slotsRight checks the slots a case expects: durations and volume levels
// by the value the skill reads from them, others by their words.
func slotsRight(c paraphraseCase, got map[string]string) bool {
	for k, want := range c.slots {
		v, ok := got[k]
		if !ok {
			return false
		}
		switch k {
		case "duration":
			d, err := timer.ParseDuration(v)
			w, _ := time.ParseDuration(want)
			if err != nil || d != w {
				return false
			}
		case "level":
			l, err := volume.ParseLevel(v)
			if err != nil || fmt.Sprint(l) != want {
				return false
			}
		default:
			if intent.Normalize(v) != intent.Normalize(want) {
				return false
			}
		}
	}
	return true
}

// tally counts one stage's outcomes on a set.
type tally struct {
	right, wrongIntent, wrongSlots, abstained int
	failures                                  []string
}

func (t *tally) add(c paraphraseCase, u understood) {
	u = sameAction(c, u)
	switch {
	case u.intent == "":
		t.abstained++
		t.failures = append(t.failures, fmt.Sprintf("abstained  %q (want %s)", c.utterance, c.want[0]))
	case !contains(c.want, u.intent):
		t.wrongIntent++
		t.failures = append(t.failures, fmt.Sprintf("WRONG      %q → %s (want %s)", c.utterance, u.intent, c.want[0]))
	case !slotsRight(c, u.slots):
		t.wrongSlots++
		t.failures = append(t.failures, fmt.Sprintf("slots      %q → %s %v (want %v)", c.utterance, u.intent, u.slots, c.slots))
	default:
		t.right++
	}
}

// sameAction reads a match as the action it causes where two intents do
// the same thing: volume_max is volume_set to 10, mute is volume_set to 0.
func sameAction(c paraphraseCase, u understood) understood {
	if contains(c.want, u.intent) || !contains(c.want, "jibo.volume:volume_set") {
		return u
	}
	switch u.intent {
	case "jibo.volume:volume_max":
		return understood{"jibo.volume:volume_set", map[string]string{"level": "10"}}
	case "jibo.volume:mute":
		return understood{"jibo.volume:volume_set", map[string]string{"level": "0"}}
	}
	return u
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func pct(n, of int) string { return fmt.Sprintf("%5.1f %%", 100*float64(n)/float64(max(of, 1))) }

// stages are the understanding stages measured: the intent stack with its
// template and keyword engines alone, the paraphrase tier alone, and the
// robot's stack with both (the paraphrase stage after intents-high).
type stages struct {
	templates *intent.Stack
	robot     *intent.Stack
	tier      *paraphrase.Tier
	sess      session.Session
}

func newStages(t testing.TB) *stages {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	templates, err := intent.NewStack(intent.StackConfig{Logger: log})
	require.NoError(t, err)
	robot, tier, err := paraphrase.NewStack(intent.StackConfig{Logger: log}, paraphrase.TierOptions{})
	require.NoError(t, err)
	for _, d := range builtinIntents(t) {
		for _, st := range []*intent.Stack{templates, robot} {
			_, err := st.Templates.Register(d)
			require.NoError(t, err, d.IntentName)
		}
	}
	require.NoError(t, robot.Learn(context.Background()))
	// The follow-up intents the skills gate on their context (CTX-11) are
	// not admissible in a first utterance: the orchestrator declines them,
	// and the stack offers them to no band.
	var gated []any
	for _, in := range gatedIntents(t) {
		gated = append(gated, in)
	}
	s, _, err := session.Parse(map[string]any{"session_id": session.DefaultID, "blacklisted_intents": gated})
	require.NoError(t, err)
	return &stages{templates: templates, robot: robot, tier: tier, sess: s}
}

// gatedIntents are the follow-up intents the skills gate on their context
// (CTX-11), as "skill:intent".
func gatedIntents(t testing.TB) []string {
	t.Helper()
	c, err := clock.New(clock.Options{})
	require.NoError(t, err)
	tm, err := timer.New(timer.Options{})
	require.NoError(t, err)
	var out []string
	for id, g := range map[string]skill.ContextGated{clock.ID: c, timer.ID: tm} {
		for in := range g.RequiredContext() {
			out = append(out, id+":"+in)
		}
	}
	return out
}

func (s *stages) query(u string) intent.Query {
	return intent.Query{Hypotheses: intent.Texts(u), Lang: "en-us", Session: s.sess}
}

func (s *stages) claim(t testing.TB, st *intent.Stack, u string) understood {
	m, _, _, err := st.Claim(context.Background(), s.query(u))
	require.NoError(t, err)
	if m == nil {
		return understood{}
	}
	return understood{m.SkillID + ":" + m.IntentName, m.Slots}
}

// paraphrase is the tier alone: its candidate, when it would act on it.
func (s *stages) paraphrase(t testing.TB, u string) understood {
	cs, err := s.tier.Candidates(context.Background(), intent.Request{Utterance: u, Lang: "en-us", SessionID: s.sess.ID(), Limit: 1,
		Keep: func(skillID, intentName string) bool { return !s.sess.IntentBlocked(skillID, intentName) }})
	require.NoError(t, err)
	if len(cs) == 0 || cs[0].Refused != "" {
		return understood{}
	}
	return understood{cs[0].SkillID + ":" + cs[0].IntentName, cs[0].Slots}
}

// guess is what the robot asks about when nothing claimed an utterance
// ("Were you asking about …?"): "" when it asks nothing.
func (s *stages) guess(t testing.TB, u string) string {
	c, ok, err := s.robot.Guess(context.Background(), s.query(u))
	require.NoError(t, err)
	if !ok {
		return ""
	}
	return c.SkillID + ":" + c.IntentName
}

// TestUnderstanding measures how the built-in skills understand the
// paraphrase and everyday-sentence sets of testdata/understanding (the
// dev and held-out halves, and the probe set written after the
// templates), and prints the figures: run with -v. The robot row is the
// intent stack as the robot builds it (the paraphrase stage after
// intents-high); "asked" counts what it asks about when nothing claimed
// ("Were you asking about …?"), right or wrong, and the everyday
// sentences it asks about. UNDERSTANDING_FAILURES=1 lists the robot's
// misses, =tier those of the tier alone, never for the held-out half.
// docs/paraphrase.md quotes them.
func TestUnderstanding(t *testing.T) {
	st := newStages(t)
	stats := st.tier.Stats("en-us")
	require.Positive(t, stats.Samples, "the tier learnt the built-in skills")
	t.Logf("paraphrase tier: %d intents, %d training samples, %d features, temperature %.2f, least probability %.2f, held-out accuracy %.3f, trained in %s",
		stats.Intents, stats.Samples, stats.Features, stats.Temperature, stats.MinProbability, stats.HeldOutAccuracy, stats.Took.Round(time.Millisecond))
	verbose := os.Getenv("UNDERSTANDING_FAILURES") != ""
	for _, half := range []string{"dev", "heldout", "probe"} {
		cases := readParaphrases(t, filepath.Join("testdata", "understanding", "paraphrases_"+half+".tsv"))
		negs := readLines(t, filepath.Join("testdata", "understanding", "negatives_"+half+".txt"))
		var tt, tp, tc tally
		negT, negP, negC, negAsked := 0, 0, 0, 0
		askedRight, askedWrong := 0, 0
		var negFail []string
		for _, c := range cases {
			tt.add(c, st.claim(t, st.templates, c.utterance))
			tp.add(c, st.paraphrase(t, c.utterance))
			r := st.claim(t, st.robot, c.utterance)
			tc.add(c, r)
			if r.intent != "" {
				continue
			}
			switch g := st.guess(t, c.utterance); {
			case g == "":
			case contains(c.want, g):
				askedRight++
			default:
				askedWrong++
				tc.failures = append(tc.failures, fmt.Sprintf("  asked about %s", g))
			}
		}
		for _, u := range negs {
			a, b, r := st.claim(t, st.templates, u), st.paraphrase(t, u), st.claim(t, st.robot, u)
			if a.intent != "" {
				negT++
			}
			if b.intent != "" {
				negP++
			}
			if r.intent != "" {
				negC++
				negFail = append(negFail, fmt.Sprintf("claimed  %q → %s", u, r.intent))
			} else if g := st.guess(t, u); g != "" {
				negAsked++
				negFail = append(negFail, fmt.Sprintf("asked about %s for %q", g, u))
			}
		}
		n := len(cases)
		row := func(name string, x tally, neg int) {
			t.Logf("%-7s %-16s right %s  wrong claims %s (%d intent, %d slots)  abstained %s  | negatives claimed %d of %d",
				half, name, pct(x.right, n), pct(x.wrongIntent+x.wrongSlots, n), x.wrongIntent, x.wrongSlots, pct(x.abstained, n), neg, len(negs))
		}
		row("templates", tt, negT)
		row("paraphrase tier", tp, negP)
		row("robot", tc, negC)
		t.Logf("%-7s %-16s asked about %d of the %d abstentions: %d right, %d wrong | negatives asked about %d of %d",
			half, "robot", askedRight+askedWrong, tc.abstained, askedRight, askedWrong, negAsked, len(negs))
		if verbose && half != "heldout" {
			fails := tc.failures
			if os.Getenv("UNDERSTANDING_FAILURES") == "tier" {
				fails = tp.failures
			}
			for _, f := range fails {
				t.Log("  " + f)
			}
			for _, f := range negFail {
				t.Log("  " + f)
			}
		}
	}
}

// BenchmarkParaphraseTrain measures training the paraphrase tier on the
// built-in skills' intents, as the robot does at start-up.
func BenchmarkParaphraseTrain(b *testing.B) {
	var ins []paraphrase.Intent
	for _, d := range builtinIntents(b) {
		ins = append(ins, paraphrase.FromTemplateIntent(d))
	}
	lang, err := paraphrase.English()
	require.NoError(b, err)
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		_, err = paraphrase.Train(ins, paraphrase.Options{Language: lang})
		require.NoError(b, err)
	}
	// CPU time rather than wall time: the machine it runs on is shared.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	// What the robot keeps: the model, measured as live heap.
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := paraphrase.Train(ins, paraphrase.Options{Language: lang})
	require.NoError(b, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "model-MB")
	runtime.KeepAlive(m)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkParaphraseClassify measures one utterance through the trained
// tier.
func BenchmarkParaphraseClassify(b *testing.B) {
	var ins []paraphrase.Intent
	for _, d := range builtinIntents(b) {
		ins = append(ins, paraphrase.FromTemplateIntent(d))
	}
	m, err := paraphrase.Train(ins, paraphrase.Options{})
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		m.Classify("could you make it a little bit quieter please")
	}
}
