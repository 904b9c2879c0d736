package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/internal/ascii"
	"github.com/openjibo/jibod/internal/strictjson"
)

// CatalogPath is where a hub serves its Catalog (GET, bearer auth).
const CatalogPath = "/v1/skills"

// Limits on a catalog, checked by DecodeCatalog and Validate.
const (
	// MaxCatalogSize bounds an encoded catalog in bytes.
	MaxCatalogSize = 4 << 20
	// MaxCatalogSkills bounds the skills of one catalog.
	MaxCatalogSkills = 256
	// MaxCatalogLangs bounds the languages of one skill's locale.
	MaxCatalogLangs = 32
	// MaxCatalogFiles bounds the files of one language of one skill.
	MaxCatalogFiles = 256
	// MaxCatalogFileSize bounds one locale file's content in bytes.
	MaxCatalogFileSize = 64 << 10
	// MaxCatalogFileName bounds a locale file's name in bytes.
	MaxCatalogFileName = 128
	// MaxCatalogText bounds a skill's name and version in bytes; its
	// description may be 16 times as long.
	MaxCatalogText = 256
	// MaxCatalogRules bounds the answer rules of one skill: as many as a
	// skill on the robot may ship (skill.MaxRulesPerSkill).
	MaxCatalogRules = 64
	// MaxCatalogRuleName bounds an answer rule's name in bytes.
	MaxCatalogRuleName = 64
)

// Catalog is what a hub advertises at CatalogPath: its skills, their
// intents and the locale files that train them, so a robot can match
// remote intents with its own engines and send CLIENT_NLU.
type Catalog struct {
	// Skills are the hub's skills.
	Skills []CatalogSkill `json:"skills"`
}

// CatalogSkill is one skill a hub serves.
type CatalogSkill struct {
	// ID is "namespace/name" (registry.ParseID); the robot's proxy skill
	// has this manifest id.
	ID string `json:"id"`
	// Name is for people.
	Name string `json:"name"`
	// Description says what the skill does.
	Description string `json:"description"`
	// Version is the skill's version.
	Version string `json:"version"`
	// Config is the skill's manifest (jibo.md §2.6); its id is ID and its
	// intent names are unique across the catalog.
	Config protocol.ManifestSkillConfig `json:"config"`
	// Locale maps a language tag ("en-US") to file name ("play.intent",
	// "answer.entity", "yes.voc", "hello.dialog") to content.
	Locale map[string]map[string]string `json:"locale"`
	// Rules are the skill's answer rules: rule name ("answer", a folder
	// name of the skill's rules) to language tag to file name to content,
	// with the files of Locale (.intent, .entity, .voc; .dialog is kept
	// but unused). The robot understands an answer to the skill's
	// question with them, as rule "<bus id>/<rule>" ("openjibo.trivia/answer"),
	// and sends CLIENT_NLU; its speech recogniser hears the answers they
	// list. Optional: a catalog without it is valid.
	Rules map[string]map[string]map[string]string `json:"rules,omitempty"`
}

var (
	nameFirst = ascii.NewSet("A-Za-z0-9_")
	ruleRest  = ascii.NewSet("A-Za-z0-9_-")
	fileRest  = ascii.NewSet("A-Za-z0-9_.-")
)

// isLangTag reports whether s is a language and at most three subtags:
// `^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$`.
func isLangTag(s string) bool { return ascii.Tag(s, 2, 3, 2, 8, 3) }

// isRuleName reports whether s is a plain folder name: `^[A-Za-z0-9_][A-Za-z0-9_-]*$`.
func isRuleName(s string) bool { return ascii.Name(s, nameFirst, ruleRest, 0) }

// isFileName reports whether s is a locale file's name:
// `^[A-Za-z0-9_][A-Za-z0-9_.-]*\.(intent|entity|voc|dialog)$`.
func isFileName(s string) bool {
	for _, ext := range []string{".intent", ".entity", ".voc", ".dialog"} {
		if stem, ok := strings.CutSuffix(s, ext); ok {
			return ascii.Name(stem, nameFirst, fileRest, 0)
		}
	}
	return false
}

