package timeline

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// The picture: joint angles over time on top, the ring's pixels as a
// heat strip below, then one lane per behaviour and one for speech, all
// on the same time axis.
const (
	svgWidth   = 1100
	svgLeft    = 210 // room for lane labels
	svgRight   = 20
	plotHeight = 240
	ledRow     = 6
	laneHeight = 20
)

var axisColours = [motion.NumAxes]string{"#1f77b4", "#ff7f0e", "#2ca02c"}

var statusColours = map[string]string{
	"succeeded": "#8fd18f", "failed": "#f08080", "canceled": "#f5b041", "skipped": "#cccccc",
}

// lane is a bar on the picture.
type lane struct {
	label      string
	start, end time.Duration
	colour     string
	text       string
}

// WriteSVGFile draws the timeline to the file path (see WriteSVG), titled
// with title's base name.
func (tl *Timeline) WriteSVGFile(path, title string, res *jcp.Result) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing SVG: %w", err)
	}
	w := bufio.NewWriter(f)
	werr := tl.WriteSVG(w, filepath.Base(title), res)
	if err := w.Flush(); werr == nil {
		werr = err
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("writing SVG %s: %w", path, werr)
	}
	return nil
}

// WriteSVG draws the timeline as an SVG picture: the joint angles over
// time with the motion commands marked, the ring's pixels as a heat strip,
// then one lane per behaviour and one for speech, all on one time axis;
// res, the action's result (nil when there is none), goes in the title.
func (tl *Timeline) WriteSVG(w io.Writer, title string, res *jcp.Result) error {
	events := tl.Events()
	samples := tl.Samples()
	end := time.Duration(0)
	if n := len(samples); n > 0 {
		end = samples[n-1].T
	}
	for _, e := range events {
		end = max(end, e.T)
	}
	end = max(end, time.Second)

	behaviours, speech := lanes(events, end)
	pixels := 0
	if len(samples) > 0 {
		pixels = len(samples[0].LED)
	}
	plotTop := 60
	ledTop := plotTop + plotHeight + 40
	laneTop := ledTop + pixels*ledRow + 40
	height := laneTop + (len(behaviours)+1)*laneHeight + 50

	plotW := float64(svgWidth - svgLeft - svgRight)
	x := func(t time.Duration) float64 { return svgLeft + plotW*float64(t)/float64(end) }

	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", svgWidth, height, svgWidth, height)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	status := "no result"
	if res != nil {
		status = string(res.Status)
	}
	p(`<text x="%d" y="24" font-size="16" font-weight="bold">%s — %s in %.2f s</text>`+"\n", svgLeft, esc(title), esc(status), end.Seconds())

	// Time grid across the whole picture.
	step := niceStep(end)
	for t := time.Duration(0); t <= end; t += step {
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>`+"\n", x(t), plotTop, x(t), height-40)
		p(`<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%gs</text>`+"\n", x(t), height-24, t.Seconds())
	}

	// Joint angles.
	maxAbs := 0.5
	for _, s := range samples {
		for _, a := range s.Pose {
			maxAbs = max(maxAbs, math.Abs(a))
		}
	}
	maxAbs = math.Ceil(maxAbs*1.1*2) / 2
	y := func(a float64) float64 { return float64(plotTop) + float64(plotHeight)*(0.5-a/(2*maxAbs)) }
	p(`<text x="10" y="%d" font-weight="bold">joint angles</text>`+"\n", plotTop-11)
	for a := -maxAbs; a <= maxAbs+1e-9; a += 0.5 {
		colour := "#ddd"
		if math.Abs(a) < 1e-9 {
			colour = "#999"
		}
		p(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`+"\n", svgLeft, y(a), svgWidth-svgRight, y(a), colour)
		p(`<text x="%d" y="%.1f" text-anchor="end" fill="#555">%+.1f rad (%+.0f°)</text>`+"\n", svgLeft-6, y(a)+4, a, a*180/math.Pi)
	}
	for i := range motion.NumAxes {
		var pts []string
		for _, s := range samples {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(s.T), y(s.Pose[i])))
		}
		if len(pts) > 0 {
			p(`<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", axisColours[i], strings.Join(pts, " "))
		}
		p(`<rect x="%d" y="%d" width="14" height="4" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			svgLeft+10+i*190, plotTop-16, axisColours[i], svgLeft+30+i*190, plotTop-11, motion.AxisName(i))
	}
	// Motion commands as markers on the angle plot; labels that would
	// overlap step upwards.
	lastX, level := math.Inf(-1), 0
	for _, e := range events {
		if e.Device != motion.Name || (e.Event != "lookat" && e.Event != "animation" && e.Event != "halt") {
			continue
		}
		label := e.Event
		if n, ok := e.Values["name"].(string); ok && e.Event == "animation" {
			label = n
		}
		if r, ok := e.Values["reason"].(string); ok {
			if r == "close" {
				continue // the tool shutting the body down
			}
			label = "halt (" + r + ")"
		}
		anchor, dx := "start", 3.0
		if x(e.T) > svgWidth-120 {
			anchor, dx = "end", -3
		}
		if x(e.T)-lastX < 90 {
			level = (level + 1) % 5
		} else {
			level = 0
		}
		lastX = x(e.T)
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#888" stroke-dasharray="3,3"/>`+"\n", x(e.T), plotTop, x(e.T), plotTop+plotHeight)
		p(`<text x="%.1f" y="%d" fill="#444" text-anchor="%s">%s</text>`+"\n", x(e.T)+dx, plotTop+plotHeight-4-14*level, anchor, esc(label))
	}

	// The ring, pixel by pixel.
	if pixels > 0 {
		p(`<text x="10" y="%d" font-weight="bold">LED ring</text>`+"\n", ledTop+12)
		p(`<text x="10" y="%d" fill="#555">(%d pixels)</text>`+"\n", ledTop+26, pixels)
		// One rectangle per run of a colour, per pixel.
		for i := range pixels {
			for k := 0; k < len(samples); {
				c := samples[k].LED[i]
				j := k + 1
				for j < len(samples) && samples[j].LED[i] == c {
					j++
				}
				next := end
				if j < len(samples) {
					next = samples[j].T
				}
				p(`<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" shape-rendering="crispEdges"/>`+"\n",
					// A hair of overlap, so that rounding leaves no seams.
					x(samples[k].T), ledTop+i*ledRow, math.Max(x(next)-x(samples[k].T), 0.5)+0.6, ledRow, device.FormatRGB(c))
				k = j
			}
		}
		p(`<rect x="%d" y="%d" width="%.1f" height="%d" fill="none" stroke="#999"/>`+"\n", svgLeft, ledTop, plotW, pixels*ledRow)
	}

	// Behaviours, then speech.
	p(`<text x="10" y="%d" font-weight="bold">behaviours</text>`+"\n", laneTop-8)
	for i, l := range append(behaviours, speech...) {
		row := i
		if i >= len(behaviours) {
			row = len(behaviours)
		}
		top := laneTop + row*laneHeight
		if i < len(behaviours) || i == len(behaviours) {
			p(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", svgLeft-6, top+14, esc(l.label))
		}
		p(`<rect x="%.1f" y="%d" width="%.1f" height="%d" rx="3" fill="%s" stroke="#666"/>`+"\n", x(l.start), top+2, math.Max(x(l.end)-x(l.start), 2), laneHeight-4, l.colour)
		if l.text != "" {
			p(`<text x="%.1f" y="%d" font-size="11">%s</text>`+"\n", x(l.start)+4, top+14, esc(l.text))
		}
	}
	p("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// lanes turns behaviour and speaker events into bars.
func lanes(events []Event, end time.Duration) (behaviours, speech []lane) {
	open := map[string]int{}
	var said time.Duration
	var text string
	for _, e := range events {
		switch {
		case e.Device == "jcp" && e.Event == string(jcp.EventStarted):
			id, _ := e.Values["id"].(string)
			typ, _ := e.Values["type"].(string)
			open[id] = len(behaviours)
			behaviours = append(behaviours, lane{label: typ + " " + short(id), start: e.T, end: end, colour: "#ddeeff"})
		case e.Device == "jcp":
			id, _ := e.Values["id"].(string)
			i, ok := open[id]
			if !ok {
				continue
			}
			switch e.Event {
			case string(jcp.EventSucceeded), string(jcp.EventFailed), string(jcp.EventCanceled), string(jcp.EventSkipped):
				behaviours[i].end = e.T
				behaviours[i].colour = statusColours[e.Event]
				behaviours[i].text = e.Event
				if n, _ := e.Values["note"].(string); n != "" {
					behaviours[i].text += ": " + n
				}
				delete(open, id)
			}
		case e.Device == "speaker" && e.Event == "say":
			said = e.T
			text, _ = e.Values["text"].(string)
		case e.Device == "speaker" && (e.Event == "done" || e.Event == "interrupted"):
			colour := "#b3d9ff"
			if e.Event == "interrupted" {
				colour = "#f5b041"
			}
			speech = append(speech, lane{label: "speech", start: said, end: e.T, colour: colour, text: "“" + text + "”"})
		}
	}
	return behaviours, speech
}

func short(id string) string {
	if len(id) > 10 {
		return id[:8] + "…"
	}
	return id
}

func esc(s string) string { return html.EscapeString(s) }

// niceStep picks a time grid step giving about ten lines.
func niceStep(end time.Duration) time.Duration {
	for _, s := range []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute} {
		if end/s <= 12 {
			return s
		}
	}
	return 5 * time.Minute
}
