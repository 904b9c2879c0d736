package sphinx

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMeaningKey(t *testing.T) {
	vocab := map[string]bool{"second": true, "seconds": true, "minute": true, "minutes": true, "bus": true, "is": true}
	knows := func(w string) bool { return vocab[w] }
	key := func(intent string, slots map[string]string) string { return meaningKey(intent, slots, knows) }
	timer := func(d string) string { return key("jibo.timer:set", map[string]string{"duration": d}) }
	two := func(from, to string) map[string]string { return map[string]string{"from": from, "to": to} }
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"a plural's s is the same duration", timer("twenty seconds"), timer("twenty second"), true},
		{"case does not matter", timer("Five Minutes"), timer("five minute"), true},
		{"another number is another command", timer("thirty second"), timer("thirteen second"), false},
		{"an s that makes no plural of a known word is kept", key("x:y", map[string]string{"stop": "bus"}), key("x:y", map[string]string{"stop": "bu"}), false},
		{"a word that is no plural is kept", key("x:y", map[string]string{"a": "this"}), key("x:y", map[string]string{"a": "thi"}), false},
		{"a lone s is kept", key("x:y", map[string]string{"a": "s"}), key("x:y", map[string]string{"a": ""}), false},
		{"another intent", key("jibo.volume:query", nil), key("jibo.clock:time_now", nil), false},
		{"the same intent without slots", key("jibo.clock:time_now", nil), key("jibo.clock:time_now", map[string]string{}), true},
		{"a slot more", key("jibo.volume:set", nil), key("jibo.volume:set", map[string]string{"level": "two"}), false},
		{"slots in any order", key("x:y", two("one", "two")), key("x:y", map[string]string{"to": "two", "from": "one"}), true},
		{"values are kept apart", key("x:y", two("a b", "c")), key("x:y", two("a", "b c")), false},
		{"the same words in swapped slots", key("x:y", two("one", "two")), key("x:y", two("two", "one")), false},
		{"the same words in another slot", key("x:y", map[string]string{"from": "one"}), key("x:y", map[string]string{"to": "one"}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.same, tc.a == tc.b, "%q against %q", tc.a, tc.b)
		})
	}
}
