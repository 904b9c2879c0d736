package wake

import (
	_ "embed"
	"fmt"
	"slices"
	"time"

	"github.com/openjibo/jibod/audio/internal/weights"
)

// defaultModel is the network scripts/wake/train.py and finetune.py trained
// on espeak-ng voices (docs/hearing.md).
//
//go:embed model.bin
var defaultModel []byte

// magic starts a model file.
const magic = "JIBOWAKE"

// Limits on a model file.
const (
	maxHeaderBytes = 64 << 10
	maxModelBytes  = 16 << 20
	maxChannels    = 512
	maxMels        = 128
	maxKernel      = 9
	maxStride      = 4
	maxLayers      = 12
	maxDilation    = 64
	maxNFFT        = 4096
	maxSmooth      = 50
	maxHold        = 50
	maxRefractory  = 1000
	maxEndLagMs    = 1000
	maxRT60        = 30 // seconds
	maxDerevDelay  = 100
)

// header is a model file's JSON header (see scripts/wake/model.py export).
type header struct {
	Format     int       `json:"format"`
	SampleRate int       `json:"sample_rate"`
	Frame      int       `json:"frame"`
	Hop        int       `json:"hop"`
	NFFT       int       `json:"nfft"`
	Mels       int       `json:"mels"`
	FMin       float64   `json:"fmin"`
	FMax       float64   `json:"fmax"`
	LogFloor   float64   `json:"log_floor"`
	Channels   int       `json:"channels"`
	Hidden     int       `json:"hidden"`
	Kernel     int       `json:"kernel"`
	Stride     int       `json:"stride"`
	Dilations  []int     `json:"dilations"`
	Detect     detect    `json:"detect"`
	Dereverb   *dereverb `json:"dereverb,omitempty"`
	Tensors    []tensorH `json:"tensors"`
}

// dereverb is how much late reverberation the features take out of the
// mel energies (scripts/wake/model.py dereverb); absent, none.
type dereverb struct {
	// RT60 is the reverberation time assumed, in seconds.
	RT60 float64 `json:"rt60"`
	// Delay is how many frames after the direct sound the late part
	// starts.
	Delay int `json:"delay"`
	// Floor is the least of a band's energy kept.
	Floor float64 `json:"floor"`
}

// detect is how scores become wakes, as chosen with the network.
type detect struct {
	// Threshold is the smoothed probability that wakes.
	Threshold float64 `json:"threshold"`
	// Smooth is how many steps the probability is averaged over.
	Smooth int `json:"smooth"`
	// Hold, when above 0, replaces the mean: the probability must stay at
	// the threshold or over for Hold steps in a row. A phrase that has
	// just ended holds the score up for a while; a burst of babble or a
	// decoy mostly makes it spike.
	Hold int `json:"hold,omitempty"`
	// Refractory is how many steps after a wake cannot wake again.
	Refractory int `json:"refractory"`
	// EndLagMs is how long after the phrase's end a wake typically comes.
	EndLagMs int `json:"end_lag_ms"`
}

// tensorH names a tensor, its shape and how its values are stored:
// "f32" as little-endian float32; "i8" as one little-endian float32
// scale per row (the first dimension, a layer's output channel) followed
// by the values as int8, each value its int8 times its row's scale; "i4"
// as "i8" with the values as 4-bit two's complement, two to a byte, the
// first in the low nibble.
type tensorH struct {
	Name  string `json:"name"`
	Shape []int  `json:"shape"`
	DType string `json:"dtype"`
}

// Model is a trained wake word network: its features, weights and
// detection settings. It is read-only, so detectors may share one.
type Model struct {
	h header
	// mean and scale normalise the features.
	mean, scale []float32
	// l1 is the first layer (stride h.Stride), layers the dilated ones;
	// each weight is [out][tap][in], tap 0 the oldest input.
	l1     conv
	layers []conv
	h1w    []float32 // [hidden][channels]
	h1b    []float32
	h2w    []float32 // [hidden]
	h2b    float32
}

type conv struct {
	in, out, kernel, dilation int
	w, b                      []float32
}

// Default returns the embedded model.
func Default() (*Model, error) { return Parse(defaultModel) }

