package intent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/internal/sortx"
)

// Locale folder limits.
const (
	// MaxLocaleFiles caps the files, of any kind, under one locale folder.
	MaxLocaleFiles = 2_000
	// MaxLocaleDepth caps how deep folders nest below a language folder.
	MaxLocaleDepth = 16
	// MaxErrorsPerFile caps the errors reported for one file; the rest are
	// counted.
	MaxErrorsPerFile = 20
)

// Role is what a resource file is for, named by its extension (RES-05).
type Role string

// The seven resource roles of RES-05.
const (
	RoleIntent    Role = "intent"
	RoleDialog    Role = "dialog"
	RoleEntity    Role = "entity"
	RoleVocab     Role = "voc"
	RoleBlacklist Role = "blacklist"
	RoleRequired  Role = "required"
	RolePrompt    Role = "prompt"
)

// The resource types ovos-workshop reads besides those of RES-05 (its
// SkillResources): real skills ship them, so they load rather than being
// skipped (docs/ovos-locales.md). None of them takes part in matching;
// skills read them.
const (
	// RoleRegex: one regular expression per line, Adapt's regex entities.
	// Kept and checked (they must compile); keyword intents take no
	// regexes (DEF-07).
	RoleRegex Role = "rx"
	// RoleValue: "name,value" per line (ovos-workshop's named values).
	RoleValue Role = "value"
	// RoleWord: one word or phrase, its first line.
	RoleWord Role = "word"
	// RoleList: a list of words or phrases, one per line.
	RoleList Role = "list"
)

// roleOrder is the order files are validated in: vocabularies first, since
// the others refer to them, and .required after the intents it pairs with.
var roleOrder = []Role{RoleVocab, RoleEntity, RoleBlacklist, RoleIntent, RoleDialog, RoleRequired, RolePrompt,
	RoleRegex, RoleValue, RoleWord, RoleList}

// inputRole reports whether a role's lines are input-direction templates,
// matched against what people say (GRM-02).
func (r Role) inputRole() bool {
	return r == RoleIntent || r == RoleVocab || r == RoleEntity || r == RoleBlacklist
}

// Ext returns the file extension of the role, with its dot.
func (r Role) Ext() string { return "." + string(r) }

// Resource is one loaded resource file.
type Resource struct {
	Role  Role
	Name  string // base name
	Path  string // path in the loaded file system
	Lines []Line // template lines; for .required, slot names; nil for .prompt
	// Samples is the sample set for .intent (the union of its lines'),
	// .entity, .voc and .blacklist; the slot names for .required; the
	// phrases a .dialog can say, every line expanded (ExpandDialogLine);
	// the patterns of an .rx, the lines of a .list, the word of a .word.
	Samples []string
	// Slots lists the bare slot names: for .intent and .dialog the union
	// over its lines.
	Slots []string
	// SlotTypes maps typed slots of an .intent to their type.
	SlotTypes map[string]string
	// Text is the whole file of a .prompt, byte for byte (RES-07).
	Text string
	// Values are the name → value pairs of a .value file.
	Values map[string]string
}

// Language is one language folder of a locale.
type Language struct {
	Tag       string // lowercase BCP-47 tag
	Resources map[Role]map[string]*Resource
}

// Resource returns the resource of a role and base name, or nil.
func (l *Language) Resource(role Role, name string) *Resource {
	return l.Resources[role][name]
}

// Names returns the sorted base names of a role.
func (l *Language) Names(role Role) []string {
	return slices.Sorted(maps.Keys(l.Resources[role]))
}

// Vocab returns the language's vocabularies as name → templates, the form
// Expand and TemplateIntent take.
func (l *Language) Vocab() map[string][]string {
	out := map[string][]string{}
	for name, r := range l.Resources[RoleVocab] {
		out[name] = lineTexts(r.Lines)
	}
	return out
}