// DecodeCatalog decodes and validates a catalog (JSON). Members it does not
// model are ignored, so hubs may add some.
func DecodeCatalog(b []byte) (*Catalog, error) {
	if len(b) > MaxCatalogSize {
		return nil, fmt.Errorf("decode skill catalog: %w: %d bytes, limit %d", protocol.ErrLimit, len(b), MaxCatalogSize)
	}
	if !utf8.Valid(b) {
		return nil, errors.New("decode skill catalog: not valid UTF-8")
	}
	var c Catalog
	if err := strictjson.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("decode skill catalog: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("decode skill catalog: %w", err)
	}
	return &c, nil
}

// Encode validates the catalog and encodes it as JSON.
func (c *Catalog) Encode() ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("encode skill catalog: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode skill catalog: %w", err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) > MaxCatalogSize {
		return nil, fmt.Errorf("encode skill catalog: %w: %d bytes, limit %d", protocol.ErrLimit, len(b), MaxCatalogSize)
	}
	return b, nil
}

// Validate checks the catalog against the limits above: skill ids valid
// and distinct, each config valid with the skill's id, intent names unique
// across skills, language tags well formed, file names plain
// (*.intent|*.entity|*.voc|*.dialog, no path), contents valid UTF-8 within
// MaxCatalogFileSize, and each .intent file naming an intent of its skill's
// config (anything else would be matched on the robot and routed nowhere).
// Errors name the offending skill and member.
func (c *Catalog) Validate() error {
	if len(c.Skills) > MaxCatalogSkills {
		return fmt.Errorf("skills: %d skills, limit %d: %w", len(c.Skills), MaxCatalogSkills, protocol.ErrLimit)
	}
	ids := make(map[string]int, len(c.Skills))
	owner := make(map[string]string) // intent name → skill id
	for i := range c.Skills {
		s := &c.Skills[i]
		if err := s.validate(); err != nil {
			return fmt.Errorf("skills[%d] (%q): %w", i, clip(s.ID), err)
		}
		if j, dup := ids[s.ID]; dup {
			return fmt.Errorf("skills[%d]: id %q repeats skills[%d]", i, s.ID, j)
		}
		ids[s.ID] = i
		for _, name := range s.intentNames() {
			if other, dup := owner[name]; dup {
				return fmt.Errorf("skills[%d] (%q): intent %q is also an intent of %q; intent names are unique on one hub",
					i, s.ID, name, other)
			}
			owner[name] = s.ID
		}
	}
	return nil
}

// SkillForIntent returns the id of the skill that has intent name.
func (c *Catalog) SkillForIntent(name string) (string, bool) {
	for i := range c.Skills {
		if slices.Contains(c.Skills[i].intentNames(), name) {
			return c.Skills[i].ID, true
		}
	}
	return "", false
}

// intentNames are the skill's distinct intent names in config order.
func (s *CatalogSkill) intentNames() []string {
	var names []string
	for _, in := range s.Config.Intents {
		if !slices.Contains(names, in.Name) {
			names = append(names, in.Name)
		}
	}
	return names
}

func (s *CatalogSkill) validate() error {
	if err := registry.ParseID(s.ID); err != nil {
		return fmt.Errorf("id: %w", err)
	}
	for _, f := range []struct {
		name, v string
		limit   int
	}{{"name", s.Name, MaxCatalogText}, {"version", s.Version, MaxCatalogText}, {"description", s.Description, 16 * MaxCatalogText}} {
		if len(f.v) > f.limit {
			return fmt.Errorf("%s: %d bytes, limit %d: %w", f.name, len(f.v), f.limit, protocol.ErrLimit)
		}
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("%s: not valid UTF-8", f.name)
		}
	}
	if err := s.Config.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if s.Config.ID != s.ID {
		return fmt.Errorf("config.id: %q, want the skill's id %q", clip(s.Config.ID), s.ID)
	}
	if len(s.Locale) > MaxCatalogLangs {
		return fmt.Errorf("locale: %d languages, limit %d: %w", len(s.Locale), MaxCatalogLangs, protocol.ErrLimit)
	}
	intents := s.intentNames()
	for _, lang := range slices.Sorted(maps.Keys(s.Locale)) {
		if !isLangTag(lang) {
			return fmt.Errorf("locale: language %q: want a tag like en-US", clip(lang))
		}
		files := s.Locale[lang]
		if len(files) > MaxCatalogFiles {
			return fmt.Errorf("locale.%s: %d files, limit %d: %w", lang, len(files), MaxCatalogFiles, protocol.ErrLimit)
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			if err := checkLocaleFile(name, files[name], intents); err != nil {
				return fmt.Errorf("locale.%s: %w", lang, err)
			}
		}
	}
	return s.validateRules()
}

