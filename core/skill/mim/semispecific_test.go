package mim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSemiSpecific(t *testing.T) {
	set, err := LoadDir(testdata, "mims")
	require.NoError(t, err)
	cats, err := LoadCategories(testdata, "categories.json")
	require.NoError(t, err)
	assert.Equal(t, []string{"Color", "Fruit", "Animal"}, cats.Names(), "file order")

	tests := []struct {
		value, mim, category string
	}{
		{"blue", "Likes_SS_Color", "Color"},
		{"  Light   BLUE ", "Likes_SS_Color", "Color"},
		{"guinea pig", "Likes_SS_Animal", "Animal"},
		// orange is a Color and a Fruit; Color comes first.
		{"orange", "Likes_SS_Color", "Color"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			m, cat, err := SemiSpecific(set, cats, "Likes", tt.value)
			require.NoError(t, err)
			assert.Equal(t, tt.mim, m.MimID())
			assert.Equal(t, tt.category, cat)
		})
	}

	// banana is only a Fruit, and there is no Likes_SS_Fruit.
	_, _, err = SemiSpecific(set, cats, "Likes", "banana")
	assert.ErrorIs(t, err, ErrNotFound)
	assert.EqualError(t, err, "semi-specific response for \"banana\": no MIM Likes_SS_<category> for categories Fruit: MIM not found")
	_, _, err = SemiSpecific(set, cats, "Likes", "spaceship")
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Equal(t, []string{"Color", "Fruit"}, cats.Of("ORANGE"))
}

func TestParseCategoriesErrors(t *testing.T) {
	tests := []struct{ data, want string }{
		{`[]`, "c.json: want a JSON object of category names to arrays of values"},
		{`{"Color": "red"}`, `c.json: category "Color": want an array of strings`},
		{`{"Color": []}`, `c.json: category "Color": has no values`},
		{`{"Color": ["red", " "]}`, `c.json: category "Color": value 1 is empty`},
		{`{"Color": ["red", "Red"]}`, `c.json: category "Color": value "Red" is listed twice`},
		{`{"Co lor": ["red"]}`, `c.json: category "Co lor": name must be letters, digits, _ and -`},
		{`{"Color": ["red"], "Color": ["blue"]}`, `c.json: Color: member given twice ("Color")`},
		{`{"Color": ["red", "\udc00"]}`, `c.json: Color[1]: invalid UTF-8 (\udc00 is half a UTF-16 surrogate pair)`},
		{`{"Color": ["red"]} x`, "c.json: data after the JSON object"},
		{`{"Color": ["red"]`, "c.json: not JSON: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.data, func(t *testing.T) {
			c, err := ParseCategories([]byte(tt.data), "c.json")
			assert.Nil(t, c)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.EqualError(t, err, tt.want)
		})
	}
}