// Parse reads a model file. Anything malformed, out of bounds or not
// what this package computes is refused, naming what is wrong.
func Parse(b []byte) (*Model, error) {
	var h header
	data, err := weights.Open(b, magic, "a wake model", maxModelBytes, maxHeaderBytes, &h)
	if err != nil {
		return nil, fmt.Errorf("wake model: %w", err)
	}
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("wake model: %w", err)
	}
	want := h.tensors()
	if len(h.Tensors) != len(want) {
		return nil, fmt.Errorf("wake model: %d tensors, want %d", len(h.Tensors), len(want))
	}
	vals := map[string][]float32{}
	for i, t := range h.Tensors {
		if t.Name != want[i].Name || !slices.Equal(t.Shape, want[i].Shape) {
			return nil, fmt.Errorf("wake model: tensor %d is %s %v, want %s %v", i, t.Name, t.Shape, want[i].Name, want[i].Shape)
		}
		v, rest, err := weights.Tensor(data, t.DType, rowsOf(t.Shape), shapeSize(t.Shape))
		if err != nil {
			return nil, fmt.Errorf("wake model: tensor %s: %w", t.Name, err)
		}
		vals[t.Name] = v
		data = rest
	}
	if len(data) != 0 {
		return nil, fmt.Errorf("wake model: %d bytes after the last tensor", len(data))
	}
	m := &Model{h: h, mean: vals["mean"], scale: vals["scale"], h1w: vals["h1.w"], h1b: vals["h1.b"],
		h2w: vals["h2.w"], h2b: vals["h2.b"][0]}
	m.l1 = newConv(vals["l1.w"], vals["l1.b"], h.Mels, h.Channels, h.Kernel, 1)
	for i, d := range h.Dilations {
		m.layers = append(m.layers, newConv(vals[fmt.Sprintf("conv%d.w", i)], vals[fmt.Sprintf("conv%d.b", i)], h.Channels, h.Channels, h.Kernel, d))
	}
	return m, nil
}

// newConv reorders PyTorch's [out][in][tap] weights to [out][tap][in],
// the order inputs are gathered in.
func newConv(w, b []float32, in, out, kernel, dilation int) conv {
	c := conv{in: in, out: out, kernel: kernel, dilation: dilation, w: make([]float32, len(w)), b: b}
	for o := range out {
		for i := range in {
			for k := range kernel {
				c.w[(o*kernel+k)*in+i] = w[(o*in+i)*kernel+k]
			}
		}
	}
	return c
}

