package intent

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExpandWorkedExamples reproduces every worked example of §3.2 plus the
// cases the requirements call out, comparing sorted sample sets (GRM-10).
func TestExpandWorkedExamples(t *testing.T) {
	vocab := map[string][]string{
		"device": {"lamp", "(tv|television)"},
		"outer":  {"x <inner>"},
		"inner":  {"y", "z"},
		"the":    {"[the] lamp"},
	}
	tests := []struct {
		name     string
		template string
		want     []string
		warn     string // substring of the only warning, "" for none
	}{
		{"GRM-03 empty branch", "open (the|) (door|gate)",
			[]string{"open door", "open gate", "open the door", "open the gate"}, ""},
		{"GRM-01 nested optionals", "[[very] big] dog", []string{"big dog", "dog", "very big dog"}, ""},
		{"GRM-01 optional in alternative", "x (a|[b]) y", []string{"x a y", "x b y", "x y"}, ""},
		{"GRM-01 nested alternatives", "(a|(b|c)) d", []string{"a d", "b d", "c d"}, ""},
		{"§3.2 step 5 whitespace", "  turn   on  ", []string{"turn on"}, ""},
		{"§3.2 step 6 dedupe", "(hi|hi) there", []string{"hi there"}, ""},
		{"GRM-05 GRM-11 typed slot comes out bare", "set timer for {duration:length}", []string{"set timer for {length}"}, ""},
		{"GRM-04 double braces fold", "call {{who}} now", []string{"call {who} now"}, ""},
		{"GRM-06 vocabulary reference", "turn (on|off) <device>",
			[]string{"turn off lamp", "turn off television", "turn off tv", "turn on lamp", "turn on television", "turn on tv"}, ""},
		{"GRM-03 single-branch group warns", "say (yes)", []string{"say yes"}, "single branch"},
		{"§3.2 groups inside words", "light[s] on", []string{"light on", "lights on"}, ""},
		{"GRM-01 '|' inside an optional", "[a|b] c", []string{"a c", "b c", "c"}, ""},
		{"GRM-06 nested vocabularies", "<outer>", []string{"x y", "x z"}, ""},
		{"GRM-06 vocabulary with optional", "turn on <the>", []string{"turn on lamp", "turn on the lamp"}, ""},
		{"GRM-05 unregistered type warns", "{colour:x} and {date:y}", []string{"{x} and {y}"}, `"colour" in {colour:x} is not registered`},
		{"GRM-04 slot inside a group", "play [{song}] now", []string{"play now", "play {song} now"}, ""},
		{"§3.2 OPEN slot repeated across branches is accepted", "(buy {item}|sell {item})", []string{"buy {item}", "sell {item}"}, ""},
		{"§3.2 OPEN slot-only sample of a worded template", "[the] {item}", []string{"the {item}", "{item}"}, ""},
		{"§3.2 step 3 empty optional", "x []", []string{"x"}, "empty optional"},
		{"GRM-02 output text keeps case and punctuation", "Hello, {name}!", []string{"Hello, {name}!"}, ""},
		{"tabs collapse like spaces", "a\t\tb", []string{"a b"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, warns, err := Expand(tc.template, vocab, ExpandOptions{})
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			if tc.warn == "" {
				assert.Empty(t, warns)
				return
			}
			require.Len(t, warns, 1)
			assert.Contains(t, warns[0].String(), tc.warn)
		})
	}
}

