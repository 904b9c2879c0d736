// Package skillcheck checks a skill folder as the robot would load it: an
// OVOS skill's folder (locale/<lang>/…, files as real skills write them),
// a skill package (manifest.json with keyword_intents, locale/), or a bare
// locale folder. It reports per file what loaded, what was refused and
// why, and per intent whether the robot's engines accepted it; and it can
// match utterances against the loaded skills through the robot's intent
// tiers, to measure how well a skill's own examples are understood.
package skillcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/intent/paraphrase"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/registry"
)

// ManifestFile is a skill package's manifest, whose keyword_intents
// declare the keyword intents.
const ManifestFile = "manifest.json"

// Folder is a skill folder, read.
type Folder struct {
	Dir     string
	SkillID string // bus id
	Locale  *intent.Locale
	// Keywords are the keyword intents: from the manifest, or set by the
	// caller for an OVOS skill (whose code declares them).
	Keywords []intent.KeywordDecl
}

// Load reads the skill folder dir: its manifest.json when there is one
// (the skill id and keyword intents come from it), and its locale from
// dir/locale/ or, without one, dir itself (language folders). A malformed
// locale file is refused and reported, never fatal; a malformed manifest
// is an error.
func Load(dir string) (*Folder, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("checking skill folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("checking skill folder %s: not a folder", dir)
	}
	f := &Folder{Dir: dir, SkillID: folderID(dir)}
	if data, err := os.ReadFile(filepath.Join(dir, ManifestFile)); err == nil {
		if len(data) > registry.MaxManifestBytes {
			return nil, fmt.Errorf("%s: %s is larger than %d bytes", dir, ManifestFile, registry.MaxManifestBytes)
		}
		m, err := registry.ParseManifest(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", dir, ManifestFile, err)
		}
		f.SkillID = m.BusID()
		f.Keywords = skill.KeywordDecls(m)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("checking skill folder: %w", err)
	}
	root := filepath.Join(dir, "locale")
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		root = dir
	}
	f.Locale, err = intent.LoadLocaleTolerant(intent.LocaleLayer{FS: os.DirFS(root), Root: ".", Name: root})
	if err != nil {
		return nil, fmt.Errorf("checking skill folder %s: %w", dir, err)
	}
	return f, nil
}

// folderID makes a bus id from a folder name: lowercase, characters
// outside [a-z0-9._-] as '-'.
func folderID(dir string) string {
	name := strings.ToLower(filepath.Base(filepath.Clean(dir)))
	id := strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, name)
	if id == "" || id == "." || id == "-" {
		return "skill"
	}
	return id
}

// Stack is the robot's understanding of text on a private bus: the intent
// stack the robot builds (engines, registration service, paraphrase tier).
type Stack struct {
	bus     *bus.Bus
	intents *intent.Stack
	learnt  bool
}

// NewStack starts a stack; Close stops it. log may be nil.
func NewStack(log *slog.Logger) (*Stack, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st := &Stack{bus: bus.New(bus.Options{Logger: log})}
	is, _, err := paraphrase.NewStack(intent.StackConfig{Bus: st.bus, Logger: log}, paraphrase.TierOptions{})
	if err != nil {
		st.Close()
		return nil, err
	}
	if err := is.Start(); err != nil {
		st.Close()
		return nil, fmt.Errorf("starting the intent service: %w", err)
	}
	st.intents = is
	return st, nil
}

// Close stops the stack.
func (st *Stack) Close() {
	if st.intents != nil {
		st.intents.Close()
	}
	_ = st.bus.Close(context.Background())
}

// IntentStatus says whether one intent is registered.
type IntentStatus struct {
	Name, Lang string
	Method     string // "template" or "keyword"
	Registered bool
	// Why a refused intent is not registered.
	Why string
}

