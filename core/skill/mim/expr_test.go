package mim

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTranslateJS(t *testing.T) {
	tests := []struct{ in, want string }{
		{`a === b`, `a == ` + ` b`},
		{`a !== null`, `a != ` + ` nil `},
		{`x == undefined`, `x == nil      `},
		{`"a === b" === 'c !== d'`, `"a === b" == ` + ` 'c !== d'`},
		{`s == "say \"null\""`, `s == "say \"null\""`},
		{`skill.null`, `skill.null`},
		{`nullable`, `nullable`},
		{"`raw === null`", "`raw === null`"},
	}
	for _, tt := range tests {
		got, err := translateJS(tt.in)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, tt.in)
		assert.Equal(t, len(tt.in), len(got), "columns stay in place")
	}
	_, err := translateJS(`a == 'b`)
	assert.EqualError(t, err, "unterminated string literal")
}

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
	assert.ErrorContains(t, err, "exceeds maximum allowed nodes", "MaxExprNodes")

	_, err = c.compile(strings.Repeat(" ", MaxExprBytes+1))
	assert.EqualError(t, err, "expression is 1025 bytes, limit 1024")

	p, err := c.compile(`map(1..100000, # * 2)`)
	require.NoError(t, err)
	var d PromptData
	_, err = p.run(d.env())
	assert.ErrorContains(t, err, "memory budget exceeded", "MaxExprMemory")
}

func TestCompilerSharesPrograms(t *testing.T) {
	c := newCompiler()
	a, err := c.compile(`jibo.emotion == "SAD"`)
	require.NoError(t, err)
	b, err := c.compile(`jibo.emotion == "SAD"`)
	require.NoError(t, err)
	assert.Same(t, a, b)
}
