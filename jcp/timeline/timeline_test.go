package timeline

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
)

// Events past the timeline's limit are not kept, and the timeline says so,
// for `jibod jcp run` not to print a short timeline as if it were whole.
func TestTimelineSaysWhatItDropped(t *testing.T) {
	tests := []struct {
		name    string
		events  int
		dropped string
	}{
		{"under the limit", 10, ""},
		{"at the limit", MaxEvents, ""},
		{"over the limit", MaxEvents + 3, "3 events beyond the limit of 100000 were dropped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := New()
			now := time.Now()
			for range tt.events {
				tl.Add(now, "ring", "color", nil)
			}
			assert.Len(t, tl.Events(), min(tt.events, MaxEvents))
			err := tl.Dropped()
			if tt.dropped == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.dropped)
		})
	}
}

// The picture shows each behaviour as a bar coloured by how it ended, the
// speech with its text, the ring's colours and the result in the title.
func TestWriteSVGDrawsBehavioursSpeechAndRing(t *testing.T) {
	tl := New()
	at := func(ms int) time.Time { return tl.start.Add(time.Duration(ms) * time.Millisecond) }
	tl.Behaviour(jcp.Event{Time: at(0), Kind: jcp.EventStarted, BehaviorID: "say-1", Type: "SLIM"})
	tl.Device(device.Event{Time: at(10), Device: "speaker", Kind: "say", Values: map[string]any{"text": "hi & bye"}})
	tl.Device(device.Event{Time: at(400), Device: "speaker", Kind: "done"})
	tl.Behaviour(jcp.Event{Time: at(410), Kind: jcp.EventSucceeded, BehaviorID: "say-1", Type: "SLIM"})
	tl.mu.Lock()
	tl.samples = []Sample{{T: 0, LED: []device.RGB{{R: 0xff, A: 0xff}}}, {T: 500 * time.Millisecond, LED: []device.RGB{{B: 0xff, A: 0xff}}}}
	tl.mu.Unlock()

	var b strings.Builder
	require.NoError(t, tl.WriteSVG(&b, "hello.json", &jcp.Result{Status: jcp.StatusSucceeded}))
	svg := b.String()
	assert.True(t, strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg"`))
	assert.Contains(t, svg, "hello.json — succeeded in 1.00 s")
	assert.Contains(t, svg, ">SLIM say-1</text>")
	assert.Contains(t, svg, `fill="#8fd18f"`, "a succeeded behaviour is green")
	assert.Contains(t, svg, "“hi &amp; bye”", "speech text, escaped")
	assert.Contains(t, svg, `fill="#ff0000"`, "the ring's red")
	assert.Contains(t, svg, `fill="#0000ff"`, "then blue")
	assert.Equal(t, []string{"jcp started", "speaker say", "speaker done", "jcp succeeded"}, kinds(tl.Events()))
}

func kinds(ev []Event) []string {
	var out []string
	for _, e := range ev {
		out = append(out, e.Device+" "+e.Event)
	}
	return out
}
