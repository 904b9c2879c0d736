package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/internal/strictjson"
	"github.com/openjibo/jibod/internal/textcheck"
)

// Corpus limits: a corpus is a file a person hands the tool, so everything
// in it is bounded before it is used.
const (
	maxCorpusBytes   = 64 << 20
	maxCorpusIntents = 100_000 // template and keyword intents together
	maxCorpusTests   = 1_000_000
	maxCorpusVocabs  = 100_000
)

// evalSkill is the skill every corpus intent is registered under.
const evalSkill = "eval"

// corpus is an evaluation corpus: vocabularies, template intents, keyword
// intents and tests (format in ../shared/eval/README.md and the README).
type corpus struct {
	Lang           string
	Vocab          map[string][]string
	Intents        map[string]corpusIntent
	KeywordIntents map[string]corpusKeyword
	Tests          []corpusTest
}

type corpusIntent struct {
	Templates []string
	Values    map[string][]string // slot → spoken values; wildcard slots are absent
}

// corpusKeyword names vocabularies of the corpus for each role.
type corpusKeyword struct {
	Required, Optional, Excluded []string
	OneOf                        [][]string
}

type corpusTest struct {
	Utterance    string
	Intent       string // "" expects no match
	Slots        map[string]string
	NeedsContext bool
}

// cmdIntentsEval runs `jibod intents eval`.
func cmdIntentsEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("intents eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("corpus", "", "corpus `file` (JSON; see README)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a report")
	failures := fs.Bool("failures", false, "also list every test that failed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *path == "" || fs.NArg() > 0 {
		return usageError{"intents eval: want --corpus FILE and no other arguments"}
	}
	c, err := loadCorpus(*path)
	if err != nil {
		return err
	}
	rep, err := evaluate(ctx, c, progressTo(stderr))
	if err != nil {
		return err
	}
	if !*failures {
		rep.Failures = nil
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.print(stdout, *path)
	return nil
}

// loadCorpus reads and validates a corpus file; an error names the file and
// the place in it.
func loadCorpus(path string) (*corpus, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading corpus: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCorpusBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading corpus %s: %w", path, err)
	}
	if len(data) > maxCorpusBytes {
		return nil, fmt.Errorf("corpus %s: larger than %d MiB", path, maxCorpusBytes>>20)
	}
	c, err := parseCorpus(data)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	return c, nil
}

// parseCorpus decodes the JSON generically first, so every later error can
// name the path of the offending value.
func parseCorpus(data []byte) (*corpus, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	if err := strictjson.CheckMembers(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var root any
	if err := dec.Decode(&root); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the offending byte too.
			line, col := lineCol(data, se.Offset-1)
			return nil, fmt.Errorf("line %d col %d: %w", line, col, err)
		}
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	if dec.More() {
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
			off++
		}
		line, col := lineCol(data, off)
		return nil, fmt.Errorf("line %d col %d: data after the corpus object", line, col)
	}
	top, err := object(root, "corpus", "lang", "source", "vocab", "intents", "keyword_intents", "tests")
	if err != nil {
		return nil, err
	}
	c := &corpus{Vocab: map[string][]string{}, Intents: map[string]corpusIntent{}, KeywordIntents: map[string]corpusKeyword{}}
	lang, err := str(top["lang"], "lang")
	if err != nil {
		return nil, err
	}
	if c.Lang, err = intent.NormalizeLang(lang); err != nil {
		return nil, fmt.Errorf("lang: %w", err)
	}
	if v, ok := top["source"]; ok {
		if _, err := str(v, "source"); err != nil {
			return nil, err
		}
	}
	if err := c.readVocab(top["vocab"]); err != nil {
		return nil, err
	}
	if err := c.readIntents(top["intents"]); err != nil {
		return nil, err
	}
	if err := c.readKeywordIntents(top["keyword_intents"]); err != nil {
		return nil, err
	}
	if len(c.Intents) == 0 && len(c.KeywordIntents) == 0 {
		return nil, errors.New("no intents and no keyword_intents: nothing to evaluate")
	}
	if len(c.Intents)+len(c.KeywordIntents) > maxCorpusIntents {
		return nil, fmt.Errorf("%d intents, limit is %d", len(c.Intents)+len(c.KeywordIntents), maxCorpusIntents)
	}
	if err := c.readTests(top["tests"]); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *corpus) readVocab(v any) error {
	if v == nil {
		return nil
	}
	o, err := object(v, "vocab")
	if err != nil {
		return err
	}
	if len(o) > maxCorpusVocabs {
		return fmt.Errorf("vocab: %d vocabularies, limit is %d", len(o), maxCorpusVocabs)
	}
	for name, list := range o {
		where := "vocab." + name
		if !vocabName(name) {
			return fmt.Errorf("%s: name is not [a-z_][a-z0-9_]* (GRM-06)", where)
		}
		phrases, err := strs(list, where)
		if err != nil {
			return err
		}
		if len(phrases) == 0 {
			return fmt.Errorf("%s: no phrases", where)
		}
		c.Vocab[name] = phrases
	}
	return nil
}

