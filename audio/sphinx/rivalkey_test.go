package sphinx

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMeaningKey(t *testing.T) {
	timer := func(d string) string { return meaningKey("jibo.timer:set", []string{d}) }
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"a plural's s is the same duration", timer("twenty seconds"), timer("twenty second"), true},
		{"case does not matter", timer("Five Minutes"), timer("five minute"), true},
		{"another number is another command", timer("thirty second"), timer("thirteen second"), false},
		{"another intent", meaningKey("jibo.volume:query", nil), meaningKey("jibo.clock:time_now", nil), false},
		{"the same intent without slots", meaningKey("jibo.clock:time_now", nil), meaningKey("jibo.clock:time_now", []string{}), true},
		{"a slot more", meaningKey("jibo.volume:set", nil), meaningKey("jibo.volume:set", []string{"two"}), false},
		{"values in any order", meaningKey("x:y", []string{"one", "two"}), meaningKey("x:y", []string{"two", "one"}), true},
		{"values are kept apart", meaningKey("x:y", []string{"a b", "c"}), meaningKey("x:y", []string{"a", "b c"}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.same, tc.a == tc.b, "%q against %q", tc.a, tc.b)
		})
	}
}
