package mim

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTruthy(t *testing.T) {
	var nilMap map[string]any
	for _, v := range []any{nil, false, 0, 0.0, math.NaN(), "", ESML(""), int64(0), uint8(0), nilMap} {
		assert.False(t, Truthy(v), "%#v", v)
	}
	for _, v := range []any{true, 1, -1.5, "0", "false", ESML("<break/>"), []any{}, map[string]any{}, int32(3)} {
		assert.True(t, Truthy(v), "%#v", v)
	}
}

// TestConditions: conditions as shipped MIMs write them evaluate with
// JavaScript's meaning (§5.1).
func TestConditions(t *testing.T) {
	d := NewPromptData(testRuntime(), testNow, map[string]any{"count": 0, "name": ""})
	tests := []struct {
		cond string
		want bool
	}{
		{`jibo.emotion == "PLEASED"`, true},
		{`jibo.emotion === "PLEASED"`, true},
		{`jibo.emotion !== "PLEASED"`, false},
		{`!jibo.emotion || jibo.emotion == "NEUTRAL"`, false},
		{`!jibo.isBirthday && speaker`, false},
		{`jibo.isBirthday && speaker`, true},
		{`loop.count > 1`, true},
		{`dt.now.isInRange('11/1','2/18')`, true},
		{`speaker != null`, true},
		{`referent == undefined`, true},
		{`!skill.count`, true},
		{`!skill.name`, true},
		{`skill.missing ? false : true`, true},
		{`loop.count && loop.owner == "Ann"`, true},
		{`not jibo.isBirthday`, false},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			got, err := eval(t, d, tt.cond)
			require.NoError(t, err)
			assert.Equal(t, tt.want, Truthy(got))
		})
	}
}

func TestJSOperatorsYieldOperands(t *testing.T) {
	d := PromptData{}
	got, err := eval(t, d, `speaker || "friend"`)
	require.NoError(t, err)
	assert.Equal(t, "friend", got)
	got, err = eval(t, d, `speaker && speaker.name`)
	require.NoError(t, err)
	assert.Nil(t, got, "&& stops at a falsy operand, so speaker.name is never fetched")
}

func TestExpressionLimits(t *testing.T) {
	c := newCompiler()
	_, err := c.compile(strings.Repeat("1+", 200) + "1")
	assert.EqualError(t, err, "expression has more than 256 nodes", "MaxExprNodes")

	_, err = c.compile(strings.Repeat(" ", MaxExprBytes+1))
	assert.EqualError(t, err, "expression is 1025 bytes, limit 1024")

	// Each + doubles the text: 2^20 bytes from 20 nodes.
	src := `'xx'`
	for range 20 {
		src = "(" + src + "+" + src + ")"
	}
	p, err := c.compile(src)
	if err == nil {
		var d PromptData
		_, err = p.run(d.env())
	}
	assert.Error(t, err, "MaxExprMemory or MaxExprNodes")

	d := PromptData{Skill: map[string]any{"s": strings.Repeat("x", MaxExprMemory/4)}}
	p, err = c.compile(`skill.s + skill.s + skill.s + skill.s + skill.s`)
	require.NoError(t, err)
	_, err = p.run(d.env())
	assert.EqualError(t, err, "expression builds more than 65536 bytes", "MaxExprMemory")
}

func TestCompilerSharesPrograms(t *testing.T) {
	c := newCompiler()
	a, err := c.compile(`jibo.emotion == "SAD"`)
	require.NoError(t, err)
	b, err := c.compile(`jibo.emotion == "SAD"`)
	require.NoError(t, err)
	assert.Same(t, a, b)
}

// place is a skill's own struct in prompt data: expressions read its
// fields by JSON name, or Go name when it has none.
type place struct {
	City   string `json:"city"`
	Zip    string
	hidden string
}

