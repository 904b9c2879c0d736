package paraphrase

import (
	"github.com/openjibo/jibod/core/intent"
)

// kind is what one element of a template is.
type kind uint8

// The kinds are core/intent's element kinds.
const (
	kText  = kind(intent.ElementText)
	kSlot  = kind(intent.ElementSlot)
	kVocab = kind(intent.ElementVocab)
	kGroup = kind(intent.ElementGroup)
)

// elem is one element of a parsed template: literal text, a slot, a
// vocabulary reference, or a group of alternative sequences. An optional
// [x] is the group (x|), as OVOS-INTENT-1 §3.2 rewrites it.
type elem struct {
	kind     kind
	text     string // literal text
	name     string // slot or vocabulary name
	typ      string // slot type prefix ("duration" in {duration:d})
	branches [][]elem
}

// parseTemplate parses a template with the grammar's own parser, so a bad
// one gets the same error as anywhere else, and reads its structure.
func parseTemplate(src string) ([]elem, error) {
	t, err := intent.Parse(src)
	if err != nil {
		return nil, err
	}
	return fromElements(t.Elements()), nil
}

// fromElements is a template's structure as the sampler reads it.
func fromElements(es []intent.Element) []elem {
	if len(es) == 0 {
		return nil
	}
	out := make([]elem, len(es))
	for i, e := range es {
		x := elem{kind: kind(e.Kind), text: e.Text, name: e.Name, typ: e.Type}
		if x.kind == kSlot && !intent.IsRegisteredSlotType(x.typ) {
			x.typ = "" // GRM-05: an unregistered type reads as a plain slot
		}
		if len(e.Branches) > 0 {
			x.branches = make([][]elem, len(e.Branches))
			for j, b := range e.Branches {
				x.branches[j] = fromElements(b)
			}
		}
		out[i] = x
	}
	return out
}