// TestExpandMalformed checks every malformed case of GRM-07 is rejected
// with its kind and the position of the offending token.
func TestExpandMalformed(t *testing.T) {
	vocab := map[string][]string{
		"v":      {"{s}"},
		"a":      {"x <b>"},
		"b":      {"<a>"},
		"self":   {"<self>"},
		"broken": {"(a"},
		"blank":  {"[a]"},
		"none":   {},
		"deep":   {"<v>"},
	}
	tests := []struct {
		name     string
		template string
		kind     error
		col      int
		token    string
	}{
		{"GRM-07 optional-only [please]", "[please]", ErrEmptySample, 1, "[please]"},
		{"GRM-07 (|)", "(|)", ErrEmptySample, 1, "(|)"},
		{"GRM-07 [x]", "[x]", ErrEmptySample, 1, "[x]"},
		{"GRM-07 [(a|b)]", "[(a|b)]", ErrEmptySample, 1, "[(a|b)]"},
		{"GRM-07 empty template", "", ErrEmptySample, 1, ""},
		{"GRM-07 blank template", "   ", ErrEmptySample, 1, "   "},
		{"GRM-03 empty group ()", "a () b", ErrEmptyGroup, 3, "()"},
		{"GRM-03 blank group ( )", "a ( ) b", ErrEmptyGroup, 3, "( )"},
		{"GRM-07 slot-only {name}", "{name}", ErrSlotOnly, 1, "{name}"},
		{"GRM-07 slot-only {{name}}", "  {{name}}", ErrSlotOnly, 3, "{name}"},
		{"GRM-07 slot-only in every branch", "({a}|{b})", ErrSlotOnly, 2, "{a}"},
		{"GRM-07 adjacent {a}{b}", "{a}{b} c", ErrAdjacentSlots, 4, "{b}"},
		{"GRM-07 adjacent {a} {b}", "{a} {b} c", ErrAdjacentSlots, 5, "{b}"},
		{"GRM-07 adjacent {a} [foo] {b}", "{a} [foo] {b}", ErrAdjacentSlots, 11, "{b}"},
		{"GRM-07 adjacent {a} (and|) {b}", "{a} (and|) {b}", ErrAdjacentSlots, 12, "{b}"},
		{"GRM-07 adjacent [{a}] [{b}] word", "[{a}] [{b}] word", ErrAdjacentSlots, 8, "{b}"},
		{"GRM-07 repeated {x} and {x}", "{x} and {x}", ErrRepeatedSlot, 9, "{x}"},
		{"GRM-07 repeated {x} and {date:x}", "{x} and {date:x}", ErrRepeatedSlot, 9, "{date:x}"},
		{"GRM-07 undefined vocabulary", "go <nope>", ErrUndefinedVocab, 4, "<nope>"},
		{"GRM-07 cyclic vocabularies", "say <a>", ErrVocabCycle, 5, "<a>"},
		{"GRM-07 self-referencing vocabulary", "<self> x", ErrVocabCycle, 1, "<self>"},
		{"GRM-06 slot in vocabulary", "<v> x", ErrSlotInVocab, 1, "<v>"},
		{"GRM-06 slot in a nested vocabulary", "<deep> x", ErrSlotInVocab, 1, "<deep>"},
		{"GRM-06 malformed vocabulary", "<broken> x", ErrBadVocab, 1, "<broken>"},
		{"GRM-06 vocabulary with empty sample", "<blank> x", ErrBadVocab, 1, "<blank>"},
		{"GRM-06 vocabulary without templates", "<none> x", ErrBadVocab, 1, "<none>"},
		{"GRM-07 mismatched (a]", "(a]", ErrUnbalanced, 3, "]"},
		{"GRM-07 mismatched [a)", "x [a)", ErrUnbalanced, 5, ")"},
		{"GRM-07 unclosed (", "a (b", ErrUnbalanced, 3, "("},
		{"GRM-07 unclosed [ inside (", "(a [b|c)", ErrUnbalanced, 8, ")"},
		{"GRM-07 stray )", "a b)", ErrUnbalanced, 4, ")"},
		{"GRM-07 unclosed {", "a {b", ErrUnbalanced, 3, "{"},
		{"GRM-07 stray }", "a b}", ErrUnbalanced, 4, "}"},
		{"GRM-07 {{ closed by }", "{{a} x", ErrUnbalanced, 1, "{{a}"},
		{"GRM-07 slot then stray }", "{a}} x", ErrUnbalanced, 4, "}"},
		{"GRM-07 unclosed <", "a <b", ErrUnbalanced, 3, "<"},
		{"GRM-07 stray >", "a b>", ErrUnbalanced, 4, ">"},
		{"GRM-06 slot inside vocabulary reference", "a <{b}>", ErrUnbalanced, 3, "<"},
		{"GRM-06 vocabulary reference inside slot", "a {<b>}", ErrUnbalanced, 3, "{"},
		{"GRM-07 '|' outside a group", "a | b", ErrUnbalanced, 3, "|"},
		{"GRM-04 uppercase slot", "a {B}", ErrBadName, 3, "{B}"},
		{"GRM-04 slot starting with digit", "a {1x}", ErrBadName, 3, "{1x}"},
		{"GRM-04 whitespace in slot", "a {b c}", ErrBadName, 3, "{b c}"},
		{"GRM-04 empty slot", "a {}", ErrBadName, 3, "{}"},
		{"GRM-05 empty slot type", "a {:x}", ErrBadName, 3, "{:x}"},
		{"GRM-05 bad slot type", "a {Date:x}", ErrBadName, 3, "{Date:x}"},
		{"GRM-05 two colons", "a {a:b:c}", ErrBadName, 3, "{a:b:c}"},
		{"GRM-06 bad vocabulary name", "a <B>", ErrBadName, 3, "<B>"},
		{"GRM-06 empty vocabulary name", "a <>", ErrBadName, 3, "<>"},
		{"invalid UTF-8", "a \xff", ErrEncoding, 3, ""},
		// Matched and spoken text reads as it looks (issue 22 item 10).
		{"BEL", "ring \a bell", ErrControl, 6, ""},
		{"NUL after a group", "(a|b)\x00", ErrControl, 6, ""},
		{"right-to-left override", "play \u202egnos", ErrControl, 6, ""},
		{"isolate", "x \u2067y\u2069", ErrControl, 3, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := Expand(tc.template, vocab, ExpandOptions{})
			require.Error(t, err)
			assert.Nil(t, got)
			assert.ErrorIs(t, err, tc.kind)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 1, se.Line, "line")
			assert.Equal(t, tc.col, se.Col, "column")
			assert.Equal(t, tc.token, se.Token)
			assert.Contains(t, err.Error(), "line 1 col ")
		})
	}
}