func (c *corpus) readIntents(v any) error {
	if v == nil {
		return nil
	}
	o, err := object(v, "intents")
	if err != nil {
		return err
	}
	for name, def := range o {
		where := "intents." + name
		if err := intentName(name); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		d, err := object(def, where, "templates", "slots")
		if err != nil {
			return err
		}
		in := corpusIntent{Values: map[string][]string{}}
		if in.Templates, err = strs(d["templates"], where+".templates"); err != nil {
			return err
		}
		if len(in.Templates) == 0 {
			return fmt.Errorf("%s.templates: no templates", where)
		}
		if d["slots"] != nil {
			slots, err := object(d["slots"], where+".slots")
			if err != nil {
				return err
			}
			for slot, spec := range slots {
				at := where + ".slots." + slot
				if s, ok := spec.(string); ok {
					if s != "wildcard" {
						return fmt.Errorf("%s: want \"wildcard\" or an array of values, got %q", at, s)
					}
					continue
				}
				if in.Values[slot], err = strs(spec, at); err != nil {
					return fmt.Errorf("%w (or \"wildcard\")", err)
				}
			}
		}
		c.Intents[name] = in
	}
	return nil
}

func (c *corpus) readKeywordIntents(v any) error {
	if v == nil {
		return nil
	}
	o, err := object(v, "keyword_intents")
	if err != nil {
		return err
	}
	for name, def := range o {
		where := "keyword_intents." + name
		if err := intentName(name); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		d, err := object(def, where, "required", "optional", "one_of", "excluded")
		if err != nil {
			return err
		}
		var k corpusKeyword
		for _, role := range []struct {
			key string
			dst *[]string
		}{{"required", &k.Required}, {"optional", &k.Optional}, {"excluded", &k.Excluded}} {
			if d[role.key] == nil {
				continue
			}
			if *role.dst, err = c.vocabRefs(d[role.key], where+"."+role.key); err != nil {
				return err
			}
		}
		if d["one_of"] != nil {
			groups, ok := d["one_of"].([]any)
			if !ok {
				return fmt.Errorf("%s.one_of: want an array of arrays of vocabulary names", where)
			}
			for g, group := range groups {
				names, err := c.vocabRefs(group, fmt.Sprintf("%s.one_of[%d]", where, g))
				if err != nil {
					return err
				}
				k.OneOf = append(k.OneOf, names)
			}
		}
		c.KeywordIntents[name] = k
	}
	return nil
}

// vocabRefs reads a list of vocabulary names that must exist in the corpus.
func (c *corpus) vocabRefs(v any, where string) ([]string, error) {
	names, err := strs(v, where)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		if _, ok := c.Vocab[n]; !ok {
			return nil, fmt.Errorf("%s[%d]: vocabulary %q is not in vocab", where, i, n)
		}
	}
	return names, nil
}

