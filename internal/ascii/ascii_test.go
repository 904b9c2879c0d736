package ascii

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNewSet(t *testing.T) {
	tests := []struct {
		spec      string
		in, notIn string
	}{
		{"a-z", "amz", "AZ0-_{`"},
		{"A-Za-z0-9_", "aZ09_", "-. /:@[`{"},
		{"A-Za-z0-9_.-", "a.-_", "/ +"},
		{"-a-c", "-abc", "d"},
		{"_+/-", "_+/-", "a,.\\"},
		{"", "", "a\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s := NewSet(tt.spec)
			for i := 0; i < len(tt.in); i++ {
				assert.True(t, s.Has(tt.in[i]), "%q", tt.in[i])
			}
			for i := 0; i < len(tt.notIn); i++ {
				assert.False(t, s.Has(tt.notIn[i]), "%q", tt.notIn[i])
			}
			for c := 0x80; c < 0x100; c++ {
				assert.False(t, s.Has(byte(c)), "%#x", c)
			}
		})
	}
	assert.Panics(t, func() { NewSet("z-a") })
	assert.Panics(t, func() { NewSet("_\\-/") }, "no escapes: a backslash-to-slash range is reversed")
	assert.Panics(t, func() { NewSet("é") })
}

// oracle pairs each check with the regular expression it stands for.
var oracle = []struct {
	name  string
	re    *regexp.Regexp
	check func(string) bool
}{
	{"rule name", regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]*$`),
		func(s string) bool { return Name(s, NewSet("A-Za-z0-9_"), NewSet("A-Za-z0-9_-"), 0) }},
	{"voice", regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_+\-/]{0,63}$`),
		func(s string) bool { return Name(s, Alnum, NewSet("A-Za-z0-9_+/-"), 64) }},
	{"folder id", regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`),
		func(s string) bool { return Name(s, NewSet("a-z0-9"), NewSet("a-z0-9._-"), 64) }},
	{"plugin id", regexp.MustCompile(`^[A-Za-z0-9_-]+$`),
		func(s string) bool { return s != "" && NewSet("A-Za-z0-9_-").All(s) }},
	{"tag, three subtags", regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$`),
		func(s string) bool { return Tag(s, 2, 3, 2, 8, 3) }},
	{"tag, any subtags", regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`),
		func(s string) bool { return Tag(s, 2, 3, 2, 8, -1) }},
	{"tag, long", regexp.MustCompile(`^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`),
		func(s string) bool { return Tag(s, 2, 8, 1, 8, -1) }},
}

var samples = []string{
	"", "a", "A", "0", "_", "-", ".", "en", "en-US", "en-us", "EN-us-x1", "e", "eng", "engl",
	"en-", "-en", "en--US", "en-U", "en-USA12345", "en-US-a1-b2", "en-US-a1-b2-c3", "en-US-a1-b2-c3-d4",
	"zh-Hant-TW", "en_US", "en US", "en-ÜS", "é", "abc\x00", "abc\n", "a\xff", "jibo.clock", "Jibo",
	"en+f3", "mb-en1", "en-us/f3", "_rule", "rule-1", "rule.1", "a/b", "a\\b",
	"0123456789012345678901234567890123456789012345678901234567890123",
	"01234567890123456789012345678901234567890123456789012345678901234",
}

func TestChecksAgreeWithTheirExpressions(t *testing.T) {
	for _, o := range oracle {
		for _, s := range samples {
			assert.Equal(t, o.re.MatchString(s), o.check(s), "%s: %q", o.name, s)
		}
	}
}

func FuzzChecksAgreeWithTheirExpressions(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, o := range oracle {
			if o.re.MatchString(s) != o.check(s) {
				t.Fatalf("%s: %q: expression %v, check %v", o.name, s, o.re.MatchString(s), o.check(s))
			}
		}
	})
}
