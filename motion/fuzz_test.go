package motion

import (
	"math"
	"testing"
)

// FuzzParseAnimation checks that any input is rejected or gives an
// animation that samples to finite angles within the bounds its format
// promises, everywhere and at every time.
func FuzzParseAnimation(f *testing.F) {
	f.Add([]byte(`{"name":"a","tracks":{"topSection_r":[[0,0],[0.5,0.4],[1,0]]}}`))
	f.Add([]byte(`{"name":"b","relative":true,"interpolation":"linear","duration":2,"tracks":{"bottomSection_r":[[0,-6],[1,6]]},"led":[{"t":0,"pattern":"rainbow"},{"t":1,"color":"red","fade":true}]}`))
	f.Add([]byte(`{"name":"c","led":[{"t":0,"color":"#ffffff"}],"duration":0.5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseAnimation(data)
		if err != nil {
			if a != nil {
				t.Fatal("error with an animation")
			}
			return
		}
		if a.Duration <= 0 || a.Duration > MaxAnimationSeconds {
			t.Fatalf("duration %g", a.Duration)
		}
		bound := 3.0543
		if a.Relative {
			bound *= 2
		}
		for i := range NumAxes {
			for k := -1; k <= 101; k++ {
				v, ok := a.Sample(i, a.Duration*float64(k)/100)
				if ok && (math.IsNaN(v) || math.Abs(v) > bound+1e-9) {
					t.Fatalf("axis %d at %d%%: %g", i, k, v)
				}
			}
		}
		if a.HasLights() {
			if err := a.LightProgram(1, 2).Validate(); err != nil {
				t.Fatalf("light program: %v", err)
			}
		}
	})
}