func (c *corpus) readTests(v any) error {
	list, ok := v.([]any)
	if !ok {
		return errors.New("tests: want an array of tests")
	}
	if len(list) == 0 {
		return errors.New("tests: no tests")
	}
	if len(list) > maxCorpusTests {
		return fmt.Errorf("tests: %d tests, limit is %d", len(list), maxCorpusTests)
	}
	c.Tests = make([]corpusTest, 0, len(list))
	for i, e := range list {
		where := fmt.Sprintf("tests[%d]", i)
		o, err := object(e, where, "utterance", "intent", "slots", "needs_context", "uses_filler_words")
		if err != nil {
			return err
		}
		var t corpusTest
		if t.Utterance, err = str(o["utterance"], where+".utterance"); err != nil {
			return err
		}
		if t.Utterance == "" || len(t.Utterance) > console.MaxLineBytes {
			return fmt.Errorf("%s.utterance: want 1 to %d bytes, got %d", where, console.MaxLineBytes, len(t.Utterance))
		}
		if err := textcheck.Line(t.Utterance); err != nil {
			return fmt.Errorf("%s.utterance: %w", where, err)
		}
		iv, present := o["intent"]
		switch {
		case !present:
			return fmt.Errorf("%s.intent: missing (use null for an utterance no intent should claim)", where)
		case iv != nil:
			if t.Intent, err = str(iv, where+".intent"); err != nil {
				return err
			}
			_, tpl := c.Intents[t.Intent]
			_, kw := c.KeywordIntents[t.Intent]
			if !tpl && !kw {
				return fmt.Errorf("%s.intent: %q is not an intent of the corpus", where, t.Intent)
			}
		}
		if o["slots"] != nil {
			slots, err := object(o["slots"], where+".slots")
			if err != nil {
				return err
			}
			t.Slots = map[string]string{}
			for k, v := range slots {
				if t.Slots[k], err = str(v, where+".slots."+k); err != nil {
					return err
				}
			}
			if t.Intent == "" && len(t.Slots) > 0 {
				return fmt.Errorf("%s.slots: given for a test that expects no intent", where)
			}
		}
		for _, flagName := range []string{"needs_context", "uses_filler_words"} {
			if fv, ok := o[flagName]; ok {
				b, ok := fv.(bool)
				if !ok {
					return fmt.Errorf("%s.%s: want true or false", where, flagName)
				}
				if flagName == "needs_context" {
					t.NeedsContext = b
				}
			}
		}
		c.Tests = append(c.Tests, t)
	}
	return nil
}

// object checks v is a JSON object and, when keys are given, that it has no
// others.
func object(v any, where string, keys ...string) (map[string]any, error) {
	o, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object", where)
	}
	if len(keys) > 0 {
		for _, k := range slices.Sorted(maps.Keys(o)) {
			if !slices.Contains(keys, k) {
				return nil, fmt.Errorf("%s: unknown field %q (known: %s)", where, k, strings.Join(keys, ", "))
			}
		}
	}
	return o, nil
}

func str(v any, where string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string", where)
	}
	return s, nil
}

func strs(v any, where string) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an array of strings", where)
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a string", where, i)
		}
		out[i] = s
	}
	return out, nil
}

