//go:build sphinx

package hearing

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/audio/sphinx"
)

// EnvFar sets the recogniser's floor for far speech (sphinx.Config.Far):
// "off" none; "REVERB,CONFIDENCE" the reverberation (dB, see
// sphinx.Reverberation) from which an utterance counts as far and the
// confidence floor it then must reach. A tuning switch outside the typed
// config; unset, sphinx.DefaultFar (docs/hearing.md).
const EnvFar = "JIBOD_SPHINX_FAR"

// farFromEnv returns the far floor $JIBOD_SPHINX_FAR asks for, nil for
// none.
func farFromEnv(getenv func(string) string) (*sphinx.Far, error) {
	v := getenv(EnvFar)
	switch v {
	case "":
		f := sphinx.DefaultFar
		return &f, nil
	case "off":
		return nil, nil
	}
	bad := fmt.Errorf("%s=%q: want off or REVERB,CONFIDENCE (reverberation in (0, %v] dB, confidence in [0, 1])",
		EnvFar, v, float64(sphinx.MaxReverb))
	parts := strings.Split(v, ",")
	if len(parts) != 2 {
		return nil, bad
	}
	reverb, err := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
	if err != nil || reverb <= 0 {
		return nil, bad
	}
	conf, err := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
	if err != nil {
		return nil, bad
	}
	f := sphinx.Far{MinReverb: reverb, MinConfidence: conf}
	if f.Check() != nil {
		return nil, bad
	}
	return &f, nil
}
