package intenttool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/internal/ascii"
)

// folderSkillID* are what a skill folder's name, used as its bus id, may
// be, `^[a-z0-9][a-z0-9._-]{0,63}$`: topic-safe, as dispatch topics are
// "<id>:<intent>".
var (
	folderSkillIDFirst = ascii.NewSet("a-z0-9")
	folderSkillIDRest  = ascii.NewSet("a-z0-9._-")
)

// MaxSkillFolders bounds the skill folders `jibod intents match` loads.
const MaxSkillFolders = 1000

// matchAnswer is the line for an utterance that matched.
type matchAnswer struct {
	Utterance  string            `json:"utterance"`
	SkillID    string            `json:"skill_id"`
	IntentName string            `json:"intent_name"`
	Slots      map[string]string `json:"slots"`
	Confidence float64           `json:"confidence"`
	PipelineID string            `json:"pipeline_id"`
	Why        string            `json:"why,omitempty"`
	// Candidates, with --explain, are the round's ranked candidates.
	Candidates []candidateAnswer `json:"candidates,omitempty"`
}

// noMatchAnswer is the line for an utterance nothing matched: "match" is
// always null. Abstained is the best candidate when it scored below the
// claim floor, so an author sees what a looser robot would have done.
type noMatchAnswer struct {
	Utterance  string            `json:"utterance"`
	Match      *struct{}         `json:"match"`
	NearMisses []nearMissAnswer  `json:"near_misses"`
	Abstained  *candidateAnswer  `json:"abstained,omitempty"`
	Candidates []candidateAnswer `json:"candidates,omitempty"`
}

// candidateAnswer is one ranked candidate of a round.
type candidateAnswer struct {
	Source     string            `json:"source"`
	SkillID    string            `json:"skill_id"`
	IntentName string            `json:"intent_name"`
	Slots      map[string]string `json:"slots"`
	Score      float64           `json:"score"`
	Why        string            `json:"why,omitempty"`
}

type nearMissAnswer struct {
	SkillID    string  `json:"skill_id"`
	IntentName string  `json:"intent_name"`
	Sample     string  `json:"sample"`
	Score      float64 `json:"score"`
	Reason     string  `json:"reason"`
}

// lineError is the line for input that is not an utterance.
type lineError struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// MatchOptions are how MatchLines answers.
type MatchOptions struct {
	Lang    string // the utterances' language, normalised (intent.NormalizeLang)
	Near    int    // near misses listed for an unmatched utterance, 1 to intent.MaxNearMisses
	Explain bool   // also list each round's ranked candidates
}

// MatchLines matches each line of in through the matcher's bands and
// writes one JSON line per utterance to out: the match, or the near misses
// when nothing claimed it. A line that is not an utterance gets a line
// naming what is wrong; only failing to read or write is an error.
func MatchLines(ctx context.Context, m *Matcher, in io.Reader, out io.Writer, o MatchOptions) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	lr := console.NewLineReader(in)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		u, err := lr.Next()
		var skip *console.SkipError
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.As(err, &skip):
			err = enc.Encode(lineError{Line: skip.Line, Error: skip.Why})
		case err != nil:
			return fmt.Errorf("reading standard input: %w", err)
		case u == "":
			continue
		default:
			err = enc.Encode(m.Answer(ctx, u, o.Lang, o.Near, o.Explain))
		}
		if err != nil {
			return fmt.Errorf("writing: %w", err)
		}
	}
}

// SkillFolder is one loaded skill folder.
type SkillFolder struct {
	ID     string // the folder's name, the skill's bus id
	Locale *intent.Locale
}

