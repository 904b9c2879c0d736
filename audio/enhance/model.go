// Package enhance runs a small trained network that keeps an utterance's
// dominant talker and turns down what is not them: other people talking,
// music, noise. It gives every band of every 32 ms frame (taken every
// 16 ms) a gain, which is spread over the frame's spectrum before the
// frame is resynthesised.
// The network (scripts/enhance/train.py) was trained on espeak-ng speech
// mixed with babble of other espeak-ng voices, coloured noise and
// music-like sound; the weights are embedded and run in pure Go.
package enhance

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/openjibo/jibod/audio/internal/fft"
	"github.com/openjibo/jibod/audio/internal/weights"
)

// defaultModel is the network scripts/enhance/train.py trained.
//
//go:embed model.bin
var defaultModel []byte

// The convolutions' widths (scripts/enhance/train.py Net).
const (
	firstWidth = 5
	layerWidth = 3
)

// magic starts a model file.
const magic = "JIBOENH1"

// Limits on a model file.
const (
	maxHeaderBytes = 16 << 10
	maxModelBytes  = 4 << 20
	maxBands       = 128
	maxChannels    = 256
	maxLayers      = 8
	maxDilation    = 64
)

// header is a model file's JSON header (scripts/enhance/train.py to_bytes).
type header struct {
	Format     int       `json:"format"`
	SampleRate int       `json:"sample_rate"`
	NFFT       int       `json:"nfft"`
	Hop        int       `json:"hop"`
	Bands      int       `json:"bands"`
	Channels   int       `json:"channels"`
	Dilations  []int     `json:"dilations"`
	Eps        float64   `json:"eps"`
	Tensors    []tensorH `json:"tensors"`
}

// tensorH names a stored tensor: "i8" is a matrix stored as one
// little-endian float32 scale per row then its values as int8 row by row
// (each value its int8 times its row's scale), "f32" a vector of
// little-endian float32.
type tensorH struct {
	Name  string `json:"name"`
	Rows  int    `json:"rows"`
	Cols  int    `json:"cols"`
	DType string `json:"dtype"`
}

// conv is a convolution over time, centred, with zeros beyond the
// utterance's ends.
type conv struct {
	in, out, width, dilation int
	w                        []float32 // [out][tap][in]
	b                        []float32 // [out]
}

// newConv reorders PyTorch's [out][in][tap] weights as [out][tap][in],
// so that a tap's weights lie along a frame's values.
func newConv(w, b []float32, in, width, dilation int) conv {
	c := conv{in: in, out: len(b), width: width, dilation: dilation, w: make([]float32, len(w)), b: b}
	for o := range c.out {
		for i := range in {
			for j := range width {
				c.w[(o*width+j)*in+i] = w[(o*in+i)*width+j]
			}
		}
	}
	return c
}

// Model is a trained enhancement network. It is read-only and safe for
// concurrent use.
type Model struct {
	h header
	// first is the input layer (width 5), layers the dilated residual
	// ones (width 3), out the 1x1 layer giving the gains.
	first  conv
	layers []conv
	out    conv
	// weights[k] are bin k's two bands and their shares (features.go).
	weights []binBands
	window  []float64
	fft     *fft.Plan
	// pool holds the enhancements' working memory (*scratch).
	pool sync.Pool
}

// Default returns the embedded model.
func Default() (*Model, error) { return Parse(defaultModel) }

// Parse reads a model file. Anything malformed, out of bounds or not
// what this package computes is refused, naming what is wrong.
func Parse(b []byte) (*Model, error) {
	var h header
	data, err := weights.Open(b, magic, "an enhancement model", maxModelBytes, maxHeaderBytes, &h)
	if err != nil {
		return nil, fmt.Errorf("enhancement model: %w", err)
	}
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("enhancement model: %w", err)
	}
	want := h.tensors()
	if len(h.Tensors) != len(want) {
		return nil, fmt.Errorf("enhancement model: %d tensors, want %d", len(h.Tensors), len(want))
	}
	vals := map[string][]float32{}
	for i, t := range h.Tensors {
		if t != want[i] {
			return nil, fmt.Errorf("enhancement model: tensor %d is %+v, want %+v", i, t, want[i])
		}
		v, tail, err := weights.Tensor(data, t.DType, t.Rows, t.Rows*t.Cols)
		if err != nil {
			return nil, fmt.Errorf("enhancement model: tensor %s: %w", t.Name, err)
		}
		vals[t.Name] = v
		data = tail
	}
	if len(data) != 0 {
		return nil, fmt.Errorf("enhancement model: %d bytes after the last tensor", len(data))
	}
	m := &Model{h: h,
		first: newConv(vals["c0.w"], vals["c0.b"], h.Bands, firstWidth, 1),
		out:   newConv(vals["out.w"], vals["out.b"], h.Channels, 1, 1)}
	for i, d := range h.Dilations {
		name := fmt.Sprintf("c%d", i+1)
		m.layers = append(m.layers, newConv(vals[name+".w"], vals[name+".b"], h.Channels, layerWidth, d))
	}
	m.weights = bandWeights(h.NFFT, h.Bands, h.SampleRate)
	m.window = fft.SqrtHann(h.NFFT)
	if m.fft, err = fft.New(h.NFFT); err != nil {
		return nil, fmt.Errorf("enhancement model: %w", err)
	}
	return m, nil
}

// check refuses a header this package cannot run.
func (h header) check() error {
	switch {
	case h.Format != 1:
		return fmt.Errorf("format %d, want 1", h.Format)
	case h.SampleRate != 16000:
		return fmt.Errorf("sample rate %d, want 16000", h.SampleRate)
	case h.NFFT != 512 || h.Hop != h.NFFT/2:
		return fmt.Errorf("frame %d hop %d, want 512 and 256", h.NFFT, h.Hop)
	case h.Bands < 2 || h.Bands > maxBands:
		return fmt.Errorf("%d bands not in 2..%d", h.Bands, maxBands)
	case h.Channels < 1 || h.Channels > maxChannels:
		return fmt.Errorf("%d channels not in 1..%d", h.Channels, maxChannels)
	case len(h.Dilations) > maxLayers:
		return fmt.Errorf("%d layers, limit %d", len(h.Dilations), maxLayers)
	case !(h.Eps > 0 && h.Eps < 1):
		return fmt.Errorf("eps %g not in (0, 1)", h.Eps)
	}
	for _, d := range h.Dilations {
		if d < 1 || d > maxDilation {
			return fmt.Errorf("dilation %d not in 1..%d", d, maxDilation)
		}
	}
	return nil
}

// tensors are the tensors a model with h's sizes stores, in order.
func (h header) tensors() []tensorH {
	mat := func(name string, r, c int) tensorH { return tensorH{Name: name, Rows: r, Cols: c, DType: "i8"} }
	vec := func(name string, r int) tensorH { return tensorH{Name: name, Rows: r, Cols: 1, DType: "f32"} }
	out := []tensorH{mat("c0.w", h.Channels, h.Bands*firstWidth), vec("c0.b", h.Channels)}
	for i := range h.Dilations {
		name := fmt.Sprintf("c%d", i+1)
		out = append(out, mat(name+".w", h.Channels, h.Channels*layerWidth), vec(name+".b", h.Channels))
	}
	return append(out, mat("out.w", h.Bands, h.Channels), vec("out.b", h.Bands))
}
