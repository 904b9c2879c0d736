package diag

import (
	"fmt"
	"strings"
	"time"
)

// DurationSetting is a configuration key holding a duration from lo to hi
// (`config set key=12s`): get reads it, set applies it; example shows
// people a good value when theirs is refused.
func DurationSetting(key, help, example string, lo, hi time.Duration, get func() time.Duration, set func(time.Duration) error) Setting {
	rng := shortDuration(lo) + ".." + shortDuration(hi)
	return Setting{Key: key, Help: help + " (" + rng + ")",
		Get: func() string { return get().String() },
		Check: func(v string) (any, error) {
			d, err := time.ParseDuration(v)
			if err != nil || d < lo || d > hi {
				return nil, fmt.Errorf("want a duration from %s to %s, like %s", shortDuration(lo), shortDuration(hi), example)
			}
			return d, nil
		},
		Apply: func(v any) error {
			if err := set(v.(time.Duration)); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			return nil
		}}
}

// shortDuration prints whole minutes as people write them: 1m, not 1m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
}