// TestJavaScriptSemantics: expressions mean what they mean in JavaScript
// (§5.1: conditions are JavaScript expressions).
func TestJavaScriptSemantics(t *testing.T) {
	d := NewPromptData(testRuntime(), testNow, map[string]any{
		"n": 3, "f": 2.5, "s": "Ann", "empty": "", "zero": 0, "none": nil,
		"list": []any{"a", "b", 3.0}, "ints": []int{4, 5}, "obj": map[string]any{"k": "v"},
		"markup": ESML(`<break size="1"/>`), "place": place{City: "Paris", Zip: "75001", hidden: "h"}, "ptr": &place{City: "Lyon"},
	})
	tests := []struct {
		src  string
		want any
	}{
		// null and undefined
		{`skill.missing === undefined`, true},
		{`skill.missing === null`, false},
		{`skill.none === null`, true},
		{`skill.none == undefined`, true},
		{`jibo.age === null`, false},
		{`referent === null`, true},
		{`typeof skill.missing`, "undefined"},
		{`typeof skill.none`, "object"},
		{`typeof skill.n`, "number"},
		{`typeof speaker`, "string"},
		{`typeof dt.isWeekend`, "boolean"},
		{`typeof dt.now.isInRange`, "function"},
		{`typeof skill.list`, "object"},
		// loose and strict equality
		{`skill.n == "3"`, true},
		{`skill.n === "3"`, false},
		{`skill.n === 3`, true},
		{`skill.zero == false`, true},
		{`skill.zero === false`, false},
		{`skill.empty == 0`, true},
		{`skill.list == "a,b,3"`, true},
		{`skill.obj == skill.obj`, true},
		{`skill.obj === skill.obj`, true},
		{`[1] == [1]`, false},
		{`NaN == NaN`, false},
		{`skill.markup === '<break size="1"/>'`, true},
		// arithmetic and text
		{`skill.n + 1`, 4.0},
		{`skill.n + "1"`, "31"},
		{`"a" + skill.none`, "anull"},
		{`1 + skill.missing`, math.NaN()},
		{`skill.n * skill.f - 1 / 2`, 7.0},
		{`7 % 3`, 1.0},
		{`-skill.n`, -3.0},
		{`+"12"`, 12.0},
		{`+"12px"`, math.NaN()},
		{`+" 0x1F "`, 31.0},
		{`0x10 + 1e2 + .5`, 116.5},
		{`1 + 2 * 3`, 7.0},
		{`(1 + 2) * 3`, 9.0},
		{`"a" + [1, 2]`, "a1,2"},
		{`'it\'s ' + "\u00e9\x41\n"`, "it's éA\n"},
		{"`raw`", "raw"},
		{"\u00a0skill.s\ufeff +\t\n'!'", "Ann!"},
		// comparison
		{`skill.s < "Bob"`, true},
		{`"10" < "9"`, true},
		{`"10" < 9`, false},
		{`skill.missing < 1`, false},
		{`skill.none < 1`, true},
		{`skill.n >= 3 && skill.n <= 3`, true},
		// logic yields operands
		{`skill.empty || "friend"`, "friend"},
		{`skill.s && skill.n`, 3},
		{`skill.zero && skill.missing.x`, 0},
		{`!skill.list`, false},
		{`!![]`, true},
		{`skill.n > 2 ? "big" : "small"`, "big"},
		{`skill.zero ? 1 : skill.empty ? 2 : 3`, 3.0},
		{`not skill.zero and skill.s or 1`, "Ann"},
		// members, methods and indexes
		{`skill.list[1]`, "b"},
		{`skill.list["0"]`, "a"},
		{`skill.list[9]`, nil},
		{`skill.list.length`, 3.0},
		{`skill.ints[1]`, 5},
		{`skill.ints.length`, 2.0},
		{`skill.obj["k"]`, "v"},
		{`skill.s.length`, 3.0},
		{`skill.s[0]`, "A"},
		{`skill.s.toUpperCase()`, "ANN"},
		{`skill.s.toLowerCase().startsWith("an")`, true},
		{`" x ".trim()`, "x"},
		{`skill.s.includes("nn")`, true},
		{`skill.s.endsWith("n")`, true},
		{`"héllo".indexOf("l")`, 2.0},
		{`"x".indexOf("y")`, -1.0},
		{`skill.list.includes(3)`, true},
		{`skill.list.indexOf("b")`, 1.0},
		{`skill.list.join(" - ")`, "a - b - 3"},
		{`['morning', 'evening'].includes(dt.timeOfDay)`, true},
		{`skill.place.city`, "Paris"},
		{`skill.place.City`, nil},
		{`skill.place.Zip`, "75001"},
		{`skill.place.hidden`, nil},
		{`skill.ptr.city`, "Lyon"},
		{`skill.n.foo`, nil},
		{`dt.now.isInRange("12/1", "12/31")`, true},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, err := eval(t, d, tt.src)
			require.NoError(t, err)
			if f, ok := tt.want.(float64); ok && math.IsNaN(f) {
				assert.True(t, isNaN(got), "%#v", got)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestExpressionRunErrors: what throws in JavaScript fails here.
func TestExpressionRunErrors(t *testing.T) {
	d := NewPromptData(testRuntime(), testNow, map[string]any{"s": "Ann", "none": nil, "nilptr": (*place)(nil)})
	tests := []struct{ src, want string }{
		{`skill.none.x`, `cannot read property "x" of null`},
		{`skill.missing.x`, `cannot read property "x" of undefined`},
		{`skill.missing()`, `undefined is not a function`},
		{`skill.s()`, `a string is not a function`},
		{`skill()`, `an object is not a function`},
		{`dt.now.isInRange(skill.s, '1/1')`, `date "Ann" is not 'M/D'`},
		{`dt.now["isIn" + "Range"]('1/1')`, `function takes 2 arguments, got 1`},
		{`skill.nilptr.city`, `cannot read property "city" of null`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			c := newCompiler()
			p, err := c.compile(tt.src)
			if err == nil {
				_, err = p.run(d.env())
			}
			assert.EqualError(t, err, tt.want)
		})
	}
}

// TestExpressionCompileErrors: a bad expression is refused at load with
// the column of what is wrong.
func TestExpressionCompileErrors(t *testing.T) {
	tests := []struct {
		src    string
		column int
		reason string
	}{
		{`speaker ==`, 11, "unexpected end of expression"},
		{`speaker = 'Ann'`, 9, "assignment is not allowed (use == or ===)"},
		{`speaker == 'Ann`, 12, "unterminated string literal"},
		{"'a\nb'", 1, "unterminated string literal"},
		{"`a ${speaker}`", 4, "${ inside a template literal is not supported"},
		{`loop.count > 1x`, 14, "bad number 1x"},
		{`loop.count > 0x`, 14, "bad number 0x"},
		{`speaker # 1`, 9, `unexpected character '#'`},
		{`é`, 1, `unexpected character 'é'`},
		{`'é' == nobody`, 8, "unknown name nobody"},
		{`speaker speaker`, 9, "unexpected speaker"},
		{`(speaker`, 9, "unexpected end of expression"},
		{`skill.`, 7, "unexpected end of expression"},
		{`skill.1`, 6, "unexpected .1"},
		{`{a: 1}`, 1, "unexpected character '{'"},
		{`'\u12'`, 2, `bad escape \u`},
		{`dt.now.isInRange('1/1')`, 8, "isInRange takes 2 dates ('M/D'), got 1 arguments"},
		{`dt.now.isInRange('1/1', '13/1')`, 25, `date "13/1": month 13 is outside 1..12`},
		{`dt.now.isInRange('1/1', 'x')`, 25, `date "x" is not 'M/D'`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := newCompiler().compile(tt.src)
			var ee *exprError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, tt.reason, ee.Reason)
			assert.Equal(t, tt.column, ee.Column)
		})
	}
}
