package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Events past the timeline's limit are not printed, and `jibod jcp run`
// says so rather than printing a short timeline as if it were whole.
func TestTimelineSaysWhatItDropped(t *testing.T) {
	tests := []struct {
		name    string
		events  int
		dropped string
	}{
		{"under the limit", 10, ""},
		{"at the limit", maxTimelineEvents, ""},
		{"over the limit", maxTimelineEvents + 3, "3 events beyond the limit of 100000 were dropped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := newTimeline()
			now := time.Now()
			for range tt.events {
				tl.add(now, "ring", "color", nil)
			}
			assert.Len(t, tl.sorted(), min(tt.events, maxTimelineEvents))
			err := tl.droppedErr()
			if tt.dropped == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.dropped)
		})
	}
}
