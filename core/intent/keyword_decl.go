package intent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openjibo/jibod/core/bus"
)

// Limits on keyword intent declarations.
const (
	// MaxKeywordDecls bounds the keyword intents one skill declares.
	MaxKeywordDecls = 256
	// MaxDeclVocabs bounds the vocabulary names of one declaration, over
	// all its roles.
	MaxDeclVocabs = 32
)

// KeywordDecl declares a keyword (Adapt-style) intent as an OVOS skill
// does in code with IntentBuilder: IntentBuilder("HelloWorldIntent").
// require("HelloWorldKeyword") is KeywordDecl{Name: "HelloWorldIntent",
// Require: []string{"HelloWorldKeyword"}}. Each name is the base name of a
// .voc file, looked up in every language of the skill's locale.
type KeywordDecl struct {
	Name       string     // the intent name
	Require    []string   // vocabularies that must all occur
	Optionally []string   // vocabularies captured when they occur
	OneOf      [][]string // groups; each needs one member to occur
	Exclude    []string   // vocabularies that veto the match
}

// Validate checks a declaration on its own: a name, at least one required
// vocabulary or one-of group, no vocabulary under two roles (DEF-05), names
// a .voc file could have (checkBaseName), and the limits.
func (d KeywordDecl) Validate() error {
	if err := validID("intent name", d.Name, false); err != nil {
		return err
	}
	if len(d.Require) == 0 && len(d.OneOf) == 0 {
		return fmt.Errorf("keyword intent %s: needs a required vocabulary or a one_of group (DEF-05)", d.Name)
	}
	seen := map[string]string{}
	n := 0
	check := func(role string, names []string) error {
		for _, v := range names {
			if n++; n > MaxDeclVocabs {
				return fmt.Errorf("keyword intent %s: more than %d vocabularies", d.Name, MaxDeclVocabs)
			}
			if err := checkBaseName(v); err != nil {
				return fmt.Errorf("keyword intent %s: %s: vocabulary %q %w", d.Name, role, v, err)
			}
			if prev, ok := seen[v]; ok && prev != role {
				return fmt.Errorf("keyword intent %s: vocabulary %q under both %s and %s (DEF-05)", d.Name, v, prev, role)
			}
			seen[v] = role
		}
		return nil
	}
	if err := check("require", d.Require); err != nil {
		return err
	}
	if err := check("optionally", d.Optionally); err != nil {
		return err
	}
	for i, g := range d.OneOf {
		if len(g) == 0 {
			return fmt.Errorf("keyword intent %s: one_of[%d] is empty", d.Name, i)
		}
		if err := check("one_of", g); err != nil {
			return err
		}
	}
	return check("exclude", d.Exclude)
}

// KeywordPayload builds the REG-05 payload of d in this language, each
// vocabulary's samples read from its .voc file. A vocabulary the language
// has no .voc for (or whose .voc was refused) is an error naming it.
func (l *Language) KeywordPayload(skillID string, d KeywordDecl) (map[string]any, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	var missing []string
	descs := func(names []string) []any {
		out := make([]any, 0, len(names))
		for _, n := range names {
			r := l.Resource(RoleVocab, n)
			if r == nil {
				missing = append(missing, n)
				continue
			}
			samples := make([]any, len(r.Samples))
			for i, s := range r.Samples {
				samples[i] = s
			}
			out = append(out, map[string]any{"name": n, "samples": samples})
		}
		return out
	}
	data := map[string]any{"skill_id": skillID, "intent_name": d.Name, "lang": l.Tag,
		"required": descs(d.Require), "optional": descs(d.Optionally), "excluded": descs(d.Exclude)}
	groups := make([]any, 0, len(d.OneOf))
	for _, g := range d.OneOf {
		groups = append(groups, descs(g))
	}
	data["one_of"] = groups
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("keyword intent %s in %s: no .voc for %s", d.Name, l.Tag, strings.Join(slices.Compact(missing), ", "))
	}
	return data, nil
}

// KeywordMessages returns the ovos.intent.register.keyword broadcasts
// (REG-05) of decls in every language of loc, derived like
// RegistrationMessages'. A declaration that cannot be built in a language
// (a .voc missing there) is left out and its error returned with the
// others; the rest are registered.
func KeywordMessages(loc *Locale, skillID string, decls []KeywordDecl) ([]bus.Message, []error) {
	if len(decls) > MaxKeywordDecls {
		return nil, []error{fmt.Errorf("%d keyword intents, limit is %d", len(decls), MaxKeywordDecls)}
	}
	origin := bus.NewMessage(TopicSkillRegister, nil)
	origin.Context[bus.KeySource] = skillID
	origin.Context[bus.KeySkillID] = skillID
	var out []bus.Message
	var errs []error
	names := map[string]bool{}
	for _, d := range decls {
		if names[d.Name] {
			errs = append(errs, fmt.Errorf("keyword intent %s declared twice", d.Name))
			continue
		}
		names[d.Name] = true
		if err := d.Validate(); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, tag := range loc.Languages() {
			data, err := loc.Langs[tag].KeywordPayload(skillID, d)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, origin.Forward(TopicRegisterKeyword, data))
		}
	}
	return out, errs
}