// TemplateIntent builds the registration of intent name from this
// language's files: its .intent lines, the paired .blacklist and .required,
// the .entity values and slot-paired .blacklist of its slots, and every
// vocabulary. It reports false when there is no such .intent.
func (l *Language) TemplateIntent(sessionID, skillID, name string) (TemplateIntent, bool) {
	in := l.Resource(RoleIntent, name)
	if in == nil {
		return TemplateIntent{}, false
	}
	def := TemplateIntent{
		SessionID: sessionID, SkillID: skillID, IntentName: name, Lang: l.Tag,
		Samples:   lineTexts(in.Lines),
		SlotTypes: maps.Clone(in.SlotTypes),
		Vocab:     l.Vocab(),
	}
	if b := l.Resource(RoleBlacklist, name); b != nil {
		def.Blacklist = lineTexts(b.Lines)
	}
	if r := l.Resource(RoleRequired, name); r != nil {
		def.RequiredSlots = slices.Clone(r.Samples)
	}
	for _, slot := range in.Slots {
		if e := l.Resource(RoleEntity, slot); e != nil {
			if def.Entities == nil {
				def.Entities = map[string][]string{}
			}
			def.Entities[slot] = lineTexts(e.Lines)
		}
		if b := l.Resource(RoleBlacklist, slot); b != nil && l.Resource(RoleIntent, slot) == nil {
			if def.SlotBlacklist == nil {
				def.SlotBlacklist = map[string][]string{}
			}
			def.SlotBlacklist[slot] = lineTexts(b.Lines)
		}
	}
	return def, true
}

func lineTexts(lines []Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

// FindingKind classifies a Finding.
type FindingKind string

// Kinds of findings across languages.
const (
	// FindingMissing: a (role, base name) present in another language is
	// missing in this one (RES-03).
	FindingMissing FindingKind = "missing-resource"
	// FindingSlotMismatch: an intent's slot names differ between languages
	// (RES-03).
	FindingSlotMismatch FindingKind = "slot-mismatch"
	// FindingNoEntity: an untyped intent slot has no .entity (RES-09).
	FindingNoEntity FindingKind = "missing-entity"
)

// Finding is a gap between languages or a missing hint: reportable, never a
// rejection.
type Finding struct {
	Kind FindingKind
	Lang string
	Role Role
	Name string
	Msg  string
}

// String formats the finding for a person.
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s %s%s: %s", f.Lang, f.Kind, f.Name, f.Role.Ext(), f.Msg)
}

// Locale is a skill's validated locale folder.
type Locale struct {
	Langs    map[string]*Language // by lowercase tag
	Findings []Finding            // parity gaps (RES-03) and missing entities (RES-09)
	Warnings []Warning            // skipped files and accepted oddities
	// Files says what became of every file found, sorted by path: loaded,
	// refused (and why), ignored or overridden.
	Files []FileReport
}

// FileStatus is what became of one file of a locale folder.
type FileStatus string

// File statuses.
const (
	// FileLoaded: the file is part of the locale.
	FileLoaded FileStatus = "loaded"
	// FileRefused: the file is malformed; the rest of the locale loads
	// without it (LoadLocaleTolerant) or not at all (LoadLocale).
	FileRefused FileStatus = "refused"
	// FileIgnored: not a resource file.
	FileIgnored FileStatus = "ignored"
	// FileOverridden: a higher layer has the same resource (RES-02).
	FileOverridden FileStatus = "overridden"
)

// FileReport is what became of one file of a locale folder.
type FileReport struct {
	Path   string
	Lang   string // lowercase tag; empty outside a language folder
	Role   Role   // empty for a file that is not a resource
	Name   string // base name
	Status FileStatus
	// Reasons say why a file was refused, ignored or overridden, one per
	// problem, each naming the file (and line and column where there is
	// one).
	Reasons []string
	// Warnings are accepted oddities in a loaded file.
	Warnings []string
	// Lines counts the file's template lines; Samples what they expand
	// to (phrases for a .dialog).
	Lines, Samples int
}

// Refused returns the reports of the files that were refused.
func (l *Locale) Refused() []FileReport {
	var out []FileReport
	for _, f := range l.Files {
		if f.Status == FileRefused {
			out = append(out, f)
		}
	}
	return out
}

// Languages returns the sorted language tags.
func (l *Locale) Languages() []string { return slices.Sorted(maps.Keys(l.Langs)) }

// TemplateIntents returns the registration of every intent in every
// language, sorted by language and intent name.
func (l *Locale) TemplateIntents(sessionID, skillID string) []TemplateIntent {
	var out []TemplateIntent
	for _, tag := range l.Languages() {
		lang := l.Langs[tag]
		for _, name := range lang.Names(RoleIntent) {
			def, _ := lang.TemplateIntent(sessionID, skillID, name)
			out = append(out, def)
		}
	}
	return out
}