// LoadSkillFolders loads every folder under dir as a skill: its name is
// the skill id, checked as the skill host checks it, and its locale is
// dir/<id>/locale/ or, without one, dir/<id>/ itself, layered under the
// user override (RES-02). Every problem in every folder is reported, each
// naming the file (and line where there is one); any problem loads
// nothing.
func LoadSkillFolders(dir, override string, log *slog.Logger) ([]SkillFolder, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading skills folder: %w", err)
	}
	var out []SkillFolder
	var errs []error
	for _, ent := range entries {
		name := ent.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		folder := filepath.Join(dir, name)
		if !ent.IsDir() {
			log.Info("not a skill folder; ignored", "path", folder)
			continue
		}
		if len(out)+len(errs) >= MaxSkillFolders {
			return nil, fmt.Errorf("%s: more than %d skill folders", dir, MaxSkillFolders)
		}
		if !ascii.Name(name, folderSkillIDFirst, folderSkillIDRest, 64) {
			errs = append(errs, fmt.Errorf("%s: folder name is the skill id: skill id %q: want [a-z0-9][a-z0-9._-]*, at most 64 characters", folder, name))
			continue
		}
		var layers []intent.LocaleLayer
		if override != "" {
			if user := filepath.Join(override, name, "locale"); isDir(user) {
				layers = append(layers, intent.LocaleLayer{FS: os.DirFS(user), Root: ".", Name: user})
			}
		}
		if own := filepath.Join(folder, "locale"); isDir(own) {
			layers = append(layers, intent.LocaleLayer{FS: os.DirFS(own), Root: ".", Name: own})
		} else {
			layers = append(layers, intent.LocaleLayer{FS: os.DirFS(folder), Root: ".", Name: folder})
		}
		loc, err := intent.LoadLocaleLayers(layers...)
		if err != nil {
			errs = append(errs, fmt.Errorf("skill %s: %w", name, err))
			continue
		}
		for _, w := range loc.Warnings {
			log.Info("locale", "skill_id", name, "warning", w.String())
		}
		for _, f := range loc.Findings {
			log.Warn("locale", "skill_id", name, "finding", f.String())
		}
		out = append(out, SkillFolder{ID: name, Locale: loc})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no skill folders", dir)
	}
	return out, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Matcher is the robot's intent side without the rest of the robot: a
// bus and the intent stack behind it.
type Matcher struct {
	bus     *bus.Bus
	intents *intent.Stack
}

// NewMatcher builds the robot's intent stack with newStack on a bus of its
// own and registers the skills through its service, as the skill host
// does.
func NewMatcher(ctx context.Context, skills []SkillFolder, newStack NewStack, log *slog.Logger) (_ *Matcher, err error) {
	st := &Matcher{bus: bus.New(bus.Options{Logger: log})}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	if st.intents, err = newStack(st.bus, log, true); err != nil {
		return nil, err
	}
	if err := st.intents.Start(); err != nil {
		return nil, fmt.Errorf("starting the intent service: %w", err)
	}
	var errs []error
	for _, s := range skills {
		if _, err := intent.RegisterLocale(ctx, st.bus, s.Locale, s.ID, 0); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("registering skills: %w", errors.Join(errs...))
	}
	if err := st.intents.Learn(ctx); err != nil {
		log.Warn("the paraphrase tier did not learn the skills; the engines alone answer", "err", err)
	}
	return st, nil
}

// explainLimit is how many candidates per source a match line considers:
// enough to show the runners-up.
const explainLimit = 5

// Answer matches one utterance through the stack's bands, surest first.
// With none claiming, the template engine explains the near misses.
func (st *Matcher) Answer(ctx context.Context, u, lang string, near int, explain bool) any {
	m, band, rec, err := st.intents.Claim(ctx, intent.Query{Hypotheses: intent.Texts(u), Lang: lang, Session: session.Empty(),
		Limit: explainLimit, Explain: true})
	var cands []candidateAnswer
	if err == nil && explain {
		for _, c := range rec.Candidates {
			cands = append(cands, candidate(c))
		}
	}
	if err == nil && m != nil {
		return matchAnswer{Utterance: u, SkillID: m.SkillID, IntentName: m.IntentName, Slots: m.Slots,
			Confidence: round4(m.Confidence), PipelineID: band, Why: m.Why, Candidates: cands}
	}
	ex := st.intents.Templates.Explain(u, lang, "", near)
	ans := noMatchAnswer{Utterance: u, NearMisses: []nearMissAnswer{}, Candidates: cands}
	if err == nil && len(rec.Candidates) > 0 {
		a := candidate(rec.Candidates[0])
		ans.Abstained = &a
	}
	for _, n := range ex.NearMisses {
		ans.NearMisses = append(ans.NearMisses, nearMissAnswer{SkillID: n.SkillID, IntentName: n.IntentName,
			Sample: n.Sample, Score: round4(n.Score), Reason: n.Reason})
	}
	return ans
}

func candidate(c intent.Candidate) candidateAnswer {
	return candidateAnswer{Source: c.Source, SkillID: c.SkillID, IntentName: c.IntentName, Slots: c.Slots,
		Score: round4(c.Score), Why: c.Explain()}
}

// Close stops the stack and its bus.
func (st *Matcher) Close() {
	if st.intents != nil {
		st.intents.Close()
	}
	_ = st.bus.Close(context.Background())
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