func TestExpandErrorMessages(t *testing.T) {
	vocab := map[string][]string{"a": {"x <b>"}, "b": {"<a>"}, "broken": {"ok", "(a"}}
	tests := []struct {
		name, template, want string
		kind                 error
	}{
		{"cycle names the chain", "<a>", "line 1 col 1: cyclic vocabulary reference <a> → <b> → <a> (GRM-07)", ErrVocabCycle},
		{"malformed vocabulary names its entry", "<broken> x",
			"line 1 col 1: vocabulary <broken> is malformed: <broken>[2]:1:1: '(' is never closed by ')'", ErrUnbalanced},
		{"mismatch names the opener", "(a [b)", "line 1 col 6: ')' closes the '[' opened at line 1 col 4", ErrUnbalanced},
		{"adjacency names the sample", "{a} [and] {b}", `line 1 col 11: slots {a} and {b} are adjacent in sample "{a} {b}" (GRM-07)`, ErrAdjacentSlots},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Expand(tc.template, vocab, ExpandOptions{})
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.ErrorIs(t, err, tc.kind)
		})
	}
}

// TestExpandPositionFromCaller: resource files pass the template's line
// and column, and errors point into the file.
func TestExpandPositionFromCaller(t *testing.T) {
	_, _, err := Expand("a (b", nil, ExpandOptions{Line: 7, Col: 3})
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 7, se.Line)
	assert.Equal(t, 5, se.Col)

	_, _, err = Expand("a\nb (c", nil, ExpandOptions{Line: 3})
	require.ErrorAs(t, err, &se)
	assert.Equal(t, []int{4, 3}, []int{se.Line, se.Col}, "a newline inside a template starts a new line")

	tpl, err := ParseAt("x (y)", 4, 2)
	require.NoError(t, err)
	require.Len(t, tpl.Warnings(), 1)
	assert.Equal(t, Warning{Line: 4, Col: 4, Msg: `group "(y)" has a single branch; read as its content (GRM-03)`}, tpl.Warnings()[0])
}

func TestExpandColumnsCountRunes(t *testing.T) {
	_, _, err := Expand("schöne grüße (a", nil, ExpandOptions{})
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 14, se.Col)
}

