package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const catalogJSON = `{"skills":[
 {"id":"openjibo/trivia","name":"Trivia","description":"A quiz game.","version":"1.0.0",
  "config":{"id":"openjibo/trivia","intents":[{"name":"play_trivia","entities":[]}]},
  "locale":{"en-US":{"play_trivia.intent":"(let's|) play trivia\ntrivia\n","answer.entity":"paris\n","yes.voc":"yes\n"}},
  "rules":{"answer":{"en-US":{"answer.intent":"[it is] {answer}\n","answer.entity":"paris\n","end_game.intent":"stop\n"}}}},
 {"id":"openjibo/fact","name":"Fun facts","description":"","version":"1.0.0",
  "config":{"id":"openjibo/fact","intents":[{"name":"fun_fact","entities":[]}]},
  "locale":{"en-US":{"fun_fact.intent":"tell me a fun fact\n","fact.dialog":"Octopuses have three hearts.\n"}}}
]}`

func TestDecodeCatalog(t *testing.T) {
	c, err := DecodeCatalog([]byte(catalogJSON))
	require.NoError(t, err)
	require.Len(t, c.Skills, 2)
	assert.Equal(t, "openjibo/trivia", c.Skills[0].ID)
	id, ok := c.SkillForIntent("fun_fact")
	assert.True(t, ok)
	assert.Equal(t, "openjibo/fact", id)
	_, ok = c.SkillForIntent("nope")
	assert.False(t, ok)

	b, err := c.Encode()
	require.NoError(t, err)
	back, err := DecodeCatalog(b)
	require.NoError(t, err)
	assert.Equal(t, c, back)
	assert.Contains(t, string(b), "let's", "no HTML escaping")
	assert.Equal(t, "stop\n", back.Skills[0].Rules["answer"]["en-US"]["end_game.intent"], "answer rules survive a round trip")
	assert.Nil(t, back.Skills[1].Rules)
	assert.NotContains(t, string(b), `"rules":null`, "a skill without rules has no rules member")
}

// A hub that predates answer rules in the catalog serves catalogs
// without them; they stay valid.
func TestDecodeCatalogWithoutRules(t *testing.T) {
	c, err := DecodeCatalog([]byte(`{"skills":[{"id":"a/b","config":{"id":"a/b","intents":[{"name":"x"}]},"locale":{"en":{"x.intent":"x"}}}]}`))
	require.NoError(t, err)
	assert.Nil(t, c.Skills[0].Rules)
}

func TestCatalogRuleLimitIsTheRobots(t *testing.T) {
	assert.Equal(t, skill.MaxRulesPerSkill, MaxCatalogRules)
}

