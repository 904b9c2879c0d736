package registry

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Limits on keyword_intents.
const (
	// MaxKeywordIntents bounds keyword_intents.
	MaxKeywordIntents = 64
	// MaxKeywordVocabs bounds the vocabulary names of one keyword intent,
	// over all its roles.
	MaxKeywordVocabs = 16
)

// KeywordIntent declares a keyword (Adapt-style) intent, as an OVOS skill
// declares one in code with IntentBuilder("Name").require("A").
// optionally("B").one_of("C", "D").exclude("E"). Each vocabulary is the
// base name of a .voc file in the skill's locale. In JSON:
//
//	{"name": "HelloWorldIntent", "require": ["HelloWorldKeyword"],
//	 "optionally": [], "one_of": [["C", "D"]], "exclude": []}
type KeywordIntent struct {
	Name       string     `json:"name"`
	Require    []string   `json:"require,omitempty"`
	Optionally []string   `json:"optionally,omitempty"`
	OneOf      [][]string `json:"one_of,omitempty"`
	Exclude    []string   `json:"exclude,omitempty"`
}

func (k KeywordIntent) clone() KeywordIntent {
	c := k
	c.Require = slices.Clone(k.Require)
	c.Optionally = slices.Clone(k.Optionally)
	c.Exclude = slices.Clone(k.Exclude)
	c.OneOf = nil
	for _, g := range k.OneOf {
		c.OneOf = append(c.OneOf, slices.Clone(g))
	}
	return c
}

// readKeywordIntents reads the optional keyword_intents member.
func readKeywordIntents(root *object) ([]KeywordIntent, error) {
	raw, ok := root.m["keyword_intents"]
	if !ok {
		return nil, nil
	}
	if k := kind(raw); k != "an array" {
		return nil, fieldErr("keyword_intents", "is %s, want an array of objects", k)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fieldErr("keyword_intents", "%v", err)
	}
	if len(items) > MaxKeywordIntents {
		return nil, fieldErr("keyword_intents", "%d intents, limit %d", len(items), MaxKeywordIntents)
	}
	out := make([]KeywordIntent, 0, len(items))
	for i, it := range items {
		path := fmt.Sprintf("keyword_intents[%d]", i)
		o, err := readObject(it, path)
		if err != nil {
			return nil, err
		}
		if err := o.allow("name", "require", "optionally", "one_of", "exclude"); err != nil {
			return nil, err
		}
		var k KeywordIntent
		if k.Name, err = o.str("name"); err != nil {
			return nil, err
		}
		for _, f := range []struct {
			name string
			dst  *[]string
		}{{"require", &k.Require}, {"optionally", &k.Optionally}, {"exclude", &k.Exclude}} {
			if *f.dst, err = o.strs(f.name); err != nil {
				return nil, err
			}
		}
		if g, ok := o.m["one_of"]; ok {
			if kd := kind(g); kd != "an array" {
				return nil, fieldErr(path+".one_of", "is %s, want an array of arrays of strings", kd)
			}
			var groups []json.RawMessage
			if err := json.Unmarshal(g, &groups); err != nil {
				return nil, fieldErr(path+".one_of", "%v", err)
			}
			for j, grp := range groups {
				wrap := &object{path: path, m: map[string]json.RawMessage{fmt.Sprintf("one_of[%d]", j): grp}}
				names, err := wrap.strs(fmt.Sprintf("one_of[%d]", j))
				if err != nil {
					return nil, err
				}
				k.OneOf = append(k.OneOf, names)
			}
		}
		out = append(out, k)
	}
	return out, nil
}

// validateKeywordIntents checks keyword_intents: names, at least one
// required vocabulary or one-of group each, no vocabulary under two roles
// of one intent (DEF-05), no intent twice.
func (m *Manifest) validateKeywordIntents() error {
	if len(m.KeywordIntents) > MaxKeywordIntents {
		return fieldErr("keyword_intents", "%d intents, limit %d", len(m.KeywordIntents), MaxKeywordIntents)
	}
	seen := map[string]int{}
	for i, k := range m.KeywordIntents {
		path := fmt.Sprintf("keyword_intents[%d]", i)
		if !validIntentName(k.Name) {
			return fieldErr(path+".name", "%q is not an intent name ([A-Za-z0-9][A-Za-z0-9_.-]*, at most %d bytes)", k.Name, MaxIntentNameLen)
		}
		if j, dup := seen[k.Name]; dup {
			return fieldErr(path+".name", "%q is declared twice (also at [%d])", k.Name, j)
		}
		seen[k.Name] = i
		if len(k.Require) == 0 && len(k.OneOf) == 0 {
			return fieldErr(path, "needs a require vocabulary or a one_of group")
		}
		roles := map[string]string{}
		n := 0
		check := func(role string, names []string) error {
			for j, v := range names {
				if n++; n > MaxKeywordVocabs {
					return fieldErr(path, "more than %d vocabularies", MaxKeywordVocabs)
				}
				if !validIntentName(v) {
					return fieldErr(fmt.Sprintf("%s.%s[%d]", path, role, j), "%q is not a .voc base name ([A-Za-z0-9][A-Za-z0-9_.-]*)", v)
				}
				if prev, ok := roles[v]; ok && prev != role {
					return fieldErr(fmt.Sprintf("%s.%s[%d]", path, role, j), "%q is also under %s", v, prev)
				}
				roles[v] = role
			}
			return nil
		}
		if err := check("require", k.Require); err != nil {
			return err
		}
		if err := check("optionally", k.Optionally); err != nil {
			return err
		}
		for j, g := range k.OneOf {
			if len(g) == 0 {
				return fieldErr(fmt.Sprintf("%s.one_of[%d]", path, j), "is empty")
			}
			if err := check("one_of", g); err != nil {
				return err
			}
		}
		if err := check("exclude", k.Exclude); err != nil {
			return err
		}
	}
	return nil
}
