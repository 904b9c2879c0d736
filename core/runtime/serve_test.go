package runtime

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncWriter is a buffer the robot and the test may use at once.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// Serve runs the robot on its input until the input ends, then closes it:
// typed lines answered on standard output; with the shell on standard
// input and output, the shell's answers there and not the robot's words.
func TestServe(t *testing.T) {
	tests := []struct {
		name, input, stdin string
		trace              bool
		want, notWant      string // want is a regular expression
	}{
		// The clock words its answer several ways; each gives the time
		// ("3:05 PM", "noon", "midnight").
		{name: "stdin", input: "stdin", stdin: "what time is it\n", want: `(?m)^jibo: .*\b(\d{1,2}:\d{2} [AP]M|noon|midnight)\.$`},
		{name: "trace on stdout", input: "stdin", stdin: "what time is it\n", trace: true, notWant: "jibo:"},
		{name: "shell", input: "shell", stdin: "what time is it\n", want: `error: unknown command "what"`, notWant: "jibo:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := newTestRobot(context.Background(), Config{StateDir: NoState, SpeakWPM: 0})
			require.NoError(t, err)
			var out, errOut syncWriter
			err = r.Serve(context.Background(), ServeConfig{Input: tt.input, TraceOnStdout: tt.trace, Stdin: strings.NewReader(tt.stdin), Stdout: &out, Stderr: &errOut,
				Lang: "en-US", Shell: ShellConfig{Socket: ShellOff, Reboot: RebootOff, StateDir: NoState}})
			require.NoError(t, err)
			assert.Regexp(t, tt.want, out.String())
			if tt.notWant != "" {
				assert.NotContains(t, out.String(), tt.notWant)
			}
		})
	}
}