// LoadLocale loads and validates the locale folder root of fsys: one
// folder per BCP-47 tag (case-insensitive), searched recursively, folder
// names below it meaning nothing (RES-01). Files are read by extension as
// the seven roles of RES-05 and the four further types ovos-workshop reads
// (.rx, .value, .word, .list); other files are skipped with a warning.
// Every malformed file is reported, each error naming file:line:col; any
// error fails the whole load, so nothing is half-loaded. Problems that keep
// files from being read (names, duplicates, encoding, size) are reported
// before the grammar is checked, so one bad file does not cause a cascade
// of follow-on errors. Gaps between languages come back as findings, not
// errors (RES-03). LoadLocaleTolerant loads the rest instead.
func LoadLocale(fsys fs.FS, root string) (*Locale, error) {
	l, err := loadLocale([]LocaleLayer{{FS: fsys, Root: root}}, false)
	if err != nil {
		return nil, fmt.Errorf("loading locale %s: %w", root, err)
	}
	return l, nil
}

// LoadLocaleUnexpanded is LoadLocale for registering the locale's intents:
// it accepts and refuses exactly what LoadLocale does, but checks each
// .intent template by its structure (GRM-08) instead of enumerating its
// sample set, so .intent Resources have no Samples and their FileReports
// count none. The engines compile templates and never read those samples,
// which are most of a rich locale's loading time and garbage; the other
// roles (vocabularies, entities, dialogs, ...) load as LoadLocale loads
// them.
func LoadLocaleUnexpanded(fsys fs.FS, root string) (*Locale, error) {
	l, err := loadLocaleWith([]LocaleLayer{{FS: fsys, Root: root}}, loadMode{unexpanded: true})
	if err != nil {
		return nil, fmt.Errorf("loading locale %s: %w", root, err)
	}
	return l, nil
}

// LoadLocaleTolerant loads a locale as ovos-core loads a skill's: a
// malformed file is refused, reported in Locale.Files with every reason,
// and the rest loads without it, a template that refers to a refused
// vocabulary being refused in turn. It fails only for what keeps the
// folder from being read at all: an unreadable folder or a limit.
func LoadLocaleTolerant(layers ...LocaleLayer) (*Locale, error) {
	l, err := loadLocale(layers, true)
	if err != nil {
		return nil, fmt.Errorf("loading locale: %w", err)
	}
	return l, nil
}

// LocaleLayer is one folder of locale resources: language folders under
// Root in FS, laid out as LoadLocale reads them.
type LocaleLayer struct {
	FS   fs.FS
	Root string
	// Name, when set, is joined before paths in errors, warnings and
	// Resource.Path, so they name the real file (e.g. the folder FS was
	// opened on).
	Name string
}

func (l LocaleLayer) show(p string) string {
	if l.Name == "" {
		return p
	}
	return path.Join(l.Name, p)
}

// LoadLocaleLayers loads one skill's resources from several locale
// folders, highest precedence first; RES-02 orders them: the user override
// (…/<skill_id>/locale/), the skill's own locale/, then core. A resource,
// (language, extension, base name), comes whole from the first layer that
// has it, wherever it sits below the language folder: first wins, lines are
// never merged, and the shadowed file is not read (a warning names it).
// Each layer obeys LoadLocale's rules on its own (a duplicate within one
// layer is an error); the chosen files are then validated together as one
// locale, with LoadLocale's guarantees.
func LoadLocaleLayers(layers ...LocaleLayer) (*Locale, error) {
	l, err := loadLocale(layers, false)
	if err != nil {
		return nil, fmt.Errorf("loading layered locale: %w", err)
	}
	return l, nil
}

// loadMode says how a locale is loaded.
type loadMode struct {
	// tolerant refuses malformed files and loads the rest
	// (LoadLocaleTolerant) instead of failing.
	tolerant bool
	// unexpanded checks .intent templates without enumerating their
	// samples (LoadLocaleUnexpanded).
	unexpanded bool
}

type loader struct {
	loc        *Locale
	tolerant   bool
	unexpanded bool
	files      int
	// errs collects errors per path, in the order paths are first seen.
	errs  map[string][]error
	order []string
	// reports holds every file's report by path.
	reports map[string]*FileReport
}

// resKey identifies a resource within one language (RES-01).
type resKey struct {
	role Role
	name string
}

// found is a resource file located but not yet read.
type found struct {
	fsys   fs.FS
	fsPath string // path in fsys
	path   string // path as shown
}

func (ld *loader) fail(file string, err error) {
	if _, ok := ld.errs[file]; !ok {
		ld.order = append(ld.order, file)
	}
	ld.errs[file] = append(ld.errs[file], atFile(err, file))
}