// TestExpandLimit: the sample count is checked before anything is
// expanded (GRM-12); 10^20 samples would never finish otherwise.
func TestExpandLimit(t *testing.T) {
	huge := strings.Repeat("(a|b|c|d|e|f|g|h|i|j) ", 20)
	tests := []struct {
		name     string
		template string
		vocab    map[string][]string
		max      int
		wantN    int
		wantErr  bool
	}{
		{"GRM-12 default limit refuses 10^20", huge, nil, 0, 0, true},
		{"GRM-12 exactly at the limit", "(a|b|c|d) (e|f|g|h|i)", nil, 20, 20, false},
		{"GRM-12 one over the limit", "(a|b|c|d) (e|f|g|h|i)", nil, 19, 0, true},
		{"GRM-12 counts before dedupe", "(a|a) (b|b)", nil, 3, 0, true},
		{"GRM-12 nested groups count exactly", "(a|(b|c)) (d|(e|f))", nil, 9, 9, false},
		{"GRM-12 vocabularies count their samples", "<v> <v> <v>", map[string][]string{"v": {"(a|b|c|d|e|f|g|h|i|j)"}}, 999, 0, true},
		{"GRM-12 a vocabulary's union is capped", "<v> x", map[string][]string{"v": {"(a|b|c)", "(d|e|f)"}}, 5, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := Expand(tc.template, tc.vocab, ExpandOptions{MaxSamples: tc.max})
			if !tc.wantErr {
				require.NoError(t, err)
				assert.Len(t, got, tc.wantN)
				return
			}
			require.ErrorIs(t, err, ErrTooLarge)
			assert.Contains(t, err.Error(), "(GRM-12)")
		})
	}
}

func TestParseLimits(t *testing.T) {
	tests := []struct {
		name     string
		template string
	}{
		{"too long", strings.Repeat("a", MaxTemplateBytes+1)},
		{"nested too deep", strings.Repeat("(a|", MaxNesting+1) + "b" + strings.Repeat(")", MaxNesting+1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.template)
			assert.ErrorIs(t, err, ErrTooLarge)
		})
	}
	_, err := Parse(strings.Repeat("(a|", MaxNesting) + "b" + strings.Repeat(")", MaxNesting))
	assert.NoError(t, err, "nesting at the limit is fine")
}

func TestTemplateIntrospection(t *testing.T) {
	tpl, err := Parse("set {number:level} for [the] {{device}} <where> [{device}] <when>")
	require.NoError(t, err)
	assert.Equal(t, []string{"device", "level"}, tpl.SlotNames(), "GRM-16: bare names, sorted, distinct")
	assert.Equal(t, []Slot{
		{Name: "level", Type: "number", Line: 1, Col: 5},
		{Name: "device", Line: 1, Col: 30},
		{Name: "device", Line: 1, Col: 50},
	}, tpl.Slots())
	assert.Equal(t, []string{"when", "where"}, tpl.VocabRefs())
	assert.Equal(t, "set {number:level} for [the] {{device}} <where> [{device}] <when>", tpl.String())
}

func TestIsRegisteredSlotType(t *testing.T) {
	for _, typ := range []string{"number", "duration", "date", "color", "language"} {
		assert.True(t, IsRegisteredSlotType(typ), typ)
	}
	for _, typ := range []string{"location", "timezone", "", "Number"} {
		assert.False(t, IsRegisteredSlotType(typ), typ)
	}
}

func TestSyntaxErrorFormat(t *testing.T) {
	inner := errors.New("cause")
	tests := []struct {
		err  *SyntaxError
		want string
	}{
		{&SyntaxError{Line: 2, Col: 3, Kind: ErrEmptyGroup}, "line 2 col 3: empty group"},
		{&SyntaxError{File: "a.intent", Line: 2, Col: 3, Msg: "bad"}, "a.intent:2:3: bad"},
		{&SyntaxError{File: "a.intent", Kind: ErrNoTemplates, Msg: "none"}, "a.intent: none"},
		{&SyntaxError{Line: 1, Col: 1, Msg: "outer", Err: inner}, "line 1 col 1: outer: cause"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.err.Error())
	}
	assert.ErrorIs(t, &SyntaxError{Err: inner}, inner)
}

