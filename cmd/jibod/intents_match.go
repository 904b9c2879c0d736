package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
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
	"github.com/openjibo/jibod/core/pipeline"
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

// maxMatchSkills bounds the skill folders `jibod intents match` loads.
const maxMatchSkills = 1000

// matchAnswer is the line for an utterance that matched.
type matchAnswer struct {
	Utterance  string            `json:"utterance"`
	SkillID    string            `json:"skill_id"`
	IntentName string            `json:"intent_name"`
	Slots      map[string]string `json:"slots"`
	Confidence float64           `json:"confidence"`
	PipelineID string            `json:"pipeline_id"`
	Why        string            `json:"why,omitempty"`
}

// noMatchAnswer is the line for an utterance nothing matched: "match" is
// always null. Refused lists the guesses low tiers declined as implausible
// (intent.Plausible), so an author sees what a looser robot would have done.
type noMatchAnswer struct {
	Utterance  string           `json:"utterance"`
	Match      *struct{}        `json:"match"`
	NearMisses []nearMissAnswer `json:"near_misses"`
	Refused    []refusedAnswer  `json:"refused,omitempty"`
}

type refusedAnswer struct {
	PipelineID string            `json:"pipeline_id"`
	SkillID    string            `json:"skill_id"`
	IntentName string            `json:"intent_name"`
	Slots      map[string]string `json:"slots"`
	Confidence float64           `json:"confidence"`
	Why        string            `json:"why,omitempty"`
	Reason     string            `json:"reason"`
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

// cmdIntentsMatch runs `jibod intents match`: it loads every skill folder
// under --skills, registers them through the intent service on a bus as
// the robot does, and matches each line of standard input through the
// robot's pipeline tiers in order, writing one JSON line per utterance.
func cmdIntentsMatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("intents match", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("skills", "", "`folder` holding one folder per skill, named by skill id, each with a locale/ folder (or language folders)")
	lang := fs.String("lang", "en-US", "utterance language (BCP-47)")
	override := fs.String("override", "", "user override `folder`: <folder>/<skill_id>/locale/<lang>/… replaces the skill's files one by one (RES-02)")
	near := fs.Int("near", intent.DefaultNearMisses, fmt.Sprintf("near misses to list for an unmatched utterance (1–%d)", intent.MaxNearMisses))
	level := fs.String("log-level", "warn", "log level on standard error: debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *dir == "" || fs.NArg() > 0:
		return usageError{"intents match: want --skills DIR and no other arguments; utterances come on standard input"}
	case *near < 1 || *near > intent.MaxNearMisses:
		return usageError{fmt.Sprintf("intents match: --near %d: want 1 to %d", *near, intent.MaxNearMisses)}
	}
	tag, err := intent.NormalizeLang(*lang)
	if err != nil {
		return usageError{fmt.Sprintf("intents match: --lang: %v", err)}
	}
	log, err := newLogger(stderr, *level)
	if err != nil {
		return err
	}

	skills, err := loadSkillFolders(*dir, *override, log)
	if err != nil {
		return fmt.Errorf("intents match: %w", err)
	}
	st, err := newIntentStack(ctx, skills, log)
	if err != nil {
		return fmt.Errorf("intents match: %w", err)
	}
	defer st.close()

	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	lr := console.NewLineReader(stdin)
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
			return fmt.Errorf("intents match: reading standard input: %w", err)
		case u == "":
			continue
		default:
			err = enc.Encode(st.answer(ctx, u, tag, *near))
		}
		if err != nil {
			return fmt.Errorf("intents match: writing: %w", err)
		}
	}
}

// skillFolder is one loaded skill folder.
type skillFolder struct {
	id  string
	loc *intent.Locale
}

// loadSkillFolders loads every folder under dir as a skill: its name is
// the skill id, checked as the skill host checks it, and its locale is
// dir/<id>/locale/ or, without one, dir/<id>/ itself, layered under the
// user override (RES-02). Every problem in every folder is reported, each
// naming the file (and line where there is one); any problem loads
// nothing.
func loadSkillFolders(dir, override string, log *slog.Logger) ([]skillFolder, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading skills folder: %w", err)
	}
	var out []skillFolder
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
		if len(out)+len(errs) >= maxMatchSkills {
			return nil, fmt.Errorf("%s: more than %d skill folders", dir, maxMatchSkills)
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
		out = append(out, skillFolder{id: name, loc: loc})
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

// intentStack is the robot's intent side without the rest of the robot: a
// bus, the engines behind the intent service, and the pipeline plugins in
// the default pipeline's order.
type intentStack struct {
	bus       *bus.Bus
	service   *intent.Service
	templates *intent.TemplateEngine
	plugins   []pipeline.Plugin
}

// newIntentStack wires the engines as newRobot does and registers the
// skills through the service, as the skill host does.
func newIntentStack(ctx context.Context, skills []skillFolder, log *slog.Logger) (_ *intentStack, err error) {
	st := &intentStack{bus: bus.New(bus.Options{Logger: log})}
	defer func() {
		if err != nil {
			st.close()
		}
	}()
	engines, err := startIntentEngines(st.bus, log)
	if err != nil {
		return nil, err
	}
	st.templates, st.service = engines.templates, engines.service
	var errs []error
	for _, s := range skills {
		if _, err := intent.RegisterLocale(ctx, st.bus, s.loc, s.id, 0); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("registering skills: %w", errors.Join(errs...))
	}
	st.plugins = engines.inOrder(defaultPipeline)
	return st, nil
}

// answer matches one utterance through the plugins in order; the first
// match wins (PIPE-09). With none, the template engine explains the near
// misses.
func (st *intentStack) answer(ctx context.Context, u, lang string, near int) any {
	for _, p := range st.plugins {
		m, err := p.Match(ctx, []string{u}, lang, session.Empty())
		if err != nil || m == nil {
			continue
		}
		return matchAnswer{Utterance: u, SkillID: m.SkillID, IntentName: m.IntentName, Slots: m.Slots,
			Confidence: round4(m.Confidence), PipelineID: p.ID(), Why: m.Why}
	}
	ex := st.templates.Explain(u, lang, "", near)
	ans := noMatchAnswer{Utterance: u, NearMisses: []nearMissAnswer{}}
	for _, p := range st.plugins {
		tp, ok := p.(*intent.TierPlugin)
		if !ok {
			continue
		}
		if ref, err := tp.Refused(ctx, []string{u}, lang, session.Empty()); err == nil && ref != nil {
			ans.Refused = append(ans.Refused, refusedAnswer{PipelineID: p.ID(), SkillID: ref.Match.SkillID,
				IntentName: ref.Match.IntentName, Slots: ref.Match.Slots, Confidence: round4(ref.Match.Confidence),
				Why: ref.Match.Why, Reason: ref.Reason})
		}
	}
	for _, n := range ex.NearMisses {
		ans.NearMisses = append(ans.NearMisses, nearMissAnswer{SkillID: n.SkillID, IntentName: n.IntentName,
			Sample: n.Sample, Score: round4(n.Score), Reason: n.Reason})
	}
	return ans
}

func (st *intentStack) close() {
	if st.service != nil {
		st.service.Close()
	}
	_ = st.bus.Close(context.Background())
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
