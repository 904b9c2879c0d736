package intent

import (
	"errors"
	"fmt"
)

// KeywordIntentFromPayload reads an ovos.intent.register.keyword payload
// (REG-05) registered in sessionID: {skill_id, intent_name, lang, required,
// optional, one_of, excluded}, each list of descriptors {name, samples}.
// Absent lists are empty; unknown fields are ignored (the caller keeps the
// payload for the manifest). A field of the wrong type is an error naming
// it, e.g. "one_of[1][0].samples[2]: want string". What the payload means
// (DEF-05, REG-05) is checked by KeywordEngine.Register.
func KeywordIntentFromPayload(sessionID string, d map[string]any) (KeywordIntent, error) {
	k, err := readKey(d, "intent_name")
	if err != nil {
		return KeywordIntent{}, err
	}
	if k.lang == "" {
		return KeywordIntent{}, errors.New("lang missing")
	}
	def := KeywordIntent{SessionID: sessionID, SkillID: k.skill, IntentName: k.intent, Lang: k.lang}
	if def.Required, err = descriptors(d["required"], "required"); err != nil {
		return def, err
	}
	if def.Optional, err = descriptors(d["optional"], "optional"); err != nil {
		return def, err
	}
	if def.Excluded, err = descriptors(d["excluded"], "excluded"); err != nil {
		return def, err
	}
	if v := d["one_of"]; v != nil {
		groups, ok := v.([]any)
		if !ok {
			return def, errors.New("one_of: want array of arrays of descriptors")
		}
		for g, group := range groups {
			ds, err := descriptors(group, fmt.Sprintf("one_of[%d]", g))
			if err != nil {
				return def, err
			}
			if ds == nil {
				ds = []KeywordVocab{}
			}
			def.OneOf = append(def.OneOf, ds)
		}
	}
	return def, nil
}

// descriptors reads a list of {name, samples} descriptors; nil is empty.
func descriptors(v any, field string) ([]KeywordVocab, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want array of descriptors", field)
	}
	var out []KeywordVocab
	for i, e := range list {
		where := fmt.Sprintf("%s[%d]", field, i)
		o, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want descriptor object {name, samples}", where)
		}
		name, ok := o["name"].(string)
		if !ok {
			return nil, fmt.Errorf("%s.name: want string", where)
		}
		samples, err := optStrings(o, "samples")
		if err != nil {
			return nil, fmt.Errorf("%s.%w", where, err)
		}
		out = append(out, KeywordVocab{Name: name, Samples: samples})
	}
	return out, nil
}