func TestDecodeCatalogRefuses(t *testing.T) {
	// mutate edits a decoded copy of catalogJSON's generic form.
	mutate := func(f func(skills []any)) string {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(catalogJSON), &v))
		f(v["skills"].([]any))
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return string(b)
	}
	skill := func(s []any, i int) map[string]any { return s[i].(map[string]any) }
	files := func(s []any, i int) map[string]any {
		return skill(s, i)["locale"].(map[string]any)["en-US"].(map[string]any)
	}
	rules := func(s []any) map[string]any { return skill(s, 0)["rules"].(map[string]any) }
	ruleFiles := func(s []any) map[string]any {
		return rules(s)["answer"].(map[string]any)["en-US"].(map[string]any)
	}

	tests := []struct {
		name    string
		doc     string
		wantErr string
	}{
		{"not json", `{"skills":[`, "decode skill catalog: unexpected end of JSON input"},
		{"oversized", `{"skills":[],"x":"` + strings.Repeat("a", MaxCatalogSize) + `"}`, "4194324 bytes, limit 4194304"},
		{"too many skills", `{"skills":[{}` + strings.Repeat(`,{}`, MaxCatalogSkills) + `]}`, "skills: 257 skills, limit 256"},
		{"bad id", mutate(func(s []any) { skill(s, 0)["id"] = "Trivia" }), `skills[0] ("Trivia"): id: skill id "Trivia": want namespace/name`},
		{"config id differs", mutate(func(s []any) { skill(s, 1)["id"] = "openjibo/facts" }), `skills[1] ("openjibo/facts"): config.id: "openjibo/fact", want the skill's id "openjibo/facts"`},
		{"duplicate id", mutate(func(s []any) {
			skill(s, 1)["id"] = "openjibo/trivia"
			skill(s, 1)["config"].(map[string]any)["id"] = "openjibo/trivia"
		}), `skills[1]: id "openjibo/trivia" repeats skills[0]`},
		{"intent on two skills", mutate(func(s []any) {
			skill(s, 1)["config"].(map[string]any)["intents"] = []any{map[string]any{"name": "play_trivia", "entities": []any{}}}
			delete(files(s, 1), "fun_fact.intent")
			files(s, 1)["play_trivia.intent"] = "trivia please"
		}), `skills[1] ("openjibo/fact"): intent "play_trivia" is also an intent of "openjibo/trivia"`},
		{"invalid config", mutate(func(s []any) { delete(skill(s, 0)["config"].(map[string]any), "intents") }), "config: intents: required"},
		{"path in file name", mutate(func(s []any) { files(s, 0)["../../etc/passwd.voc"] = "x" }), `file "../../etc/passwd.voc": want a plain name`},
		{"wrong extension", mutate(func(s []any) { files(s, 0)["run.sh"] = "x" }), `file "run.sh": want a plain name ending .intent, .entity, .voc or .dialog`},
		{"file too big", mutate(func(s []any) { files(s, 0)["big.voc"] = strings.Repeat("a", MaxCatalogFileSize+1) }), "65537 bytes, limit 65536"},
		{"intent file without config intent", mutate(func(s []any) { files(s, 0)["stop_game.intent"] = "stop" }), `file "stop_game.intent": intent "stop_game" is not in the skill's config.intents`},
		{"bad language", mutate(func(s []any) {
			skill(s, 0)["locale"].(map[string]any)["en_US/.."] = map[string]any{}
		}), `locale: language "en_US/..": want a tag like en-US`},
		{"rule name with a path", mutate(func(s []any) { rules(s)["../answer"] = rules(s)["answer"] }),
			`skills[0] ("openjibo/trivia"): rules: rule "../answer": want a plain name`},
		{"rule file with a path", mutate(func(s []any) { ruleFiles(s)["../x.intent"] = "x" }),
			`rules.answer.en-US: file "../x.intent": want a plain name`},
		{"rule file wrong extension", mutate(func(s []any) { ruleFiles(s)["x.txt"] = "x" }),
			`rules.answer.en-US: file "x.txt": want a plain name ending .intent, .entity, .voc or .dialog`},
		{"rule file too big", mutate(func(s []any) { ruleFiles(s)["big.voc"] = strings.Repeat("a", MaxCatalogFileSize+1) }),
			"rules.answer.en-US: file \"big.voc\": 65537 bytes, limit 65536"},
		{"rule bad language", mutate(func(s []any) { rules(s)["answer"].(map[string]any)["english"] = map[string]any{} }),
			`rules.answer: language "english": want a tag like en-US`},
		{"rule without intents", mutate(func(s []any) {
			rules(s)["answer"] = map[string]any{"en-US": map[string]any{"answer.entity": "paris"}}
		}), "rules.answer: no .intent file"},
		{"too many rules", mutate(func(s []any) {
			for i := range MaxCatalogRules {
				rules(s)[fmt.Sprintf("r%d", i)] = rules(s)["answer"]
			}
		}), "rules: 65 rules, limit 64"},
		{"invalid utf-8", `{"skills":[{"id":"a/b","name":"` + "\xff" + `","config":{"id":"a/b","intents":[]},"locale":{}}]}`, "not valid UTF-8"},
		// Issue 22 items 9 and 10.
		{"id twice", `{"skills":[{"id":"a/b","config":{"id":"a/b","intents":[]},"id":"c/d","locale":{}}]}`, `skills[0].id: member given twice ("id")`},
		{"a locale file twice", `{"skills":[{"id":"a/b","config":{"id":"a/b","intents":[]},"locale":{"en-US":{"x.voc":"a","x.voc":"b"}}}]}`,
			`skills[0].locale.en-US.x.voc: member given twice ("x.voc")`},
		{"half a surrogate pair", `{"skills":[{"id":"a/b","name":"\ud800","config":{"id":"a/b","intents":[]},"locale":{}}]}`, "skills[0].name: invalid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := DecodeCatalog([]byte(tt.doc))
			require.Nil(t, c)
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestCatalogLimitErrors(t *testing.T) {
	c := &Catalog{Skills: make([]CatalogSkill, MaxCatalogSkills+1)}
	require.ErrorIs(t, c.Validate(), protocol.ErrLimit)
	_, err := c.Encode()
	require.ErrorContains(t, err, "encode skill catalog: skills: 257 skills, limit 256")
}