// validateRules checks the answer rules: names plain folder names, each
// rule's languages and files as Locale's, and at least one .intent file
// per rule (a rule without answers would be refused by the robot's host).
func (s *CatalogSkill) validateRules() error {
	if len(s.Rules) > MaxCatalogRules {
		return fmt.Errorf("rules: %d rules, limit %d: %w", len(s.Rules), MaxCatalogRules, protocol.ErrLimit)
	}
	for _, rule := range slices.Sorted(maps.Keys(s.Rules)) {
		if len(rule) > MaxCatalogRuleName || !isRuleName(rule) {
			return fmt.Errorf("rules: rule %q: want a plain name of letters, digits, '_' and '-' (at most %d bytes)",
				clip(rule), MaxCatalogRuleName)
		}
		langs := s.Rules[rule]
		if len(langs) > MaxCatalogLangs {
			return fmt.Errorf("rules.%s: %d languages, limit %d: %w", rule, len(langs), MaxCatalogLangs, protocol.ErrLimit)
		}
		hasIntent := false
		for _, lang := range slices.Sorted(maps.Keys(langs)) {
			if !isLangTag(lang) {
				return fmt.Errorf("rules.%s: language %q: want a tag like en-US", rule, clip(lang))
			}
			files := langs[lang]
			if len(files) > MaxCatalogFiles {
				return fmt.Errorf("rules.%s.%s: %d files, limit %d: %w", rule, lang, len(files), MaxCatalogFiles, protocol.ErrLimit)
			}
			for _, name := range slices.Sorted(maps.Keys(files)) {
				// A rule's intents are its answers, not the skill's launch
				// intents, so their names need not be in config.intents.
				if err := checkFile(name, files[name]); err != nil {
					return fmt.Errorf("rules.%s.%s: %w", rule, lang, err)
				}
				hasIntent = hasIntent || strings.HasSuffix(name, ".intent")
			}
		}
		if !hasIntent {
			return fmt.Errorf("rules.%s: no .intent file: a rule lists the answers it understands", rule)
		}
	}
	return nil
}

func checkLocaleFile(name, content string, intents []string) error {
	if err := checkFile(name, content); err != nil {
		return err
	}
	if base, ok := strings.CutSuffix(name, ".intent"); ok && !slices.Contains(intents, base) {
		return fmt.Errorf("file %q: intent %q is not in the skill's config.intents", name, base)
	}
	return nil
}

// checkFile checks a locale or rule file's name and content.
func checkFile(name, content string) error {
	if len(name) > MaxCatalogFileName || !isFileName(name) || strings.Contains(name, "..") {
		return fmt.Errorf("file %q: want a plain name ending .intent, .entity, .voc or .dialog (no path, at most %d bytes)",
			clip(name), MaxCatalogFileName)
	}
	if len(content) > MaxCatalogFileSize {
		return fmt.Errorf("file %q: %d bytes, limit %d: %w", name, len(content), MaxCatalogFileSize, protocol.ErrLimit)
	}
	if !utf8.ValidString(content) {
		return fmt.Errorf("file %q: not valid UTF-8", name)
	}
	return nil
}

// clip shortens a value echoed in an error.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