func (h header) check() error {
	switch {
	case h.Format != 2:
		return fmt.Errorf("format %d, want 2", h.Format)
	case h.SampleRate != 16000:
		return fmt.Errorf("sample rate %d, want 16000", h.SampleRate)
	case h.NFFT < 16 || h.NFFT > maxNFFT || h.NFFT&(h.NFFT-1) != 0:
		return fmt.Errorf("nfft %d: want a power of two from 16 to %d", h.NFFT, maxNFFT)
	case h.Frame < 1 || h.Frame > h.NFFT:
		return fmt.Errorf("frame %d outside 1..nfft", h.Frame)
	case h.Hop < 1 || h.Hop > h.Frame:
		return fmt.Errorf("hop %d outside 1..frame", h.Hop)
	case h.Mels < 1 || h.Mels > maxMels:
		return fmt.Errorf("mels %d outside 1..%d", h.Mels, maxMels)
	case !(h.FMin >= 0 && h.FMin < h.FMax && h.FMax <= float64(h.SampleRate)/2):
		return fmt.Errorf("mel range %v..%v Hz outside 0..%d", h.FMin, h.FMax, h.SampleRate/2)
	case !(h.LogFloor > 0 && h.LogFloor < 1):
		return fmt.Errorf("log floor %v outside (0, 1)", h.LogFloor)
	case h.Channels < 1 || h.Channels > maxChannels || h.Hidden < 1 || h.Hidden > maxChannels:
		return fmt.Errorf("channels %d, hidden %d: want 1..%d", h.Channels, h.Hidden, maxChannels)
	case h.Kernel < 1 || h.Kernel > maxKernel:
		return fmt.Errorf("kernel %d outside 1..%d", h.Kernel, maxKernel)
	case h.Stride < 1 || h.Stride > maxStride:
		return fmt.Errorf("stride %d outside 1..%d", h.Stride, maxStride)
	case len(h.Dilations) > maxLayers:
		return fmt.Errorf("%d layers, limit %d", len(h.Dilations), maxLayers)
	case !(h.Detect.Threshold > 0 && h.Detect.Threshold < 1):
		return fmt.Errorf("threshold %v outside (0, 1)", h.Detect.Threshold)
	case h.Detect.Smooth < 1 || h.Detect.Smooth > maxSmooth:
		return fmt.Errorf("smoothing over %d steps outside 1..%d", h.Detect.Smooth, maxSmooth)
	case h.Detect.Hold < 0 || h.Detect.Hold > maxHold:
		return fmt.Errorf("hold over %d steps outside 0..%d", h.Detect.Hold, maxHold)
	case h.Detect.Refractory < 0 || h.Detect.Refractory > maxRefractory:
		return fmt.Errorf("refractory %d steps outside 0..%d", h.Detect.Refractory, maxRefractory)
	case h.Detect.EndLagMs < 0 || h.Detect.EndLagMs > maxEndLagMs:
		return fmt.Errorf("end lag %d ms outside 0..%d", h.Detect.EndLagMs, maxEndLagMs)
	}
	for _, d := range h.Dilations {
		if d < 1 || d > maxDilation {
			return fmt.Errorf("dilation %d outside 1..%d", d, maxDilation)
		}
	}
	if d := h.Dereverb; d != nil {
		switch {
		case !(d.RT60 > 0 && d.RT60 <= maxRT60):
			return fmt.Errorf("dereverb: rt60 %v s outside (0, %d]", d.RT60, maxRT60)
		case d.Delay < 1 || d.Delay > maxDerevDelay:
			return fmt.Errorf("dereverb: delay %d frames outside 1..%d", d.Delay, maxDerevDelay)
		case !(d.Floor >= 0 && d.Floor <= 1):
			return fmt.Errorf("dereverb: floor %v outside [0, 1]", d.Floor)
		}
	}
	return nil
}

// tensors are the names and shapes of the tensors a model with this
// header holds, in order.
func (h header) tensors() []tensorH {
	c, k := h.Channels, h.Kernel
	t := func(name string, shape ...int) tensorH { return tensorH{Name: name, Shape: shape} }
	ts := []tensorH{t("mean", h.Mels), t("scale", h.Mels), t("l1.w", c, h.Mels, k), t("l1.b", c)}
	for i := range h.Dilations {
		ts = append(ts, t(fmt.Sprintf("conv%d.w", i), c, c, k), t(fmt.Sprintf("conv%d.b", i), c))
	}
	return append(ts, t("h1.w", h.Hidden, c), t("h1.b", h.Hidden), t("h2.w", 1, h.Hidden), t("h2.b", 1))
}

// Threshold is the score (the smoothed probability, or the least of the
// held steps') at which the model wakes unless told otherwise.
func (m *Model) Threshold() float64 { return m.h.Detect.Threshold }

// Hold is how many steps in a row the probability must stay at the
// threshold or over to wake; 0 when the model smooths instead (a mean
// over Smooth steps).
func (m *Model) Hold() int { return m.h.Detect.Hold }

// Step is how much audio one output step covers.
func (m *Model) Step() time.Duration {
	return time.Duration(m.stepSamples()) * time.Second / SampleRate
}

// stepSamples is how many samples one output step covers.
func (m *Model) stepSamples() int { return m.h.Hop * m.h.Stride }

// network is a model's streaming state: each layer's recent inputs.
type network struct {
	m      *Model
	frames ring      // normalised feature frames, for the first layer
	hist   []ring    // each dilated layer's inputs
	nFrame int64     // frames seen, the first one's repeats included
	xin    []float32 // scratch: a normalised frame
	x, y   []float32 // scratch: a gathered input, a layer's output
	hid    []float32
}