// TestExpandAdjacencyAfterExpansion_GRM08: adjacency (GRM-07) is judged
// on the expanded samples. Whatever the structure suggests, a template is
// rejected exactly when some sample has two slots with only spaces between
// them.
func TestExpandAdjacencyAfterExpansion_GRM08(t *testing.T) {
	tests := []struct {
		template string
		adjacent bool
	}{
		{"({a} x|y) {b}", false},       // slots look adjacent across the group; no sample has them so
		{"{a} [x] y {b}", false},       // an optional between, and a word that always stays
		{"({a}|x) ({b}|y) z", true},    // one sample is "{a} {b} z"
		{"{a} (x|) {b}", true},         // the empty branch joins them
		{"[{a}] [{b}] word", true},     // both optionals taken
		{"{a} ([x]|y) {b} z", true},    // the optional inside a branch can vanish
		{"{a}-{b} now", false},         // glued by text: not only spaces between
		{"({a} |{c} x) {b} end", true}, // trailing space in a branch still leaves "{a} {b}"
	}
	for _, tc := range tests {
		t.Run(tc.template, func(t *testing.T) {
			samples, _, err := Expand(tc.template, nil, ExpandOptions{})
			if tc.adjacent {
				require.ErrorIs(t, err, ErrAdjacentSlots)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, textualExpand(tc.template), samples, "the same set as the literal §3.2 algorithm")
		})
	}
}

// TestCommentsAreTheReadersJob_GRM09: '#' means nothing to the grammar;
// blank and '#' lines are dropped by the line reader (RES-04), so a
// template handed straight to Expand keeps them as text or is empty.
func TestCommentsAreTheReadersJob_GRM09(t *testing.T) {
	samples, _, err := Expand("# not a comment here", nil, ExpandOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"# not a comment here"}, samples)
	_, _, err = Expand("   ", nil, ExpandOptions{})
	assert.ErrorIs(t, err, ErrEmptySample, "a blank template is malformed, not skipped")

	lines, err := ReadLines(strings.NewReader("# a comment\n\n  \nhello # not inline\n"))
	require.NoError(t, err)
	assert.Equal(t, []Line{{Number: 4, Col: 1, Text: "hello # not inline"}}, lines)
}

// TestElements: a parsed template's structure as its readers get it
// (OVOS-INTENT-1 §3.2: [x] is (x|); types as written, GRM-05).
func TestElements(t *testing.T) {
	text := func(s string) Element { return Element{Kind: ElementText, Text: s} }
	tests := []struct {
		template string
		want     []Element
	}{
		{"what time is it", []Element{text("what time is it")}},
		{"turn (on|off) [the] {device}", []Element{
			text("turn "),
			{Kind: ElementGroup, Branches: [][]Element{{text("on")}, {text("off")}}},
			text(" "),
			{Kind: ElementGroup, Branches: [][]Element{{text("the")}, nil}},
			text(" "),
			{Kind: ElementSlot, Name: "device"},
		}},
		{"set a timer for {duration:length} <please>", []Element{
			text("set a timer for "),
			{Kind: ElementSlot, Name: "length", Type: "duration"},
			text(" "),
			{Kind: ElementVocab, Name: "please"},
		}},
		{"{colour:c} light[s]", []Element{
			{Kind: ElementSlot, Name: "c", Type: "colour"},
			text(" light"),
			{Kind: ElementGroup, Branches: [][]Element{{text("s")}, nil}},
		}},
		{"(a|)", []Element{{Kind: ElementGroup, Branches: [][]Element{{text("a")}, nil}}}},
	}
	for _, tt := range tests {
		tpl, err := Parse(tt.template)
		require.NoError(t, err, tt.template)
		got := tpl.Elements()
		assert.Equal(t, tt.want, got, tt.template)
		got[0].Kind = ElementVocab // a copy: the template is unchanged
		assert.Equal(t, tt.want, tpl.Elements(), tt.template)
	}
}
