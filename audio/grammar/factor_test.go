package grammar

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// expand lists the sentences of a JSGF expansion made of words, <rule>
// references (kept as tokens), sequences, alternatives, ( ) and [ ]: the
// subset ruleBody writes.
func expand(t *testing.T, text string) []string {
	t.Helper()
	toks := strings.Fields(strings.NewReplacer("(", " ( ", ")", " ) ", "[", " [ ", "]", " ] ", "|", " | ").Replace(text))
	pos := 0
	var alts func() [][]string
	seq := func() [][]string {
		out := [][]string{{}}
		for pos < len(toks) && toks[pos] != "|" && toks[pos] != ")" && toks[pos] != "]" {
			var part [][]string
			switch tok := toks[pos]; tok {
			case "(", "[":
				pos++
				part = alts()
				close := map[string]string{"(": ")", "[": "]"}[tok]
				require.Less(t, pos, len(toks), "unclosed %s in %q", tok, text)
				require.Equal(t, close, toks[pos], "in %q", text)
				pos++
				if tok == "[" {
					part = append(part, nil)
				}
			default:
				part = [][]string{{tok}}
				pos++
			}
			var next [][]string
			for _, o := range out {
				for _, p := range part {
					next = append(next, append(slices.Clone(o), p...))
				}
			}
			out = next
		}
		return out
	}
	alts = func() [][]string {
		out := seq()
		for pos < len(toks) && toks[pos] == "|" {
			pos++
			out = append(out, seq()...)
		}
		return out
	}
	all := alts()
	require.Equal(t, len(toks), pos, "trailing tokens in %q", text)
	var s []string
	for _, a := range all {
		s = append(s, strings.Join(a, " "))
	}
	slices.Sort(s)
	return slices.Compact(s)
}

func seqOf(s string) []label {
	var out []label
	for _, w := range strings.Fields(s) {
		if strings.HasPrefix(w, "<") {
			out = append(out, label{rule: strings.Trim(w, "<>")})
		} else {
			out = append(out, label{word: w})
		}
	}
	return out
}

// ruleBody writes each sentence of the tree and no other, with shared
// tails after a rule reference written once.
func TestRuleBodyKeepsTheSentences(t *testing.T) {
	tests := []struct {
		name      string
		sentences []string
		want      string
	}{
		{"words only", []string{"what time is it", "what is the time"}, "what (is the time | time is it)"},
		{"a shared reference", []string{"set volume to <n>", "turn volume to <n>", "volume <n>"},
			"(set volume to | turn volume to | volume) <n>"},
		{"a reference first", []string{"<n> minutes", "<n> seconds", "half a minute"},
			"half a minute | <n> (minutes | seconds)"},
		{"optional head and tail", []string{"<n>", "<n> please", "set <n>", "set <n> please"},
			"[set] <n> [please]"},
		{"different tails stay apart", []string{"a <n> timer", "for <n>", "for <n> please"},
			"for <n> [please] | a <n> timer"},
		{"two references", []string{"<n> hours and <n> minutes", "<n> hours <n> minutes", "<n> minutes"},
			"[<n> hours [and]] <n> minutes"},
		{"two rules", []string{"play <song>", "say <n>", "say <song>"}, "say <n> | (play | say) <song>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := &node{}
			for _, s := range tt.sentences {
				root.add(seqOf(s))
			}
			got := ruleBody(root)
			assert.Equal(t, tt.want, got)
			want := slices.Clone(tt.sentences)
			slices.Sort(want)
			assert.Equal(t, want, expand(t, got))
		})
	}
}

// Every built-in intent's rule says exactly its tree's sentences.
func TestRuleBodyBuiltinSentences(t *testing.T) {
	g, err := Build(builtinIntents(t), Options{TemplateLanguage: tl, Lang: "en-US", Wake: "hey jibo"})
	require.NoError(t, err)
	for name, r := range g.rules {
		var seqs [][]label
		collect(r.root, nil, &seqs)
		var want []string
		for _, s := range seqs {
			want = append(want, render(s))
		}
		slices.Sort(want)
		assert.Equal(t, slices.Compact(want), expand(t, ruleBody(r.root)), name)
	}
}