// ring holds the last n vectors of one width.
type ring struct {
	width, n int
	v        []float32
	at       int // next slot
	count    int // vectors held, up to n
}

func newRing(width, n int) ring { return ring{width: width, n: n, v: make([]float32, width*n)} }

func (r *ring) push(x []float32) {
	copy(r.v[r.at*r.width:(r.at+1)*r.width], x)
	r.at = (r.at + 1) % r.n
	r.count = min(r.count+1, r.n)
}

// back returns the vector pushed k pushes ago (0: the newest).
func (r *ring) back(k int) []float32 {
	i := (r.at - 1 - k + 2*r.n) % r.n
	return r.v[i*r.width : (i+1)*r.width]
}

func newNetwork(m *Model) *network {
	h := m.h
	n := &network{m: m, frames: newRing(h.Mels, h.Kernel)}
	for _, d := range h.Dilations {
		n.hist = append(n.hist, newRing(h.Channels, (h.Kernel-1)*d+1))
	}
	n.xin = make([]float32, h.Mels)
	n.x = make([]float32, h.Kernel*max(h.Mels, h.Channels))
	n.y = make([]float32, h.Channels)
	n.hid = make([]float32, h.Hidden)
	return n
}

// padFrames is how many times a stream's first frame is repeated before
// it (scripts/wake/model.py pad_frames): the network then scores from the
// first frame on instead of once its receptive field has filled, so a
// stream that starts with the phrase is heard.
func (h header) padFrames() int {
	r := 0
	for _, d := range h.Dilations {
		r += (h.Kernel - 1) * d
	}
	return h.Stride*r + h.Kernel - 1
}

// frame takes one feature frame; it reports whether an output step was
// made, and its logit.
func (n *network) frame(feat []float64) (float32, bool) {
	m, h := n.m, n.m.h
	x := n.xin
	for i, v := range feat {
		x[i] = (float32(v) - m.mean[i]) * m.scale[i]
	}
	if n.nFrame == 0 {
		for range h.padFrames() {
			n.step(x) // fills the layers' history; no output comes of it
		}
	}
	return n.step(x)
}

// step runs one normalised frame through the network.
func (n *network) step(x []float32) (float32, bool) {
	m, h := n.m, n.m.h
	n.frames.push(x)
	n.nFrame++
	// The first layer's step i reads frames stride·i … stride·i+kernel-1.
	if n.nFrame < int64(h.Kernel) || (n.nFrame-int64(h.Kernel))%int64(h.Stride) != 0 {
		return 0, false
	}
	in := n.x[:h.Kernel*h.Mels]
	for k := range h.Kernel {
		copy(in[k*h.Mels:], n.frames.back(h.Kernel-1-k))
	}
	m.l1.apply(in, n.y)
	cur := n.y
	for li, c := range m.layers {
		r := &n.hist[li]
		r.push(cur)
		if r.count < r.n {
			return 0, false
		}
		in := n.x[:h.Kernel*h.Channels]
		for k := range h.Kernel {
			copy(in[k*h.Channels:], r.back((h.Kernel-1-k)*c.dilation))
		}
		c.apply(in, n.y)
		newest := r.back(0)
		for o := range n.y {
			n.y[o] += newest[o] // residual
		}
		cur = n.y
	}
	for j := range n.hid {
		n.hid[j] = max(m.h1b[j]+dot(m.h1w[j*h.Channels:(j+1)*h.Channels], cur), 0)
	}
	return m.h2b + dot(m.h2w, n.hid), true
}

// apply computes relu(w·in + b) into out; in is the gathered taps.
func (c conv) apply(in, out []float32) {
	width := c.kernel * c.in
	for o := range c.out {
		out[o] = max(c.b[o]+dot(c.w[o*width:(o+1)*width], in), 0)
	}
}

// dot is the dot product of a and b[:len(a)], in four running sums so
// the multiplications need not wait for each other.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// rowsOf is how many rows a tensor of shape has (its scales, stored in
// 8 or 4 bits): its first dimension, one for a scalar.
func rowsOf(shape []int) int {
	if len(shape) == 0 {
		return 1
	}
	return shape[0]
}

// shapeSize is how many values a tensor of shape holds.
func shapeSize(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