func vocabName(s string) bool {
	for i, r := range s {
		if r != '_' && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// intentName checks a corpus intent name is usable as an OVOS intent_name
// (DEF-02); reserved names are left to the engines, which reject them.
func intentName(s string) error {
	switch {
	case s == "":
		return errors.New("empty intent name")
	case len(s) > intent.MaxIDBytes:
		return fmt.Errorf("intent name longer than %d bytes", intent.MaxIDBytes)
	case strings.ContainsFunc(s, func(r rune) bool { return r == ':' || unicode.IsSpace(r) || unicode.IsControl(r) }):
		return errors.New("intent name contains ':', whitespace or control characters (DEF-02)")
	}
	return nil
}

// lineCol turns a byte offset into a 1-based line and column (in runes).
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

// evalReport is what eval measured; its JSON form is the --json output.
type evalReport struct {
	Tests                        int                  `json:"tests"`
	IntentAccuracy               float64              `json:"intent_accuracy"`
	ExactAccuracy                float64              `json:"exact_accuracy"`
	TestsWithoutContext          int                  `json:"tests_without_context"`
	IntentAccuracyWithoutContext float64              `json:"intent_accuracy_without_context"`
	ExactAccuracyWithoutContext  float64              `json:"exact_accuracy_without_context"`
	P50us                        float64              `json:"p50_us"`
	P95us                        float64              `json:"p95_us"`
	MaxUs                        float64              `json:"max_us"`
	BuildMs                      float64              `json:"build_ms"`
	HeapMB                       float64              `json:"heap_mb"`
	Intents                      int                  `json:"intents"`
	KeywordIntents               int                  `json:"keyword_intents"`
	Templates                    int                  `json:"templates"`
	TemplatesRejected            int                  `json:"templates_rejected"`
	IntentsRejected              int                  `json:"intents_rejected"`
	Rejected                     []evalRejected       `json:"rejected"`
	Tiers                        map[string]*evalTier `json:"tiers"`
	Failures                     []evalFailure        `json:"failures,omitempty"`
	intentOK, exactOK            int
	intentOKNoCtx, exactOKNoCtx  int
}

// evalTier counts the tests one pipeline tier ("none": no tier) claimed,
// and how many of those it got right (the intent; slots not compared).
// A low tier also counts the guesses it refused as implausible
// (intent.Plausible) and how many of those would have been right, so the
// cost of the refusals is in plain view.
type evalTier struct {
	Claimed      int `json:"claimed"`
	Correct      int `json:"correct"`
	Refused      int `json:"refused,omitempty"`
	RefusedRight int `json:"refused_right,omitempty"`
}

// evalRefusal is a guess a low tier refused for one test.
type evalRefusal struct {
	Tier       string  `json:"tier"`
	Intent     string  `json:"intent"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason"`
}

// evalRejected is a template the grammar refused or an intent an engine
// refused.
type evalRejected struct {
	Intent   string `json:"intent"`
	Template string `json:"template,omitempty"`
	Error    string `json:"error"`
}

// evalFailure is a test whose intent or slots differ from the expectation.
type evalFailure struct {
	Utterance string            `json:"utterance"`
	Want      string            `json:"want"`
	WantSlots map[string]string `json:"want_slots"`
	Got       string            `json:"got"`
	GotSlots  map[string]string `json:"got_slots"`
	Tier      string            `json:"tier"`
	// Confidence and Why are the claiming tier's; absent without a claim.
	Confidence float64 `json:"confidence,omitempty"`
	Why        string  `json:"why,omitempty"`
	// Refused lists the guesses low tiers declined before the claim.
	Refused []evalRefusal `json:"refused,omitempty"`
}

// evaluate loads the corpus into a template and a keyword engine and runs
// every test through their pipeline tiers in the robot's default order.
// progress, if not nil, hears how many tests are done.
func evaluate(ctx context.Context, c *corpus, progress func(done, total int)) (*evalReport, error) {
	rep := &evalReport{Tests: len(c.Tests), Intents: len(c.Intents), KeywordIntents: len(c.KeywordIntents),
		Tiers: map[string]*evalTier{}, Rejected: []evalRejected{}}
	quiet := slog.New(slog.DiscardHandler)
	te := intent.NewTemplateEngine(intent.EngineOptions{Logger: quiet})
	ke := intent.NewKeywordEngine(intent.KeywordOptions{Logger: quiet})

	// The grammar check is done first and apart, so the build time is what
	// the engines cost.
	tdefs := make([]intent.TemplateIntent, 0, len(c.Intents))
	for _, name := range slices.Sorted(maps.Keys(c.Intents)) {
		in := c.Intents[name]
		def := intent.TemplateIntent{SkillID: evalSkill, IntentName: name, Lang: c.Lang, Vocab: c.Vocab}
		for _, t := range in.Templates {
			rep.Templates++
			if _, _, err := intent.Expand(t, c.Vocab, intent.ExpandOptions{}); err != nil {
				rep.TemplatesRejected++
				rep.Rejected = append(rep.Rejected, evalRejected{Intent: name, Template: t, Error: err.Error()})
				continue
			}
			def.Samples = append(def.Samples, t)
		}
		if len(in.Values) > 0 {
			def.Entities = in.Values
		}
		if len(def.Samples) == 0 {
			rep.IntentsRejected++
			rep.Rejected = append(rep.Rejected, evalRejected{Intent: name, Error: "every template was rejected"})
			continue
		}
		tdefs = append(tdefs, def)
	}
	kdefs := make([]intent.KeywordIntent, 0, len(c.KeywordIntents))
	for _, name := range slices.Sorted(maps.Keys(c.KeywordIntents)) {
		k := c.KeywordIntents[name]
		descs := func(names []string) []intent.KeywordVocab {
			out := make([]intent.KeywordVocab, len(names))
			for i, n := range names {
				out[i] = intent.KeywordVocab{Name: n, Samples: c.Vocab[n]}
			}
			return out
		}
		def := intent.KeywordIntent{SkillID: evalSkill, IntentName: name, Lang: c.Lang,
			Required: descs(k.Required), Optional: descs(k.Optional), Excluded: descs(k.Excluded)}
		for _, g := range k.OneOf {
			def.OneOf = append(def.OneOf, descs(g))
		}
		kdefs = append(kdefs, def)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	for _, def := range tdefs {
		if _, err := te.Register(def); err != nil {
			rep.IntentsRejected++
			rep.Rejected = append(rep.Rejected, evalRejected{Intent: def.IntentName, Error: err.Error()})
		}
	}
	for _, def := range kdefs {
		if _, err := ke.Register(def); err != nil {
			rep.IntentsRejected++
			rep.Rejected = append(rep.Rejected, evalRejected{Intent: def.IntentName, Error: err.Error()})
		}
	}
	rep.BuildMs = roundTo(float64(time.Since(start).Microseconds())/1000, 1)
	runtime.GC()
	runtime.ReadMemStats(&after)
	// Clamped: on a tiny corpus the collector can free more than was built.
	rep.HeapMB = roundTo(max(0, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)))/(1<<20), 1)

	plugins := evalPipeline(te, ke)
	sess := session.Empty()
	lat := make([]time.Duration, 0, len(c.Tests))
	step := max(1, len(c.Tests)/200)
	for i, t := range c.Tests {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if progress != nil && i%step == 0 {
			progress(i, len(c.Tests))
		}
		var m *pipeline.Match
		tier := "none"
		tried := len(plugins)
		t0 := time.Now()
		for k, p := range plugins {
			var err error
			if m, err = p.Match(ctx, []string{t.Utterance}, c.Lang, sess); err != nil {
				return nil, fmt.Errorf("test %d: %s: %w", i, p.ID(), err)
			}
			if m != nil {
				tier, tried = p.ID(), k
				break
			}
		}
		lat = append(lat, time.Since(t0))
		// Asked again after the clock stopped: the refusals cost the robot
		// nothing, only the report.
		var refusals []evalRefusal
		for _, p := range plugins[:tried] {
			tp, ok := p.(*intent.TierPlugin)
			if !ok {
				continue
			}
			ref, err := tp.Refused(ctx, []string{t.Utterance}, c.Lang, sess)
			if err != nil {
				return nil, fmt.Errorf("test %d: %s: %w", i, p.ID(), err)
			}
			if ref != nil {
				refusals = append(refusals, evalRefusal{Tier: p.ID(), Intent: ref.Match.IntentName,
					Confidence: roundTo(ref.Match.Confidence, 4), Reason: ref.Reason})
			}
		}
		rep.score(t, m, tier, refusals)
	}
	if progress != nil {
		progress(len(c.Tests), len(c.Tests))
	}
	slices.Sort(lat)
	rep.P50us = micros(percentile(lat, 0.50))
	rep.P95us = micros(percentile(lat, 0.95))
	rep.MaxUs = micros(lat[len(lat)-1])
	rep.IntentAccuracy = ratio(rep.intentOK, rep.Tests)
	rep.ExactAccuracy = ratio(rep.exactOK, rep.Tests)
	rep.IntentAccuracyWithoutContext = ratio(rep.intentOKNoCtx, rep.TestsWithoutContext)
	rep.ExactAccuracyWithoutContext = ratio(rep.exactOKNoCtx, rep.TestsWithoutContext)
	return rep, nil
}

// evalPipeline returns both engines' tiers in the order of the robot's
// default pipeline.
func evalPipeline(te *intent.TemplateEngine, ke *intent.KeywordEngine) []pipeline.Plugin {
	byID := map[string]pipeline.Plugin{}
	for _, p := range intent.TemplatePlugins(te) {
		byID[p.ID()] = p
	}
	for _, p := range intent.KeywordPlugins(ke) {
		byID[p.ID()] = p
	}
	var out []pipeline.Plugin
	for _, id := range defaultPipeline {
		if p, ok := byID[id]; ok {
			out = append(out, p)
		}
	}
	return out
}

// score counts one test: the intent is right when it names the expected
// intent (or nothing claimed an utterance that should stay unmatched), and
// exact when the slots are also exactly the expected ones.
func (r *evalReport) score(t corpusTest, m *pipeline.Match, tier string, refusals []evalRefusal) {
	got, gotSlots := "", map[string]string{}
	if m != nil {
		got, gotSlots = m.IntentName, m.Slots
	}
	for _, ref := range refusals {
		tc := r.tier(ref.Tier)
		tc.Refused++
		if ref.Intent == t.Intent {
			tc.RefusedRight++
		}
	}
	want := t.Slots
	if want == nil {
		want = map[string]string{}
	}
	intentOK := got == t.Intent
	exactOK := intentOK && maps.Equal(gotSlots, want)
	tc := r.tier(tier)
	tc.Claimed++
	if intentOK {
		tc.Correct++
	}
	if !t.NeedsContext {
		r.TestsWithoutContext++
	}
	if intentOK {
		r.intentOK++
		if !t.NeedsContext {
			r.intentOKNoCtx++
		}
	}
	if exactOK {
		r.exactOK++
		if !t.NeedsContext {
			r.exactOKNoCtx++
		}
		return
	}
	f := evalFailure{Utterance: t.Utterance, Want: t.Intent, WantSlots: want,
		Got: got, GotSlots: gotSlots, Tier: tier, Refused: refusals}
	if m != nil {
		f.Confidence, f.Why = roundTo(m.Confidence, 4), m.Why
	}
	r.Failures = append(r.Failures, f)
}

// tier returns the counts of a tier, creating them.
func (r *evalReport) tier(id string) *evalTier {
	tc := r.Tiers[id]
	if tc == nil {
		tc = &evalTier{}
		r.Tiers[id] = tc
	}
	return tc
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func micros(d time.Duration) float64 { return roundTo(float64(d.Nanoseconds())/1000, 1) }

func ratio(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return roundTo(float64(n)/float64(of), 4)
}

func roundTo(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

func (r *evalReport) print(w io.Writer, path string) {
	pct := func(n, of int) string {
		if of == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(n)/float64(of), n, of)
	}
	fmt.Fprintf(w, "corpus            %s\n", path)
	fmt.Fprintf(w, "intents           %d template (%d templates, %d rejected by the grammar), %d keyword; %d intents rejected\n",
		r.Intents, r.Templates, r.TemplatesRejected, r.KeywordIntents, r.IntentsRejected)
	fmt.Fprintf(w, "tests             %d (%d without needs_context)\n", r.Tests, r.TestsWithoutContext)
	fmt.Fprintf(w, "intent accuracy   %s; without needs_context %s\n", pct(r.intentOK, r.Tests), pct(r.intentOKNoCtx, r.TestsWithoutContext))
	fmt.Fprintf(w, "exact accuracy    %s; without needs_context %s\n", pct(r.exactOK, r.Tests), pct(r.exactOKNoCtx, r.TestsWithoutContext))
	fmt.Fprintf(w, "match latency     p50 %.1f µs, p95 %.1f µs, max %.1f µs (all tiers, per utterance)\n", r.P50us, r.P95us, r.MaxUs)
	fmt.Fprintf(w, "build             %.1f ms\n", r.BuildMs)
	fmt.Fprintf(w, "heap              %.1f MB retained by the engines\n", r.HeapMB)
	var tiers, refused []string
	for _, id := range append(slices.Clone(defaultPipeline), "none") {
		tc := r.Tiers[id]
		if tc == nil {
			continue
		}
		if tc.Claimed > 0 {
			tiers = append(tiers, fmt.Sprintf("%s %d/%d", id, tc.Correct, tc.Claimed))
		}
		if tc.Refused > 0 {
			refused = append(refused, fmt.Sprintf("%s %d (%d would have been right)", id, tc.Refused, tc.RefusedRight))
		}
	}
	fmt.Fprintf(w, "right/claimed     %s\n", strings.Join(tiers, ", "))
	if len(refused) > 0 {
		fmt.Fprintf(w, "refused guesses   %s\n", strings.Join(refused, ", "))
	}
	for _, x := range r.Rejected {
		if x.Template != "" {
			fmt.Fprintf(w, "rejected template %s: %q: %s\n", x.Intent, x.Template, x.Error)
		} else {
			fmt.Fprintf(w, "rejected intent   %s: %s\n", x.Intent, x.Error)
		}
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "FAIL %q: want %s %v, got %s %v (%s)\n", f.Utterance, orNone(f.Want), f.WantSlots, orNone(f.Got), f.GotSlots, f.Tier)
		for _, ref := range f.Refused {
			fmt.Fprintf(w, "     %s refused %s at %.2f: %s\n", ref.Tier, ref.Intent, ref.Confidence, ref.Reason)
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// progressTo returns a progress bar drawn on w when w is a terminal, else
// nil. A character device is taken for a terminal: no new dependency just
// to ask the tty driver.
func progressTo(w io.Writer) func(done, total int) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	const width = 40
	return func(done, total int) {
		n := width * done / total
		fmt.Fprintf(w, "\r[%s%s] %d/%d", strings.Repeat("#", n), strings.Repeat(".", width-n), done, total)
		if done == total {
			fmt.Fprint(w, "\r\033[K")
		}
	}
}