func (ld *loader) warn(file string, line, col int, format string, args ...any) {
	ld.loc.Warnings = append(ld.loc.Warnings, Warning{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// report returns the report of file, making it.
func (ld *loader) report(file, tag string, role Role, name string) *FileReport {
	r := ld.reports[file]
	if r == nil {
		r = &FileReport{Path: file, Lang: tag, Role: role, Name: name, Status: FileLoaded}
		ld.reports[file] = r
	}
	return r
}

// settle marks every file with errors refused, with its reasons, and
// clears the errors; it returns the paths refused.
func (ld *loader) settle() []string {
	var out []string
	for _, file := range ld.order {
		r := ld.report(file, "", "", "")
		r.Status = FileRefused
		errs := ld.errs[file]
		for i, e := range errs {
			if i == MaxErrorsPerFile {
				r.Reasons = append(r.Reasons, fmt.Sprintf("%s: %d more errors", file, len(errs)-i))
				break
			}
			r.Reasons = append(r.Reasons, e.Error())
		}
		out = append(out, file)
	}
	ld.errs, ld.order = map[string][]error{}, nil
	return out
}

func (ld *loader) err() error {
	var all []error
	for _, file := range ld.order {
		errs := ld.errs[file]
		if len(errs) > MaxErrorsPerFile {
			more := len(errs) - MaxErrorsPerFile
			errs = append(errs[:MaxErrorsPerFile:MaxErrorsPerFile], fmt.Errorf("%s: %d more errors", file, more))
		}
		all = append(all, errors.Join(errs...))
	}
	return errors.Join(all...)
}

func loadLocale(layers []LocaleLayer, tolerant bool) (*Locale, error) {
	return loadLocaleWith(layers, loadMode{tolerant: tolerant})
}

func loadLocaleWith(layers []LocaleLayer, mode loadMode) (*Locale, error) {
	if len(layers) == 0 {
		return nil, errors.New("no locale folder given")
	}
	tolerant := mode.tolerant
	ld := &loader{loc: &Locale{Langs: map[string]*Language{}}, tolerant: tolerant, unexpanded: mode.unexpanded,
		errs: map[string][]error{}, reports: map[string]*FileReport{}}
	chosen := map[string]map[resKey]found{} // tag → the winning file of each resource
	for _, layer := range layers {
		if layer.FS == nil {
			return nil, fmt.Errorf("locale folder %s: no file system", layer.show(layer.Root))
		}
		if !fs.ValidPath(layer.Root) {
			return nil, fmt.Errorf("invalid folder path %q", layer.Root)
		}
		entries, err := fs.ReadDir(layer.FS, layer.Root)
		if err != nil {
			return nil, fmt.Errorf("reading locale folder %s: %w", layer.show(layer.Root), err)
		}
		own := map[string]map[resKey]found{}
		for _, ent := range entries {
			p := path.Join(layer.Root, ent.Name())
			shown := layer.show(p)
			if !ent.IsDir() {
				ld.ignore(shown, "", "file outside a language folder; ignored")
				continue
			}
			tag, err := NormalizeLang(ent.Name())
			if err != nil {
				ld.fail(shown, fmt.Errorf("%s: language folder: %w (RES-01)", shown, err))
				continue
			}
			if own[tag] == nil {
				own[tag] = map[resKey]found{}
			}
			if err := ld.walk(layer, tag, p, own[tag]); err != nil {
				return nil, err
			}
		}
		for _, tag := range slices.Sorted(maps.Keys(own)) {
			if chosen[tag] == nil {
				chosen[tag] = map[resKey]found{}
			}
			for _, f := range sortedFound(own[tag]) {
				k := f.key
				if win, ok := chosen[tag][k]; ok {
					ld.warn(f.path, 0, 0, "overridden by %s (RES-02)", win.path)
					r := ld.report(f.path, tag, k.role, k.name)
					r.Status, r.Reasons = FileOverridden, []string{"overridden by " + win.path + " (RES-02)"}
					continue
				}
				chosen[tag][k] = f.found
			}
		}
	}
	byPath := map[string]struct {
		tag string
		key resKey
	}{}
	for _, tag := range slices.Sorted(maps.Keys(chosen)) {
		lang := &Language{Tag: tag, Resources: map[Role]map[string]*Resource{}}
		ld.loc.Langs[tag] = lang
		for _, f := range sortedFound(chosen[tag]) {
			ld.report(f.path, tag, f.key.role, f.key.name)
			res, err := ld.read(f.found, f.key.role, f.key.name)
			if err != nil {
				ld.fail(f.path, err)
				continue
			}
			if lang.Resources[f.key.role] == nil {
				lang.Resources[f.key.role] = map[string]*Resource{}
			}
			lang.Resources[f.key.role][f.key.name] = res
			byPath[f.path] = struct {
				tag string
				key resKey
			}{tag, f.key}
		}
	}
	if len(ld.errs) > 0 {
		if !tolerant {
			return nil, ld.err()
		}
		ld.settle()
	}
	// Validation runs until no file fails: dropping a refused vocabulary
	// can make a template referring to it fail in the next round. Each
	// round drops at least one file, so the rounds are bounded by the
	// number of files.
	base := ld.loc.Warnings
	for {
		ld.loc.Warnings = slices.Clone(base)
		for _, tag := range ld.loc.Languages() {
			ld.validate(ld.loc.Langs[tag])
		}
		if len(ld.errs) == 0 {
			break
		}
		if !tolerant {
			return nil, ld.err()
		}
		for _, file := range ld.settle() {
			if at, ok := byPath[file]; ok {
				delete(ld.loc.Langs[at.tag].Resources[at.key.role], at.key.name)
			}
		}
	}
	ld.parity()
	ld.finishReports()
	return ld.loc, nil
}

// finishReports fills the counts and warnings of loaded files and sorts
// the reports into Locale.Files.
func (ld *loader) finishReports() {
	for _, w := range ld.loc.Warnings {
		if r := ld.reports[w.File]; r != nil && r.Status == FileLoaded {
			r.Warnings = append(r.Warnings, w.String())
		}
	}
	for _, lang := range ld.loc.Langs {
		for _, byName := range lang.Resources {
			for _, res := range byName {
				if r := ld.reports[res.Path]; r != nil {
					r.Lines, r.Samples = len(res.Lines), len(res.Samples)
					if res.Role == RoleValue {
						r.Samples = len(res.Values)
					}
				}
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(ld.reports)) {
		ld.loc.Files = append(ld.loc.Files, *ld.reports[p])
	}
}

// ignore records a file that is not a resource.
func (ld *loader) ignore(file, tag, why string) {
	ld.warn(file, 0, 0, "%s", why)
	r := ld.report(file, tag, "", "")
	r.Status, r.Reasons = FileIgnored, []string{why}
}

type keyedFound struct {
	key resKey
	found
}

// sortedFound lists resources by shown path, so reads, errors and
// warnings come in a stable order.
func sortedFound(m map[resKey]found) []keyedFound {
	out := make([]keyedFound, 0, len(m))
	for k, f := range m {
		out = append(out, keyedFound{k, f})
	}
	sortx.Func(out, func(a, b keyedFound) int { return strings.Compare(a.path, b.path) })
	return out
}

// walk locates every resource file below dir, a language folder of layer,
// into own. It returns an error only for what stops the whole load: an
// unreadable folder or a limit.
func (ld *loader) walk(layer LocaleLayer, tag, dir string, own map[resKey]found) error {
	depth0 := strings.Count(dir, "/")
	var files []string
	err := fs.WalkDir(layer.FS, dir, func(p string, d fs.DirEntry, err error) error {
		shown := layer.show(p)
		if err != nil {
			return fmt.Errorf("reading %s: %w", shown, err)
		}
		if d.IsDir() {
			if strings.Count(p, "/")-depth0 > MaxLocaleDepth {
				return fmt.Errorf("%s: folders nest more than %d deep below the language folder", shown, MaxLocaleDepth)
			}
			return nil
		}
		if ld.files++; ld.files > MaxLocaleFiles {
			return fmt.Errorf("locale has more than %d files", MaxLocaleFiles)
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return err
	}
	// The same resource in two folders: the first by path wins, as
	// ovos-workshop's resource walk finds one file per name.
	slices.Sort(files)
	for _, p := range files {
		shown := layer.show(p)
		base := path.Base(p)
		ext := path.Ext(base)
		role := Role(strings.TrimPrefix(ext, "."))
		if ext == "" || !slices.Contains(roleOrder, role) {
			why := "not a resource file (RES-05); ignored"
			if base == "skill.json" {
				why = "skill metadata (skill.json); not a resource, ignored"
			}
			ld.ignore(shown, tag, why)
			continue
		}
		name := strings.TrimSuffix(base, ext)
		if err := checkBaseName(name); err != nil {
			ld.report(shown, tag, role, name)
			ld.fail(shown, fmt.Errorf("%s: base name %q %w (RES-01)", shown, name, err))
			continue
		}
		k := resKey{role, name}
		if prev, dup := own[k]; dup {
			ld.report(shown, tag, role, name)
			ld.fail(shown, fmt.Errorf("%s: duplicate resource %s%s in language %s, also at %s (RES-01)", shown, name, ext, tag, prev.path))
			continue
		}
		own[k] = found{fsys: layer.FS, fsPath: p, path: shown}
	}
	return nil
}

// MaxBaseNameBytes bounds a resource file's base name.
const MaxBaseNameBytes = 128

// checkBaseName checks a resource's base name as real skills write them:
// dotted, capitalised or hyphenated (what.time.is.it, Greetings,
// clear-sky) are all fine, since ovos-core finds files by name as written.
// What it refuses could not travel as an intent or vocabulary name: an
// empty name or one starting with '.', whitespace, control characters,
// ':' (the dispatch separator, DEF-02) and the template brackets.
func checkBaseName(s string) error {
	switch {
	case s == "" || s[0] == '.':
		return errors.New("is empty or starts with '.'")
	case len(s) > MaxBaseNameBytes:
		return fmt.Errorf("is longer than %d bytes", MaxBaseNameBytes)
	case !utf8.ValidString(s):
		return errors.New("is not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(":()[]{}<>|#", r) {
			return fmt.Errorf("must not contain %q (whitespace, control characters, ':' or template brackets)", r)
		}
	}
	return nil
}

// read reads one file within MaxFileBytes and splits it into lines as its
// role reads them, or keeps it whole for a .prompt.
func (ld *loader) read(f found, role Role, name string) (*Resource, error) {
	p := f.path
	file, err := f.fsys.Open(f.fsPath)
	if err != nil {
		return nil, fmt.Errorf("%s: opening: %w", p, err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading: %w", p, err)
	}
	if len(data) > MaxFileBytes {
		return nil, &SyntaxError{File: p, Kind: ErrTooLarge, Msg: fmt.Sprintf("file is larger than %d bytes", MaxFileBytes)}
	}
	res := &Resource{Role: role, Name: name, Path: p}
	if role == RolePrompt {
		if !utf8.Valid(data) {
			return nil, &SyntaxError{File: p, Kind: ErrEncoding, Msg: "prompt is not valid UTF-8"}
		}
		if strings.TrimFunc(string(data), unicode.IsSpace) == "" {
			return nil, &SyntaxError{File: p, Kind: ErrNoTemplates, Msg: "prompt is empty (RES-07)"}
		}
		res.Text = string(data)
		return res, nil
	}
	// Padatious reads an .entity file line by line with no comments: '#'
	// stands for a digit there ("##" is any two-digit number). A '#' line
	// with words is still a comment (readLines).
	res.Lines, err = readLines(data, role != RoleEntity)
	if err != nil {
		return nil, err
	}
	if role.inputRole() {
		for i := range res.Lines {
			res.Lines[i].Text = ovosInputLine(res.Lines[i].Text)
		}
	}
	return res, nil
}

// ovosInputLine reads an input-direction line as ovos-workshop does: a '|'
// outside any group makes the whole line a choice, so it is wrapped in one
// group; and slot names are lowercased, as ovos-workshop lowercases .intent
// lines ("{Location}" is the slot "location").
func ovosInputLine(text string) string {
	depth, topBar := 0, false
	var b strings.Builder
	inSlot := false
	for _, r := range text {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '{':
			inSlot = true
		case '}':
			inSlot = false
		case '|':
			if depth == 0 && !inSlot {
				topBar = true
			}
		}
		if inSlot {
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	if topBar {
		return "(" + b.String() + ")"
	}
	return b.String()
}

// validate checks every file of one language against the grammar and the
// role rules, in roleOrder.
func (ld *loader) validate(lang *Language) {
	ex := newExpander(lang.Vocab(), DefaultMaxSamples)
	ex.where = func(name string, i int) (string, int, int) {
		r := lang.Resource(RoleVocab, name)
		return r.Path, r.Lines[i].Number, r.Lines[i].Col
	}
	for _, role := range roleOrder {
		for _, name := range lang.Names(role) {
			res := lang.Resource(role, name)
			switch role {
			case RoleRequired:
				ld.required(lang, res)
			case RolePrompt:
			case RoleDialog:
				ld.dialog(res)
			case RoleRegex:
				ld.regex(res)
			case RoleValue:
				ld.values(res)
			case RoleWord, RoleList:
				ld.plain(res)
			default:
				ld.templates(lang, ex, res)
			}
		}
	}
	// A vocabulary's warnings come once from its own file and again from
	// the expander that resolved it.
	ld.loc.Warnings = dedupeWarnings(append(ld.loc.Warnings, ex.warnings...))
}

// templates validates the lines of an input-direction role and fills
// Samples and Slots.
func (ld *loader) templates(lang *Language, ex *expander, res *Resource) {
	slotsAllowed := res.Role == RoleIntent
	slotNamed := res.Role == RoleEntity || (res.Role == RoleBlacklist && lang.Resource(RoleIntent, res.Name) == nil)
	if slotNamed && !validName(res.Name) {
		ld.fail(res.Path, fmt.Errorf("%s: base name %q names a slot and must match [a-z_][a-z0-9_]* (RES-01, GRM-04)", res.Path, res.Name))
	}
	res.SlotTypes = nil
	var all, slots []string
	for _, line := range res.Lines {
		t, err := parse(line.Text, line.Number, line.Col)
		if err != nil {
			ld.fail(res.Path, err)
			continue
		}
		var samples []string
		if ld.unexpanded && res.Role == RoleIntent {
			err = ex.check(t)
		} else {
			samples, err = ex.expand(t)
		}
		if err != nil {
			ld.fail(res.Path, err)
			continue
		}
		ld.loc.Warnings = append(ld.loc.Warnings, withFile(t.Warnings(), res.Path)...)
		names := t.SlotNames()
		if !slotsAllowed && len(names) > 0 {
			s := t.slots[0]
			ld.fail(res.Path, &SyntaxError{Line: s.Line, Col: s.Col, Token: "{" + s.Name + "}", Kind: ErrBadName,
				Msg: fmt.Sprintf("slot {%s} in a %s file; slots mean something only in .intent and .dialog (GRM-04)", s.Name, res.Role.Ext())})
			continue
		}
		if n, bad := t.unnormalisedText(); bad {
			ld.warn(res.Path, n.line, n.col, "text %q is not ASR-normalised (GRM-02); engines normalise it", strings.TrimSpace(n.text))
		}
		if res.Role == RoleIntent {
			for _, s := range t.slots {
				if s.Type == "" {
					continue
				}
				if res.SlotTypes == nil {
					res.SlotTypes = map[string]string{}
				}
				if prev, ok := res.SlotTypes[s.Name]; ok && prev != s.Type {
					ld.warn(res.Path, s.Line, s.Col, "slot {%s} typed %q here and %q earlier; keeping %q", s.Name, s.Type, prev, prev)
					continue
				}
				res.SlotTypes[s.Name] = s.Type
			}
		}
		slots = append(slots, names...)
		all = append(all, samples...)
	}
	slices.Sort(all)
	res.Samples = slices.Compact(all)
	slices.Sort(slots)
	res.Slots = slices.Compact(slots)
}

// dialog expands every line of a .dialog (ExpandDialogLine) into Samples,
// and its slots into Slots. Lines may name different slots: a render says
// only a line whose slots all have values (GRM-13), so GRM-16 is a
// warning here (docs/ovos-locales.md).
func (ld *loader) dialog(res *Resource) {
	var phrases, slots []string
	var first []string
	firstLine := 0
	warned := false
	for _, line := range res.Lines {
		got, err := ExpandDialogLine(line.Text, DefaultMaxSamples)
		if err != nil {
			var se *SyntaxError
			if errors.As(err, &se) {
				se.Line, se.Col = line.Number, line.Col+max(se.Col, 1)-1
			}
			ld.fail(res.Path, err)
			continue
		}
		var names []string
		for _, p := range got {
			names = append(names, DialogSlots(p)...)
			if !slices.Contains(phrases, p) {
				phrases = append(phrases, p)
			}
		}
		slices.Sort(names)
		names = slices.Compact(names)
		if firstLine == 0 {
			first, firstLine = names, line.Number
		} else if !warned && !slices.Equal(names, first) {
			warned = true
			ld.warn(res.Path, line.Number, line.Col, "declares slots %v but line %d declares %v; a render says only lines whose slots all have values (GRM-16 relaxed)",
				orNone(names), firstLine, orNone(first))
		}
		slots = append(slots, names...)
	}
	res.Samples = phrases
	slices.Sort(slots)
	res.Slots = slices.Compact(slots)
}

func orNone(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// regex checks that every line of an .rx parses. The parser alone, not
// package regexp: nothing on the robot runs the expressions, and regexp's
// engine would weigh more than every use of it (docs/size.md).
func (ld *loader) regex(res *Resource) {
	res.Samples = nil
	for _, line := range res.Lines {
		if _, err := syntax.Parse(line.Text, syntax.Perl); err != nil {
			ld.fail(res.Path, &SyntaxError{Line: line.Number, Col: line.Col, Kind: ErrBadRegex,
				Msg: fmt.Sprintf("regular expression does not compile (Go RE2 syntax): %v", err)})
			continue
		}
		res.Samples = append(res.Samples, line.Text)
	}
}

// values reads "name,value" lines. As ovos-workshop does, a line that is
// not one pair is skipped (a warning names it) and the rest load; a file
// with no pair at all is refused.
func (ld *loader) values(res *Resource) {
	res.Values = map[string]string{}
	for _, line := range res.Lines {
		name, value, ok := strings.Cut(line.Text, ",")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || strings.Contains(value, ",") || name == "" || value == "" {
			ld.warn(res.Path, line.Number, line.Col, "not one \"name,value\" pair; skipped")
			continue
		}
		if _, dup := res.Values[name]; dup {
			ld.warn(res.Path, line.Number, line.Col, "name %q again; the later value wins", name)
		}
		res.Values[name] = value
	}
	if len(res.Values) == 0 {
		ld.fail(res.Path, &SyntaxError{Kind: ErrNoTemplates, Msg: "no \"name,value\" line"})
	}
}

// plain keeps a .word's first line or a .list's lines as written.
func (ld *loader) plain(res *Resource) {
	res.Samples = lineTexts(res.Lines)
	if res.Role == RoleWord {
		if len(res.Lines) > 1 {
			ld.warn(res.Path, res.Lines[1].Number, res.Lines[1].Col, "a .word holds one word; only line %d is used", res.Lines[0].Number)
		}
		res.Samples = res.Samples[:1]
	}
}

// required checks a .required file: each line a slot name that some
// template of the paired intent declares (RES-08).
func (ld *loader) required(lang *Language, res *Resource) {
	in := lang.Resource(RoleIntent, res.Name)
	if in == nil {
		ld.fail(res.Path, fmt.Errorf("%s: no %s.intent in language %s to pair with (RES-08)", res.Path, res.Name, lang.Tag))
		return
	}
	var names []string
	for _, line := range res.Lines {
		switch {
		case !validName(line.Text):
			ld.fail(res.Path, &SyntaxError{Line: line.Number, Col: line.Col, Token: line.Text, Kind: ErrBadName,
				Msg: fmt.Sprintf("required slot %q must match [a-z_][a-z0-9_]* (RES-08, GRM-04)", line.Text)})
		case !slices.Contains(in.Slots, line.Text):
			ld.fail(res.Path, &SyntaxError{Line: line.Number, Col: line.Col, Token: line.Text, Kind: ErrUndeclaredSlot,
				Msg: fmt.Sprintf("required slot %q is not declared by any template of %s (RES-08)", line.Text, in.Path)})
		default:
			names = append(names, line.Text)
		}
	}
	slices.Sort(names)
	res.Samples = slices.Compact(names)
}

// parity reports resources missing from some languages and intents whose
// slot names differ between languages (RES-03), and untyped slots without
// an .entity (RES-09).
func (ld *loader) parity() {
	tags := ld.loc.Languages()
	var out []Finding
	for _, role := range roleOrder {
		if role == RoleBlacklist || role == RolePrompt {
			continue
		}
		names := map[string][]string{} // name → languages that have it
		for _, tag := range tags {
			for _, name := range ld.loc.Langs[tag].Names(role) {
				names[name] = append(names[name], tag)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(names)) {
			have := names[name]
			for _, tag := range tags {
				if !slices.Contains(have, tag) {
					out = append(out, Finding{Kind: FindingMissing, Lang: tag, Role: role, Name: name,
						Msg: fmt.Sprintf("present in %s, missing here (RES-03)", strings.Join(have, ", "))})
				}
			}
			if role != RoleIntent || len(have) < 2 {
				continue
			}
			ref := ld.loc.Langs[have[0]].Resource(role, name).Slots
			for _, tag := range have[1:] {
				if got := ld.loc.Langs[tag].Resource(role, name).Slots; !slices.Equal(got, ref) {
					out = append(out, Finding{Kind: FindingSlotMismatch, Lang: tag, Role: role, Name: name,
						Msg: fmt.Sprintf("slots %v here, %v in %s (RES-03)", got, ref, have[0])})
				}
			}
		}
	}
	for _, tag := range tags {
		lang := ld.loc.Langs[tag]
		for _, name := range lang.Names(RoleIntent) {
			in := lang.Resource(RoleIntent, name)
			for _, slot := range in.Slots {
				if _, typed := in.SlotTypes[slot]; !typed && lang.Resource(RoleEntity, slot) == nil {
					out = append(out, Finding{Kind: FindingNoEntity, Lang: tag, Role: RoleIntent, Name: name,
						Msg: fmt.Sprintf("untyped slot {%s} has no %s.entity (RES-09)", slot, slot)})
				}
			}
		}
	}
	ld.loc.Findings = out
}
