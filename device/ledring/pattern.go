package ledring

import (
	"math"
	"slices"
	"time"

	"github.com/openjibo/jibod/device"
)

// The ring patterns every Animator can play. Each is a function of time
// only, so a pattern looks the same however often it is drawn.
const (
	// PatternListening breathes blue: the robot is listening.
	PatternListening = "listening"
	// PatternThinking spins a cyan comet once a second: the robot is
	// working on an answer.
	PatternThinking = "thinking"
	// PatternSpeaking flickers light blue: the robot is talking.
	PatternSpeaking = "speaking"
	// PatternError blinks red twice a second: something went wrong.
	PatternError = "error"
	// PatternRainbow turns a colour wheel around the ring.
	PatternRainbow = "rainbow"
	// PatternOff is dark.
	PatternOff = "off"
)

// Patterns returns the pattern names, sorted.
func Patterns() []string {
	p := []string{PatternListening, PatternThinking, PatternSpeaking, PatternError, PatternRainbow, PatternOff}
	slices.Sort(p)
	return p
}

// IsPattern reports whether name is a known pattern.
func IsPattern(name string) bool {
	return slices.Contains(Patterns(), name)
}

// Render draws pattern name at time t since the pattern started into px
// (one colour per pixel) and reports whether the pattern exists. It does
// not allocate.
func Render(name string, t time.Duration, px []device.RGB) bool {
	s := t.Seconds()
	n := len(px)
	switch name {
	case PatternListening:
		fill(px, scale(device.RGB{R: 0x00, G: 0x88, B: 0xff, A: 0xff}, 0.55+0.45*math.Sin(2*math.Pi*s/1.6)))
	case PatternSpeaking:
		fill(px, scale(device.RGB{R: 0x00, G: 0xaa, B: 0xff, A: 0xff}, 0.75+0.25*math.Sin(2*math.Pi*3*s)))
	case PatternError:
		c := device.RGB{A: 0xff}
		if math.Mod(s, 0.5) < 0.25 {
			c.R = 0xff
		}
		fill(px, c)
	case PatternThinking:
		head := math.Mod(s*float64(n), float64(n))
		tail := math.Max(float64(n)/3, 1)
		for i := range px {
			d := math.Mod(head-float64(i)+float64(n), float64(n))
			px[i] = scale(device.RGB{R: 0x40, G: 0xc0, B: 0xff, A: 0xff}, math.Max(0, 1-d/tail))
		}
	case PatternRainbow:
		for i := range px {
			px[i] = hue(math.Mod(float64(i)/float64(max(n, 1))+s/4, 1))
		}
	case PatternOff:
		fill(px, device.RGB{A: 0xff})
	default:
		return false
	}
	return true
}

func fill(px []device.RGB, c device.RGB) {
	for i := range px {
		px[i] = c
	}
}

// scale dims c by f in [0,1].
func scale(c device.RGB, f float64) device.RGB {
	f = math.Min(math.Max(f, 0), 1)
	return device.RGB{R: uint8(float64(c.R)*f + 0.5), G: uint8(float64(c.G)*f + 0.5), B: uint8(float64(c.B)*f + 0.5), A: 0xff}
}

// lerp mixes a and b, f = 0 giving a and 1 giving b.
func lerp(a, b device.RGB, f float64) device.RGB {
	mix := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*f + 0.5) }
	return device.RGB{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 0xff}
}

// hue returns the fully saturated colour at h in [0,1) around the wheel.
func hue(h float64) device.RGB {
	x := h * 6
	f := x - math.Floor(x)
	v := func(f float64) uint8 { return uint8(f*255 + 0.5) }
	switch int(x) % 6 {
	case 0:
		return device.RGB{R: 255, G: v(f), A: 0xff}
	case 1:
		return device.RGB{R: v(1 - f), G: 255, A: 0xff}
	case 2:
		return device.RGB{G: 255, B: v(f), A: 0xff}
	case 3:
		return device.RGB{G: v(1 - f), B: 255, A: 0xff}
	case 4:
		return device.RGB{R: v(f), B: 255, A: 0xff}
	}
	return device.RGB{R: 255, B: v(1 - f), A: 0xff}
}
