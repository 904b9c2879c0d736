package sphinx

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMeaningKey(t *testing.T) {
	timer := func(d string) string { return meaningKey("jibo.timer:set", map[string]string{"duration": d}) }
	two := func(from, to string) map[string]string { return map[string]string{"from": from, "to": to} }
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"a plural's s is the same duration", timer("twenty seconds"), timer("twenty second"), true},
		{"case does not matter", timer("Five Minutes"), timer("five minute"), true},
		{"another number is another command", timer("thirty second"), timer("thirteen second"), false},
		{"another intent", meaningKey("jibo.volume:query", nil), meaningKey("jibo.clock:time_now", nil), false},
		{"the same intent without slots", meaningKey("jibo.clock:time_now", nil), meaningKey("jibo.clock:time_now", map[string]string{}), true},
		{"a slot more", meaningKey("jibo.volume:set", nil), meaningKey("jibo.volume:set", map[string]string{"level": "two"}), false},
		{"slots in any order", meaningKey("x:y", two("one", "two")), meaningKey("x:y", map[string]string{"to": "two", "from": "one"}), true},
		{"values are kept apart", meaningKey("x:y", two("a b", "c")), meaningKey("x:y", two("a", "b c")), false},
		{"the same words in swapped slots", meaningKey("x:y", two("one", "two")), meaningKey("x:y", two("two", "one")), false},
		{"the same words in another slot", meaningKey("x:y", map[string]string{"from": "one"}), meaningKey("x:y", map[string]string{"to": "one"}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.same, tc.a == tc.b, "%q against %q", tc.a, tc.b)
		})
	}
}
