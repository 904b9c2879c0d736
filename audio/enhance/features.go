package enhance

import "math"

// binBands is a spectrum bin's share of the two bands whose centres lie
// either side of it; the shares sum to one.
type binBands struct {
	band  int // the lower band; the other is band+1
	share float64
}

// bandWeights places bands centres evenly on the mel scale from 0 Hz to
// Nyquist and gives each of an n-point spectrum's bins its shares of the
// two around it (scripts/enhance/train.py band_weights).
func bandWeights(n, bands, rate int) []binBands {
	mel := func(f float64) float64 { return 2595 * math.Log10(1+f/700) }
	imel := func(m float64) float64 { return 700 * (math.Pow(10, m/2595) - 1) }
	top := mel(float64(rate) / 2)
	centres := make([]float64, bands)
	for i := range centres {
		centres[i] = imel(top*float64(i)/float64(bands-1)) * float64(n) / float64(rate)
	}
	out := make([]binBands, n/2+1)
	for k := range out {
		b := 0
		for b+1 < bands && centres[b+1] <= float64(k) {
			b++
		}
		b = min(b, bands-2)
		t := (float64(k) - centres[b]) / (centres[b+1] - centres[b])
		out[k] = binBands{band: b, share: min(max(t, 0), 1)}
	}
	return out
}