// Register registers f's intents as the skill host does and reports each.
func (st *Stack) Register(ctx context.Context, f *Folder) ([]IntentStatus, error) {
	_, err := intent.RegisterLocaleWith(ctx, st.bus, f.Locale, f.SkillID, intent.RegisterOptions{Keywords: f.Keywords})
	var refused []string
	var re *intent.RefusedError
	switch {
	case errors.As(err, &re):
		refused = re.Refused
	case err != nil:
		return nil, err
	}
	why := func(name, lang string) string {
		for _, r := range refused {
			if strings.HasPrefix(r, name+"/"+lang+" ") || strings.HasPrefix(r, "keyword intent "+name+" in "+lang+":") ||
				strings.HasPrefix(r, "keyword intent "+name+":") {
				return r
			}
		}
		return ""
	}
	var out []IntentStatus
	for _, tag := range f.Locale.Languages() {
		for _, name := range f.Locale.Langs[tag].Names(intent.RoleIntent) {
			w := why(name, tag)
			out = append(out, IntentStatus{Name: name, Lang: tag, Method: "template", Registered: w == "", Why: w})
		}
		for _, d := range f.Keywords {
			w := why(d.Name, tag)
			out = append(out, IntentStatus{Name: d.Name, Lang: tag, Method: "keyword", Registered: w == "", Why: w})
		}
	}
	return out, nil
}

// Match matches one utterance as the robot's intent bands would, surest
// first (PIPE-09). It returns nil when nothing matches.
func (st *Stack) Match(ctx context.Context, utterance, lang string) *pipeline.Match {
	if !st.learnt {
		// The paraphrase tier learns what registered; the robot does that
		// in the background, a check once, before its first question.
		if err := st.intents.Learn(ctx); err != nil {
			return nil
		}
		st.learnt = true
	}
	m, _, _, err := st.intents.Claim(ctx, intent.Query{Hypotheses: []intent.Hypothesis{{Text: utterance}},
		Lang: lang, Session: session.Empty()})
	if err != nil {
		return nil
	}
	return m
}

// Report is what Check found.
type Report struct {
	Dir, SkillID string
	Files        []intent.FileReport
	Findings     []intent.Finding
	Intents      []IntentStatus
}

// OK reports whether everything loaded: no file and no intent refused.
func (r *Report) OK() bool {
	for _, f := range r.Files {
		if f.Status == intent.FileRefused {
			return false
		}
	}
	for _, in := range r.Intents {
		if !in.Registered {
			return false
		}
	}
	return true
}

// Check loads the skill folder dir (Load) and registers it with the
// robot's engines on a private bus, and reports every file and intent.
func Check(ctx context.Context, dir string, log *slog.Logger) (*Report, error) {
	f, err := Load(dir)
	if err != nil {
		return nil, err
	}
	st, err := NewStack(log)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	intents, err := st.Register(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("checking %s: registering: %w", dir, err)
	}
	return &Report{Dir: dir, SkillID: f.SkillID, Files: f.Locale.Files, Findings: f.Locale.Findings, Intents: intents}, nil
}

// WriteText writes the report for a person: one line per file (status,
// path, what it holds), its reasons and warnings indented below, then the
// intents, the findings and a summary line.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "skill %s (%s)\n", r.SkillID, r.Dir)
	counts := map[intent.FileStatus]int{}
	for _, f := range r.Files {
		counts[f.Status]++
		what := ""
		switch {
		case f.Status != intent.FileLoaded:
		case f.Role == intent.RoleDialog:
			what = fmt.Sprintf(": %d lines, %d phrases", f.Lines, f.Samples)
		case f.Role == intent.RoleValue:
			what = fmt.Sprintf(": %d values", f.Samples)
		case f.Role == intent.RolePrompt:
		default:
			what = fmt.Sprintf(": %d lines, %d samples", f.Lines, f.Samples)
		}
		fmt.Fprintf(&b, "  %-10s %s%s\n", f.Status, f.Path, what)
		for _, why := range f.Reasons {
			fmt.Fprintf(&b, "      %s\n", why)
		}
		for _, warn := range f.Warnings {
			fmt.Fprintf(&b, "      warning: %s\n", warn)
		}
	}
	registered := 0
	for _, in := range r.Intents {
		status := "registered"
		if in.Registered {
			registered++
		} else {
			status = "refused"
		}
		fmt.Fprintf(&b, "  intent %-10s %s:%s (%s, %s)\n", status, r.SkillID, in.Name, in.Method, in.Lang)
		if in.Why != "" {
			fmt.Fprintf(&b, "      %s\n", in.Why)
		}
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  finding %s\n", f)
	}
	var parts []string
	for _, s := range []intent.FileStatus{intent.FileLoaded, intent.FileRefused, intent.FileIgnored, intent.FileOverridden} {
		if counts[s] > 0 || s == intent.FileLoaded || s == intent.FileRefused {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	fmt.Fprintf(&b, "files: %s; intents: %d of %d registered\n", strings.Join(parts, ", "), registered, len(r.Intents))
	_, err := io.WriteString(w, b.String())
	return err
}
